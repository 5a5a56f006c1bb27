package audit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// fastDecode reads an event as the log backend writes it (one JSON object)
// without reflection: it walks the top-level keys, reads the few fields an
// Event has, and skips every other value by its brackets and strings. It is
// what makes a 1 GiB log take seconds. It returns false on anything it is
// not sure of (a type it does not expect, invalid UTF-8, a line cut short);
// Decode then reads the line with encoding/json, which decides.
func fastDecode(b []byte, e *Event) bool {
	*e = Event{}
	s := scanner{b: b}
	if !s.object(func(key []byte) bool {
		switch string(key) {
		case "level":
			return s.str(&e.Level)
		case "auditID":
			return s.str(&e.AuditID)
		case "stage":
			return s.str(&e.Stage)
		case "requestURI":
			return s.str(&e.RequestURI)
		case "verb":
			return s.str(&e.Verb)
		case "userAgent":
			return s.str(&e.UserAgent)
		case "user":
			return s.object(func(k []byte) bool {
				if string(k) == "username" {
					return s.str(&e.User.Username)
				}
				return s.skip()
			})
		case "sourceIPs":
			e.SourceIPs = e.SourceIPs[:0]
			return s.array(func() bool {
				var ip string
				if !s.str(&ip) {
					return false
				}
				e.SourceIPs = append(e.SourceIPs, ip)
				return true
			})
		case "objectRef":
			if s.null() {
				e.ObjectRef = nil
				return true
			}
			e.ObjectRef = &ObjectRef{}
			o := e.ObjectRef
			return s.object(func(k []byte) bool {
				switch string(k) {
				case "resource":
					return s.str(&o.Resource)
				case "namespace":
					return s.str(&o.Namespace)
				case "name":
					return s.str(&o.Name)
				case "apiGroup":
					return s.str(&o.APIGroup)
				case "apiVersion":
					return s.str(&o.APIVersion)
				case "subresource":
					return s.str(&o.Subresource)
				}
				return s.skip()
			})
		case "responseStatus":
			if s.null() {
				e.ResponseStatus = nil
				return true
			}
			e.ResponseStatus = &Status{}
			return s.object(func(k []byte) bool {
				if string(k) == "code" {
					return s.int(&e.ResponseStatus.Code)
				}
				return s.skip()
			})
		case "responseObject":
			if s.null() {
				e.ResponseObject = nil
				return true
			}
			e.ResponseObject = &listObject{}
			return s.object(func(k []byte) bool {
				if string(k) != "items" {
					return s.skip()
				}
				if s.null() {
					e.ResponseObject.Items = nil
					return true
				}
				n := 0
				ok := s.array(func() bool { n++; return s.skip() })
				items := make([]struct{}, n)
				e.ResponseObject.Items = &items
				return ok
			})
		case "requestReceivedTimestamp":
			return s.time(&e.RequestReceivedTimestamp)
		case "stageTimestamp":
			return s.time(&e.StageTimestamp)
		}
		return s.skip()
	}) {
		return false
	}
	s.ws()
	return s.i == len(b)
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) null() bool {
	if s.peek() == 'n' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// object calls field for each key, with the scanner at its value; field
// must consume the value.
func (s *scanner) object(field func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.i + 1
		end, escaped := s.stringEnd()
		if end < 0 || escaped {
			return false // keys of audit events are plain
		}
		key := s.b[start:end]
		s.i = end + 1
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		if !field(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// stringEnd returns the index of the closing quote of the string at s.i,
// and whether it holds an escape or a byte that is not printable ASCII; -1
// when unterminated.
func (s *scanner) stringEnd() (int, bool) { return s.stringEndCheck(true) }

// stringEndCheck is stringEnd; check false skips looking for special bytes
// (for strings that are skipped, which is most of them).
func (s *scanner) stringEndCheck(check bool) (int, bool) {
	special := !check
	j := s.i + 1
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			return -1, special
		}
		seg := s.b[j : j+k]
		if !special {
			for _, c := range seg {
				// Printable ASCII, no backslash: the common case.
				if c >= 0x80 || c < 0x20 || c == '\\' {
					special = true
					break
				}
			}
		}
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for m := j + k - 1; m > s.i && s.b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + k, special
		}
		j += k + 1
	}
}

func (s *scanner) str(dst *string) bool {
	if s.null() {
		*dst = ""
		return true
	}
	if s.peek() != '"' {
		return false
	}
	end, special := s.stringEnd()
	if end < 0 {
		return false
	}
	raw := s.b[s.i : end+1]
	s.i = end + 1
	if !special {
		*dst = string(raw[1 : len(raw)-1])
		return true
	}
	if v, ok := unescapeASCII(raw[1 : len(raw)-1]); ok {
		*dst = v
		return true
	}
	// Non-ASCII or a rare escape: encoding/json's own rules (and its
	// treatment of invalid UTF-8) for this one string.
	if !utf8.Valid(raw) {
		return false
	}
	return json.Unmarshal(raw, dst) == nil
}

// unescapeASCII decodes the escapes the log backend writes (encoding/json
// escapes &, < and > as \u0026, \u003c, \u003e) in a string of printable
// ASCII; anything else is left to encoding/json (false).
func unescapeASCII(b []byte) (string, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 0x80 || c < 0x20 {
			return "", false
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(b) {
			return "", false
		}
		i++
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'u':
			if i+4 >= len(b) {
				return "", false
			}
			v, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 16)
			if err != nil || v >= 0x80 || v < 0x20 && v != '\t' && v != '\n' && v != '\r' {
				return "", false
			}
			out = append(out, byte(v))
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

func (s *scanner) int(dst *int) bool {
	s.ws()
	start := s.i
	for s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] >= '0' && s.b[s.i] <= '9') {
		s.i++
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	*dst = n
	return err == nil
}

func (s *scanner) time(dst *time.Time) bool {
	var v string
	if !s.str(&v) {
		return false
	}
	if v == "" {
		*dst = time.Time{}
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	*dst = t
	return err == nil
}

// skip passes over any value: strings by their quotes (escapes included),
// objects and arrays by their brackets, literals to the next delimiter.
func (s *scanner) skip() bool {
	switch s.peek() {
	case '"':
		end, _ := s.stringEndCheck(false)
		if end < 0 {
			return false
		}
		s.i = end + 1
		return true
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				end, _ := s.stringEndCheck(false)
				if end < 0 {
					return false
				}
				s.i = end
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case 0:
		return false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return s.i > start
		}
		s.i++
	}
	return false
}
