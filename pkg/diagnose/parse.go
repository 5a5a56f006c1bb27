package diagnose

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The parsing here is flat on purpose: no regular expressions and no
// recursive JSON decoding of untrusted text. Every helper is a forward scan
// bounded by the input length (or by a fixed window), so FromText is linear
// in its input whatever it is given: megabytes of garbage, JSON nested ten
// thousand levels deep, or a line of a million quotes.

const (
	maxDigits    = 64       // longer digit runs are kept up to here (a uint64 has at most 20 digits)
	fieldWindow  = 8 << 10  // how far a field's value is read
	maxJSONDepth = 32       // deeper whole-text JSON is not decoded
	maxJSONBytes = 64 << 10 // larger whole-text JSON is not decoded
)

// signals is everything read from one error before it is classified.
type signals struct {
	text       string // where phrases are looked for (the message, or the whole text)
	code       int    // HTTP status code, 0 if unknown
	codeByName bool   // code was read from client-go's words for it, not from a number (statusCodeOf)
	reason     string // Status reason, "" if unknown
	message    string // the Status message when a field carried it
	freshToken bool   // the Status carried a new continue token
	causeLarge bool   // a cause of type ResourceVersionTooLarge (or its old message)
	op         string // watch, list, list-exact, list-continue
	opNamedBy  string // the client's words that named op ("failed to list"), if they did
	requested  string // requested RV from the context or a URL
	// askedRV and urlRV are the requested RV as the caller gave it
	// and as a URL in the text names it: each a claim about the request,
	// checked against the other and the server's message (contradiction).
	askedRV, urlRV string
	// getOne: the URL reads one object (a GET outside /watch/) at urlRV:
	// answered TooLarge as a list is (504, cause ResourceVersionTooLarge).
	getOne bool
	source string
	// live and noRVSent are Context.Live and NoResourceVersionSent.
	live, noRVSent bool
}

// digitsAt returns the run of decimal digits starting at s[i] (its first
// maxDigits) and the index after the whole run: a run too long for a uint64
// is returned whole (up to maxDigits), never cut to a number it is not.
func digitsAt(s string, i int) (string, int) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return s[i:min(j, i+maxDigits)], j
}

// rvAt reads the RV the API server prints at s[i]: a run of decimal
// digits that ends the token (digitsAt). A token that is no such number
// ("-5", "0x10", "12abc") is returned as bad, with the index after it: it
// is never read as the digits it starts with (adversary try 38 F6: "0x10"
// read as RV 0), nor taken for a number left out (fresh user try 38 F5:
// "-5" was "without the numbers").
func rvAt(s string, i int) (num string, end int, bad string) {
	j := i
	for j < len(s) && !strings.ContainsRune(" ,;()[]\"'\t\r\n", rune(s[j])) {
		j++
	}
	tok := s[i:j]
	if strings.HasSuffix(tok, ".") {
		// A sentence's full stop after the number ("current: 100."),
		// not a part of it.
		tok = tok[:len(tok)-1]
	}
	if d, k := digitsAt(s, i); d != "" && k == i+len(tok) && (len(d) == 1 || d[0] != '0') {
		return d, j, ""
	}
	// A leading zero is no RV the server prints either (adversary try
	// 39 F10: "05" was read, "+5" was not).
	return "", j, s[i:j]
}

// rvNumbers is the numbers' part of an RV phrase as the text holds it
// (readNumbers): ": X", then the second number behind its separator.
type rvNumbers struct {
	numbered bool // ": " follows the phrase
	// first and second are the RVs as the server prints them ("" when
	// absent or no RV); badFirst and badSecond the tokens that are no RV.
	first, second, badFirst, badSecond string
	hasSecond                          bool // the second number's separator is there
	closed                             bool // and its closing mark, when its form has one
	firstEnd                           int  // the index after the first token
	end                                int  // the index after the whole numbers' part
}

// numbersForm is how a phrase's second number is written: " (Y)" of too
// old, ", current: M" of too large (its separator read in any ASCII case,
// as the phrase is).
type numbersForm struct {
	sep, close string
	names      [2]string // what each number is, for the notes
}

var (
	tooOldNumbers   = numbersForm{" (", ")", [2]string{"requested", "oldest servable"}}
	tooLargeNumbers = numbersForm{qualCurrent, "", [2]string{"requested", "current"}}
)

