package diagnose

import "strings"

// A JSON object printed over several lines (kubectl -v=6's "server
// response object: %s[{", a Status pretty-printed by jq or kubectl -o
// json) is one error, not one per line that names a reason, a code or a
// message (fresh user try 50 F3: one TooLarge Status became 6 findings of
// 2 kinds, its "reason": "Timeout" line a request timeout). The findings
// of its lines are held until it closes: if it reads as one API Status, it
// is reported once, at its first line; any other object gives its lines'
// findings back as they were.
const (
	maxBlockLines = 256
	maxBlockBytes = 64 << 10
)

type jsonBlock struct {
	start int // its first line; 0: none open
	depth int
	text  strings.Builder
	held  []Finding
}

// open starts a block at line n if the line leaves a '{' unclosed.
func (b *jsonBlock) open(n int, line []byte) {
	depth, at, _ := walkBraces(line, 0)
	if depth == 0 {
		return
	}
	b.start, b.depth = n, depth
	b.text.Reset()
	b.text.Write(line[at:])
}

// feed adds the next line; closed: the object ended on it; over: the
// block is longer than any Status, and is given up.
func (b *jsonBlock) feed(n int, line []byte) (closed, over bool) {
	b.text.WriteByte('\n')
	depth, _, end := walkBraces(line, b.depth)
	if end >= 0 {
		b.text.Write(line[:end+1])
		return true, false
	}
	b.depth = depth
	b.text.Write(line)
	return false, n-b.start >= maxBlockLines || b.text.Len() > maxBlockBytes
}

// walkBraces follows the braces of line outside JSON strings from depth:
// the depth after it, where the last object opened at depth 0 starts, and
// where depth first falls back to 0 (-1: nowhere).
func walkBraces(line []byte, depth int) (after, lastOpen, firstClose int) {
	lastOpen, firstClose = -1, -1
	inString := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			if depth == 0 {
				lastOpen = i
			}
			depth++
		case c == '}' && depth > 0:
			depth--
			if depth == 0 && firstClose < 0 {
				firstClose = i
			}
		}
	}
	return depth, lastOpen, firstClose
}

// status is the one error the closed block reads as, if it is a Status.
func (b *jsonBlock) status(ctx Context) (Finding, bool) {
	t := b.text.String()
	st, src, ok := wholeStatus(t)
	if !ok {
		return Finding{}, false
	}
	d := FromStatus(st, ctx)
	d.Source = src
	if !d.Recognized() {
		return Finding{}, false
	}
	return Finding{Line: b.start, Text: clip(strings.Join(strings.Fields(t), " ")), Diagnosis: d, status: &st}, true
}

// reset closes the block and gives back what it held.
func (b *jsonBlock) reset() []Finding {
	held := b.held
	b.start, b.depth, b.held = 0, 0, nil
	b.text.Reset()
	return held
}
