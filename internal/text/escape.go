package text

// ByteEscape is how the plugin shows a control byte, DEL or a byte that is
// not UTF-8 wherever it writes one as text: as Go's %q does (strconv.Quote),
// \a \b \f \n \r \t \v for those, \xNN for the others. The messages quote
// outside values with %q, so the TerminalWriter (pkg/render), Inline and
// the shell words of suggested commands (pkg/suggest: bash and zsh read
// the same escapes in $'...') all show one byte one way (adversary try 20
// #15: a BEL was \x07 in a row and \a in the breach line under it).
func ByteEscape(c byte) string {
	if l := letterEscapes[c]; l != 0 {
		return `\` + string(l)
	}
	const hex = "0123456789abcdef"
	return `\x` + string(hex[c>>4]) + string(hex[c&0xf])
}

var letterEscapes = [256]byte{'\a': 'a', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '\v': 'v'}
