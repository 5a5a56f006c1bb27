package probe

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// FuzzProbeParseRV: ParseRV never panics and accepts exactly the decimal
// unsigned integers that round-trip.
func FuzzProbeParseRV(f *testing.F) {
	for _, s := range []string{"", "0", "1", "12345", "-1", "abc", "18446744073709551615", "18446744073709551616", " 1", "1e3", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseRV(s)
		if ok && strconv.FormatUint(n, 10) != trimZeros(s) {
			t.Fatalf("ParseRV(%q) = %d, which does not print back", s, n)
		}
	})
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

// FuzzProbeDecodeEvent: any bytes as a watch event object decode to an
// event or an error, never a panic.
func FuzzProbeDecodeEvent(f *testing.F) {
	f.Add("ADDED", `{"kind":"PartialObjectMetadata","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"5"}}`)
	f.Add("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 2 (211)","reason":"Expired","code":410}`)
	f.Add("BOOKMARK", `{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}`)
	f.Add("DELETED", `null`)
	f.Add("WHAT", `{}`)
	f.Fuzz(func(t *testing.T, typ, raw string) {
		e, err := DecodeEvent(typ, json.RawMessage(raw), time.Time{})
		if err == nil && e.Type != typ {
			t.Fatalf("type changed: %q -> %q", typ, e.Type)
		}
		if err == nil && typ == EventError && e.Status == nil {
			t.Fatal("an ERROR event decoded without a Status")
		}
	})
}