// readNumbers reads the numbers' part of an RV phrase that ends at i: the
// one rule for the extent and the tokens of every numbered RV phrase. The
// second number is read whatever the first one is, and the part runs to
// the end of the last token read (and its closing mark): a quote of it is
// never cut between the two numbers, and a token that is no RV never
// hides the other (adversary F6: "-5 (10)" was quoted without " (10)",
// and its 10 was dropped).
func readNumbers(s string, i int, f numbersForm) rvNumbers {
	n := rvNumbers{firstEnd: i, end: i}
	if !strings.HasPrefix(s[i:], ": ") {
		return n
	}
	n.numbered = true
	n.first, n.firstEnd, n.badFirst = rvAt(s, i+2)
	n.end = n.firstEnd
	j := n.firstEnd
	if j+len(f.sep) > len(s) || asciiLower(s[j:j+len(f.sep)]) != asciiLower(f.sep) {
		return n
	}
	n.hasSecond = true
	n.second, n.end, n.badSecond = rvAt(s, j+len(f.sep))
	n.closed = f.close == "" || strings.HasPrefix(s[n.end:], f.close)
	if n.closed {
		n.end += len(f.close)
	}
	return n
}

// malformed are the names of the numbers whose token is no RV.
func (n rvNumbers) malformed(f numbersForm) []string {
	var out []string
	if n.badFirst != "" {
		out = append(out, f.names[0])
	}
	if n.badSecond != "" {
		out = append(out, f.names[1])
	}
	return out
}

// notRVsNote says which tokens are no RV as the API server prints it, and
// which number beside them is one, and is read ("" when every token is an
// RV).
func (n rvNumbers) notRVsNote(f numbersForm) string {
	var quoted []string
	for _, b := range []string{n.badFirst, n.badSecond} {
		if b != "" {
			quoted = append(quoted, strconv.Quote(b))
		}
	}
	if len(quoted) == 0 {
		return ""
	}
	out := "the text's " + strings.Join(quoted, " and ") + " is no RV the API server prints (a decimal number of digits alone): it was reworded, or written by something else; that number is not known"
	if len(quoted) > 1 {
		out = "the text's " + strings.Join(quoted, " and ") + " are no RVs the API server prints (decimal numbers of digits alone): they were reworded, or written by something else; those numbers are not known"
	}
	switch {
	case n.badFirst != "" && n.second != "":
		out += fmt.Sprintf("; its %s is an RV the server prints, read as the %s RV", n.second, f.names[1])
	case n.badSecond != "" && n.first != "":
		out += fmt.Sprintf("; its %s is an RV the server prints, read as the %s RV", n.first, f.names[0])
	}
	return out
}

// skipSpaces skips blanks (not newlines) from i.
func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// keyIter walks the occurrences of a key in its lower-case and Title-case
// spellings, in order. Each spelling's next position is searched again only
// once the walk has passed it, so a whole walk reads s at most twice.
type keyIter struct {
	s, lower, title string
	nl, nt          int // next position of each spelling; -1 = search again
}

// titles are the Title-case spellings of the keys looked for.
var titles = map[string]string{"code": "Code", "reason": "Reason", "message": "Message", "continue": "Continue"}

func newKeyIter(s, key string) keyIter {
	title, ok := titles[key]
	if !ok {
		title = strings.ToUpper(key[:1]) + key[1:]
	}
	return keyIter{s: s, lower: key, title: title, nl: -1, nt: -1}
}

// next returns the first occurrence at or after from, and its length.
func (k *keyIter) next(from int) (int, int) {
	find := func(pos *int, w string) {
		if *pos != len(k.s) && (*pos < 0 || *pos < from) {
			if i := strings.Index(k.s[from:], w); i >= 0 {
				*pos = from + i
			} else {
				*pos = len(k.s)
			}
		}
	}
	find(&k.nl, k.lower)
	find(&k.nt, k.title)
	switch {
	case k.nl == len(k.s) && k.nt == len(k.s):
		return -1, 0
	case k.nl <= k.nt:
		return k.nl, len(k.lower)
	}
	return k.nt, len(k.title)
}

