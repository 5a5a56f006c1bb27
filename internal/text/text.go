// Package text holds the small string helpers every layer of the plugin
// uses, so that each is written once.
package text

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// OneLine folds any run of white space, newlines included, into one space:
// every error and note the plugin prints is one line.
func OneLine(s string) string { return strings.Join(Fields(s), " ") }

// Fields splits s at runs of ASCII white space only: a Unicode space that
// is a control (U+0085 NEL) or a format character stays in its word, for
// the TerminalWriter to show escaped (adversary try 51 F11: a NEL in a
// host was printed as a plain space, misquoting the value).
func Fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	})
}

// Inline is s for a place of the human output that is one line (a table
// cell, a key's value, an -o name line, an error line): the bytes that
// would start a new line or move the cursor (\n, \r, \t, \v, \f), and the
// invisible format characters that reorder or hide text (bidi overrides
// and isolates: U+202E shows "gpj.exe" as "exe.jpg"; zero-width
// characters; the line and paragraph separators; the BOM) are shown as
// their Go escapes, so that a value from outside (an object name, a label
// value, an audit-log field) cannot forge a line or disguise itself. The
// plugin's own words hold none of them. Every other control is the
// TerminalWriter's; -o json and -o yaml keep the values as they are.
func Inline(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\v\f") && !strings.ContainsFunc(s, hiddenFormat) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n', r == '\r', r == '\t', r == '\v', r == '\f':
			b.WriteString(ByteEscape(byte(r)))
		case hiddenFormat(r) && r > 0xffff:
			// As the TerminalWriter shows it: a UTF-16 pair.
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case hiddenFormat(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hiddenFormat: a character that reorders, hides or smuggles the text
// around it: Unicode's format characters (Cf) and the line and paragraph
// separators (the TerminalWriter escapes the same set).
func hiddenFormat(r rune) bool { return r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) }

// Thousands writes 1204 as 1,204.
func Thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// MaxEcho is how many bytes of a value the user gave are echoed in a
// message: enough to recognize it, never a 100 KB line.
const MaxEcho = 128

// Echo bounds a user's value before it is quoted in a message: a longer
// value keeps its first MaxEcho bytes (cut at a rune boundary) and says how
// long it was.
func Echo(s string) string {
	if len(s) <= MaxEcho || isEcho(s) {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…[%d bytes]", s[:cut], len(s))
}

// isEcho reports whether s is already Echo's shortened form (its head, then
// "…[N bytes]"): Echo is idempotent, so a value echoed twice on its way to
// an error line (a caller and usageErrorf both echo) keeps its real length.
func isEcho(s string) bool {
	i := strings.LastIndex(s, "…[")
	if i < 0 || i > MaxEcho || !strings.HasSuffix(s, " bytes]") {
		return false
	}
	n := strings.TrimSuffix(s[i+len("…["):], " bytes]")
	return n != "" && len(n) <= 20 && strings.Trim(n, "0123456789") == ""
}

// MaxLine bounds one printed error line. A line longer than this keeps its
// head and its tail (where the fix is) and says how much was left out.
const MaxLine = 4096

// Shorten bounds s to about max bytes by cutting its middle.
func Shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	keep := (max - 40) / 2
	head, tail := keep, len(s)-keep
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s …[%d bytes left out]… %s", s[:head], tail-head, s[tail:])
}

// RedactURL is a server address as it may be printed: a password in it is
// replaced (https://admin:xxxxx@host), and so is every query value (a
// redirect's Location may carry a token there). A bare host:port, which a
// kubeconfig allows, is handled alike. Every URL of the kubeconfig or of an
// answer goes through here before it is printed.
func RedactURL(s string) string {
	if u, ok := parsedWithHost(s); ok {
		return redact(u)
	}
	if !hasScheme(s) {
		// host:port, which net/url reads as a scheme and an opaque part.
		if u, ok := parsedWithHost("https://" + s); ok {
			return strings.TrimPrefix(redact(u), "https://")
		}
	}
	return redactRaw(s)
}

// parsedWithHost is s as net/url reads it, when that has a host and every
// @ of s ended its user: an @ after a # or ? of a password
// (https://admin:1234#@host) leaves the password as the host and port.
func parsedWithHost(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, false
	}
	if strings.Contains(s, "@") && u.User == nil {
		return nil, false
	}
	return u, true
}

// hasScheme: s starts with a scheme and "://" (RFC 3986: a letter, then
// letters, digits, +, - or .), before any other delimiter. A "://" later
// on (in a query: ?next=https://x) is no scheme.
func hasScheme(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for j, r := range s[:i] {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case j > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// redactRaw is RedactURL for what net/url does not read as a URL with a
// host and a user in their places (a bad escape, an opaque form, an @
// after a # or ?): the parts are found by their delimiters alone.
// Everything before the last @ is replaced, wherever the @ is (a password
// may hold /, ? and #), and so are every query value and the fragment.
func redactRaw(s string) string {
	scheme, rest := "", s
	if hasScheme(s) {
		i := strings.Index(s, "://")
		scheme, rest = s[:i+3], s[i+3:]
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = "xxxxx" + rest[at:]
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q+1] + redactQuery(rest[q+1:])
	}
	return scheme + rest
}

// redactQuery replaces every value of a raw query, in the order given; a
// part without "=" may be a token on its own, and is replaced whole.
func redactQuery(raw string) string {
	pairs := strings.Split(raw, "&")
	for i, p := range pairs {
		if p == "" {
			continue
		}
		if k, _, ok := strings.Cut(p, "="); ok {
			pairs[i] = k + "=xxxxx"
		} else {
			pairs[i] = "xxxxx"
		}
	}
	return strings.Join(pairs, "&")
}

func redact(u *url.URL) string {
	c := *u
	c.RawQuery = redactQuery(c.RawQuery)
	c.Fragment, c.RawFragment = "", ""
	if c.User != nil {
		if _, ok := c.User.Password(); !ok {
			// A user alone may be a token (https://TOKEN@host).
			c.User = url.User("xxxxx")
		}
	}
	return c.Redacted()
}

// Count is n and its noun, singular for 1 and plural otherwise, with
// thousands separators: "1 line", "0 lines", "1,204 lines". Every count a
// sentence prints goes through here, so that none says "1 lines". The
// plural is Plural's (watch, watches; retry, retries).
func Count[N int | int64 | uint64](n N, noun string) string {
	num := ""
	if n < 0 {
		num = "-" + Thousands(uint64(-int64(n)))
	} else {
		num = Thousands(uint64(n))
	}
	return num + " " + Noun(n, noun)
}

// Noun is noun for a count of n: singular for 1, plural otherwise ("1 more
// client", "2 more clients").
func Noun[N int | int64 | uint64](n N, noun string) string {
	if n == 1 {
		return noun
	}
	return Plural(noun)
}

// Plural is the plural of a countable noun of the plugin's texts: a noun
// ending in a consonant and y takes "ies" (retry, retries; entry, family),
// one ending in s, x, ch or sh takes "es" (status, statuses; class), the
// rest "s" (key, keys).
func Plural(noun string) string {
	if n := len(noun); n >= 2 && noun[n-1] == 'y' && !strings.ContainsRune("aeiouAEIOU", rune(noun[n-2])) {
		return noun[:n-1] + "ies"
	}
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return noun + "es"
		}
	}
	return noun + "s"
}
