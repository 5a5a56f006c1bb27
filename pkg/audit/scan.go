package audit

import (
	"errors"
	"io"
)

// scanner walks JSON without reflection, validating every byte as
// encoding/json's own scanner does (RFC 8259: strings without raw control
// characters and with valid escapes, numbers by their grammar, literals,
// brackets that match), so that what it accepts encoding/json accepts too.
//
// It reads a window: the whole line (r nil), or, for a line too long to hold
// (see stream.feed), the part read so far, refilled from r as the walk goes
// on. Each refill drops the bytes before the cursor (or before mark, the
// start of a token being kept), so a line of any length is walked in
// bounded memory. Every position is relative to the window: code keeps
// none across a call that may read (has, ws, peek and what calls them),
// except mark.
type scanner struct {
	b    []byte
	i    int
	mark int       // start of a kept token, -1 when none
	r    io.Reader // nil: b is the whole input
	rerr error     // r's error, io.EOF at the end of the line
	// depth is the nesting of the value at the cursor.
	depth int
	// key is the last object key read (keys are copied: the window moves).
	key    [maxKeyLen]byte
	keyLen int
}

const (
	// maxDepth stays below encoding/json's limit (10000): deeper input
	// is left to encoding/json, which decides.
	maxDepth = 9000
	// maxKeyLen: no key this package reads is longer; a longer one is
	// skipped without being compared.
	maxKeyLen = 32
	// maxKept is the longest token kept while streaming (a string field,
	// a number): a request URI or a user agent, never a megabyte.
	maxKept = 1 << 20
	// windowBytes is the streaming window's initial size.
	windowBytes = 64 << 10
)

var errKeptTooLong = errors.New("a field longer than the limit")

// more reads more of the line into the window; false at its end.
func (s *scanner) more() bool {
	if s.r == nil || s.rerr != nil {
		return false
	}
	drop := s.i
	if s.mark >= 0 && s.mark < drop {
		drop = s.mark
	}
	if drop > 0 {
		n := copy(s.b, s.b[drop:])
		s.b = s.b[:n]
		s.i -= drop
		if s.mark >= 0 {
			s.mark -= drop
		}
	}
	if len(s.b) > maxKept {
		s.rerr = errKeptTooLong
		return false
	}
	if cap(s.b)-len(s.b) < windowBytes/4 {
		nb := make([]byte, len(s.b), 2*cap(s.b)+windowBytes)
		copy(nb, s.b)
		s.b = nb
	}
	for {
		n, err := s.r.Read(s.b[len(s.b):cap(s.b)])
		s.b = s.b[:len(s.b)+n]
		if err != nil {
			s.rerr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// has reports whether a byte is at the cursor, reading more if needed.
func (s *scanner) has() bool { return s.i < len(s.b) || s.more() }

func (s *scanner) ws() {
	for s.has() {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end (a NUL is never
// valid JSON outside a string, so 0 cannot be mistaken for input).
func (s *scanner) peek() byte {
	s.ws()
	if s.has() {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) literal(lit string) bool {
	for k := 0; k < len(lit); k++ {
		if !s.has() || s.b[s.i] != lit[k] {
			return false
		}
		s.i++
	}
	return true
}

// null consumes a null; false, consuming nothing, when the value is not
// one (so that the caller's own reading refuses what follows an "n").
func (s *scanner) null() bool {
	if s.peek() != 'n' {
		return false
	}
	for len(s.b)-s.i < 4 {
		if !s.more() {
			return false
		}
	}
	if string(s.b[s.i:s.i+4]) != "null" {
		return false
	}
	s.i += 4
	return true
}

// Byte classes inside a JSON string.
const (
	chPlain   = iota // printable ASCII other than " and \
	chQuote          // "
	chEscape         // \
	chHigh           // a byte of a UTF-8 sequence (or not: encoding/json takes any)
	chControl        // below 0x20: never valid raw
)

var strClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c < 0x20:
			t[c] = chControl
		case c == '"':
			t[c] = chQuote
		case c == '\\':
			t[c] = chEscape
		case c >= 0x80:
			t[c] = chHigh
		default:
			t[c] = chPlain
		}
	}
	return
}()

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// stringBody passes over the string at the cursor (which is at its opening
// quote), validating it; special reports an escape or a byte above ASCII.
func (s *scanner) stringBody() (special, ok bool) {
	s.i++
	for {
		b := s.b[s.i:]
		k := 0
		for k < len(b) && strClass[b[k]] == chPlain {
			k++
		}
		s.i += k
		if !s.has() {
			return special, false
		}
		switch strClass[s.b[s.i]] {
		case chPlain:
		case chQuote:
			s.i++
			return special, true
		case chHigh:
			special = true
			s.i++
		case chEscape:
			special = true
			s.i++
			if !s.has() {
				return special, false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for h := 0; h < 4; h++ {
					if !s.has() || !isHex(s.b[s.i]) {
						return special, false
					}
					s.i++
				}
			default:
				return special, false
			}
		default:
			return special, false
		}
	}
}

func (s *scanner) digits() int {
	n := 0
	for s.has() && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// number passes over a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.has() && s.b[s.i] == '-' {
		s.i++
	}
	if !s.has() {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.has() && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.has() && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.has() && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

// skip passes over any JSON value, validating it.
func (s *scanner) skip() bool {
	switch c := s.peek(); c {
	case '"':
		_, ok := s.stringBody()
		return ok
	case '{':
		return s.object(nil)
	case '[':
		return s.array(s.skip)
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return s.number()
		}
	}
	return false
}

// object walks the object at the cursor. field is called for each key
// (in s.key; a key with an escape or a byte above ASCII, which this
// package never reads, makes the walk give up: encoding/json unescapes and
// folds keys) with the cursor at the value, and must consume the value;
// nil skips every value.
func (s *scanner) object(field func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		return false
	}
	if s.peek() == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.i
		if field != nil {
			s.mark = start
		}
		special, ok := s.stringBody()
		if !ok {
			s.mark = -1
			return false
		}
		if field != nil {
			// The key without its quotes, copied (the window moves).
			key := s.b[s.mark+1 : s.i-1]
			s.mark = -1
			if special {
				return false
			}
			if len(key) > maxKeyLen {
				key = []byte{0} // longer than any field's: "\x00" matches none
			}
			s.keyLen = copy(s.key[:], key)
		}
		if s.peek() != ':' {
			return false
		}
		s.i++
		if field == nil {
			if !s.skip() {
				return false
			}
		} else if s.peek(); !field(s.key[:s.keyLen]) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// array walks the array at the cursor; elem must consume one element.
func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		return false
	}
	if s.peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.peek(); !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// end reports that nothing but white space follows.
func (s *scanner) end() bool {
	s.ws()
	return !s.has()
}
