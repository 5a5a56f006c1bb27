package diagnose

// rewordedSamples are the RV phrases as something other than the API
// server wrote them (another case, cut or emptied numbers, tokens that are
// no RV, the plugin's own lines pasted back), run with samples by
// TestFromTextSamples.
var rewordedSamples = []sample{
	// adversary try 35 F5: the words lowercased by a log pipeline, and the
	// form with its numbers emptied, are no more certain than the bare words.
	{name: "bare too large lowercased", text: `failed to list *v1.ConfigMap: too large resource version`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, note: "another case"},
	// adversary try 36 F3, F7: the numbers are read whatever the case of
	// the first letter; reworded, at most medium.
	{name: "too large lowercased with numbers", text: `Error from server (Timeout): too large resource version: 9000, current: 8990`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceMedium, req: "9000", gap: "10", note: "another case"},
	{name: "too old capitalized", text: `Too old resource version: 214 (257)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceMedium, req: "214", old: "257", gap: "43", note: "another case"},
	{name: "too large with empty numbers", text: `Timeout: Too large resource version: , current: `,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, note: "are empty"},
	// adversary try 37: a bare mention before the numbered one (a
	// client's wrapper) does not hide the numbers, in either case.
	{name: "bare then numbered too large", text: `Too large resource version; too large resource version: 10, current: 5`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceMedium, req: "10", gap: "5", note: "another case"},
	{name: "bare then numbered too old", text: `watch failed: too old resource version; Error: too old resource version: 3 (7)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "3", old: "7", gap: "4"},
	// adversary try 38 F6, fresh user try 38 F5: a number that is no RV
	// as the server prints it is not read as the digits it starts with,
	// nor said to be missing.
	{name: "too large of a hex number", text: `Timeout: Too large resource version: 0x10, current: 5`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, note: `"0x10" is no RV`},
	{name: "too old of a negative number", text: `too old resource version: -5 (10)`,
		class: ClassExpired, kind: KindTooOldResourceVersion, conf: ConfidenceLow, note: `"-5" is no RV`},
	// adversary try 40 F2, F3: "CURRENT:" in capitals is read as the
	// phrase is; a full stop after a number is punctuation.
	{name: "too large in capitals", text: `TOO LARGE RESOURCE VERSION: 300, CURRENT: 200`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceMedium, req: "300", gap: "100", note: "another case"},
	{name: "too old with full stops", text: `too old resource version: 100. (200.)`,
		class: ClassExpired, kind: KindWatchCacheWindow, conf: ConfidenceHigh, req: "100", old: "200", gap: "100"},
	// The plugin's own watch line, pasted back: its status line leaves
	// out the full stop (the explain cells of the matrix caught it).
	{name: "storage watch 410 as watch prints it", text: `02:25:40.403  ERROR   410 Expired: The resourceVersion for the provided watch is too old`,
		class: ClassExpired, kind: KindEtcdCompactedWatch, conf: ConfidenceHigh},
	{name: "bare too large in a log", text: `E1206 20:58:01.123456   4242 reflector.go:166] "Unhandled Error" err="failed to list *v1.ConfigMap: Too large resource version"`,
		class: ClassTooLarge, kind: KindResourceVersionTooLarge, conf: ConfidenceLow, note: "none of the numbers"},
}
