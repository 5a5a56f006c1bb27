package suggest

import (
	"strings"
	"unicode/utf8"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Quote makes w one shell word that the shell gives back unchanged: as it
// is when it holds only characters no shell treats specially, else in
// single quotes (POSIX sh, bash, zsh: nothing inside is expanded; a quote
// inside closes them, is escaped, and opens them again). A word with a
// control character (a newline, ESC) is written in ANSI-C quotes ($'...',
// bash and zsh), so that the line stays one line and shows no raw control
// byte.
func Quote(w string) string {
	if w == "" {
		return "''"
	}
	if plain(w) {
		return w
	}
	if !hasControl(w) {
		return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	// The plugin's one form of a byte (text.ByteEscape), which $'...'
	// reads back: \a, \r, \x1b as the output shows them.
	hex := func(c byte) { b.WriteString(text.ByteEscape(c)) }
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRuneInString(w[i:])
		raw := w[i]
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			hex(raw) // a byte that is not UTF-8, as it is
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			hex(byte(r))
		case r >= 0x80 && r < 0xa0:
			// A C1 control: its UTF-8 bytes (\u depends on the locale).
			for _, c := range []byte(string(r)) {
				hex(c)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// plain: only characters no shell expands or splits on. '=' and ':' are
// plain in an argument (not at the start of a command word), and ',' and
// '@' too; '~' is not (a leading ~ expands), nor '!' (bash history).
func plain(w string) bool {
	if w[0] == '=' {
		return false // zsh expands a leading = to a command's path
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-_./=:,@%+", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func hasControl(w string) bool {
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRuneInString(w[i:])
		i += n
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r == utf8.RuneError && n == 1) {
			return true
		}
	}
	return false
}