// valuesAfterKey calls fn for every occurrence of key (in lower case or
// Title case) followed by optional closing quotes, a ':' or '=', blanks and
// optional opening quotes, as in "code":410, \"code\":410, 'code': 410,
// code: 410, Code:410 or statusCode=410, with the index of the value and the
// quote that opens it ("", `"`, `\"` or `'`), until fn returns false. The
// walk is linear in len(s).
func valuesAfterKey(s, key string, fn func(i int, quote string) bool) {
	it := newKeyIter(s, key)
	for from := 0; from < len(s); {
		i, n := it.next(from)
		if i < 0 {
			return
		}
		j := i + n
		from = j
		for k := 0; k < 3 && j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '\\'); k++ {
			j++
		}
		j = skipSpaces(s, j)
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			continue
		}
		j = skipSpaces(s, j+1)
		quote := ""
		switch {
		case strings.HasPrefix(s[j:], `\"`):
			quote = `\"`
		case strings.HasPrefix(s[j:], `"`):
			quote = `"`
		case strings.HasPrefix(s[j:], `'`):
			quote = `'`
		}
		if !fn(j+len(quote), quote) {
			return
		}
	}
}

// valueAfterKey is the first value valuesAfterKey finds (-1 if none).
func valueAfterKey(s, key string) (int, string) {
	at, q := -1, ""
	valuesAfterKey(s, key, func(i int, quote string) bool {
		at, q = i, quote
		return false
	})
	return at, q
}

// knownReasons are the Status reasons that matter here.
var knownReasons = []string{"Expired", "Gone", "Timeout", "TooManyRequests", "InternalError", "ServerTimeout", "BadRequest", "Invalid", "ServiceUnavailable", "Conflict"}

// reasonIn finds a Status reason: "reason":"Expired", Reason: Gone,
// reason:Expired, Error from server (Expired), 410 Expired (codeReasonIn).
func reasonIn(s string) string {
	if i := strings.Index(s, "Error from server ("); i >= 0 {
		if r := knownReasonAt(s, i+len("Error from server (")); r != "" {
			return r
		}
	}
	reason := ""
	valuesAfterKey(s, "reason", func(i int, _ string) bool {
		reason = knownReasonAt(s, i)
		return reason == ""
	})
	if reason == "" {
		reason = codeReasonIn(s)
	}
	return reason
}

func knownReasonAt(s string, i int) string {
	j := i
	for j < len(s) && j-i < 24 && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z') {
		j++
	}
	w := s[i:j]
	for _, r := range knownReasons {
		if w == r {
			return r
		}
	}
	return ""
}

// stringField reads the string value of key ("message", "continue") in any of
// the quotings valuesAfterKey knows, decoded; ok is false when absent. With
// quotedOnly, unquoted values (Java's toString, Go's map dump, prose) are
// skipped in favor of a later quoted one. Only the first candidate value is
// read (at most fieldWindow bytes), so the cost stays bounded.
func stringField(s, key string, quotedOnly bool) (string, bool) {
	var out string
	var ok bool
	valuesAfterKey(s, key, func(i int, quote string) bool {
		if quote == "" && quotedOnly {
			return true
		}
		end := min(len(s), i+fieldWindow)
		switch quote {
		case "":
			// Unquoted: up to the end of the line.
			j := strings.IndexByte(s[i:end], '\n')
			if j < 0 {
				j = end - i
			}
			out, ok = strings.TrimSpace(s[i:i+j]), true
		case `'`:
			if j := strings.IndexByte(s[i:end], '\''); j >= 0 {
				out, ok = s[i:i+j], true
			}
		case `\"`:
			// A JSON document inside a JSON string: undo one level, then read.
			out, ok = readJSONString(unescapeOnce(s[i:end]))
		default:
			out, ok = readJSONString(s[i:end])
		}
		return false
	})
	return out, ok
}

// readJSONString reads a JSON string body up to its closing quote (s starts
// after the opening quote) and decodes its escapes.
func readJSONString(s string) (string, bool) {
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			var out string
			if err := json.Unmarshal([]byte(`"`+s[:j]+`"`), &out); err != nil {
				return s[:j], true
			}
			return out, true
		}
	}
	return "", false
}

// unescapeOnce turns \" into " and \\ into \ (one level of JSON string
// escaping), leaving other escapes as they are.
func unescapeOnce(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jsonDepthOK reports whether s, taken as JSON, nests at most maxJSONDepth
// levels (a linear pre-check before handing it to encoding/json).
func jsonDepthOK(s string) bool {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxJSONDepth {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}
