package audit

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// fastDecode reads an event as the log backend writes it (one JSON object)
// without reflection: it walks the top-level keys, reads the few fields an
// Event has, and passes over every other value, validating it. It is what
// makes a 1 GiB log take seconds. It returns false on anything it is not
// sure of (a type it does not expect, invalid UTF-8 in a field it keeps, a
// key repeated or spelled in another case, which encoding/json folds, a
// line cut short); Decode then reads the line with encoding/json, which
// decides. When it returns true, encoding/json accepts the line and reads
// the same fields (FuzzFastDecode checks both).
func fastDecode(b []byte, e *Event) bool {
	s := scanner{b: b, mark: -1}
	return s.event(e)
}

// fastDecodeFrom is fastDecode on a line whose start is head and whose
// rest is read from r as the walk goes (one too long to hold: see
// longLine); it keeps no more than the fields it reads (maxKept each).
func fastDecodeFrom(r io.Reader, head []byte, e *Event) bool {
	s := scanner{b: head, r: r, mark: -1}
	return s.event(e)
}

// Top-level keys an Event reads, as bits for the check of repeats.
var eventKeys = []string{"level", "auditID", "stage", "requestURI", "verb", "user", "sourceIPs", "userAgent",
	"objectRef", "responseStatus", "responseObject", "requestReceivedTimestamp", "stageTimestamp"}

var (
	userKeys      = []string{"username"}
	objectRefKeys = []string{"resource", "namespace", "name", "apiGroup", "apiVersion", "subresource"}
	statusKeys    = []string{"code"}
	responseKeys  = []string{"items", "metadata"}
	metadataKeys  = []string{"resourceVersion"}
)

// fields dispatches the keys of one object to read: the index of an exact
// match, -1 for a key to pass over; a key that encoding/json would fold onto
// one of keys (another case) or a repeated one gives up.
type fields struct {
	keys []string
	seen uint32
}

func (f *fields) index(key []byte) (int, bool) {
	for i, k := range f.keys {
		if len(k) != len(key) {
			continue
		}
		if string(key) == k {
			if f.seen&(1<<i) != 0 {
				return 0, false
			}
			f.seen |= 1 << i
			return i, true
		}
		if strings.EqualFold(string(key), k) {
			return 0, false
		}
	}
	return -1, true
}

func (s *scanner) event(e *Event) bool {
	*e = Event{}
	f := fields{keys: eventKeys}
	ok := s.object(func(key []byte) bool {
		i, ok := f.index(key)
		if !ok {
			return false
		}
		switch i {
		case 0:
			return s.str(&e.Level)
		case 1:
			return s.str(&e.AuditID)
		case 2:
			return s.str(&e.Stage)
		case 3:
			return s.str(&e.RequestURI)
		case 4:
			return s.str(&e.Verb)
		case 5:
			return s.user(&e.User)
		case 6:
			return s.strings(&e.SourceIPs)
		case 7:
			return s.str(&e.UserAgent)
		case 8:
			return s.objectRef(&e.ObjectRef)
		case 9:
			return s.status(&e.ResponseStatus)
		case 10:
			return s.responseObject(&e.ResponseObject)
		case 11:
			return s.time(&e.RequestReceivedTimestamp)
		case 12:
			return s.time(&e.StageTimestamp)
		}
		return s.skip()
	})
	return ok && s.end()
}

// sub walks an object of known keys; null leaves it as it is (a struct)
// or sets it nil (a pointer: isNil), as encoding/json does.
func (s *scanner) sub(keys []string, isNil func(), field func(i int) bool) bool {
	if s.null() {
		if isNil != nil {
			isNil()
		}
		return true
	}
	f := fields{keys: keys}
	return s.object(func(key []byte) bool {
		i, ok := f.index(key)
		if !ok {
			return false
		}
		if i < 0 {
			return s.skip()
		}
		return field(i)
	})
}

func (s *scanner) user(u *User) bool {
	return s.sub(userKeys, nil, func(int) bool { return s.str(&u.Username) })
}

func (s *scanner) objectRef(dst **ObjectRef) bool {
	o := &ObjectRef{}
	ok := s.sub(objectRefKeys, func() { o = nil }, func(i int) bool {
		switch i {
		case 0:
			return s.str(&o.Resource)
		case 1:
			return s.str(&o.Namespace)
		case 2:
			return s.str(&o.Name)
		case 3:
			return s.str(&o.APIGroup)
		case 4:
			return s.str(&o.APIVersion)
		}
		return s.str(&o.Subresource)
	})
	*dst = o
	return ok
}

func (s *scanner) status(dst **Status) bool {
	st := &Status{}
	ok := s.sub(statusKeys, func() { st = nil }, func(int) bool { return s.int(&st.Code) })
	*dst = st
	return ok
}

// responseObject counts the items of a list (each an object or null, as
// decoding into struct{} allows) and reads its metadata.resourceVersion.
func (s *scanner) responseObject(dst **listObject) bool {
	lo := &listObject{}
	ok := s.sub(responseKeys, func() { lo = nil }, func(i int) bool {
		if i == 1 {
			md := &listMeta{}
			ok := s.sub(metadataKeys, func() { md = nil }, func(int) bool { return s.str(&md.ResourceVersion) })
			lo.Metadata = md
			return ok
		}
		if s.null() {
			lo.Items = nil
			return true
		}
		n := 0
		ok := s.array(func() bool {
			if c := s.peek(); c != '{' && c != 'n' {
				return false
			}
			n++
			return s.skip()
		})
		items := make([]struct{}, n)
		lo.Items = &items
		return ok
	})
	*dst = lo
	return ok
}

// strings reads an array of strings (null elements are "", null sets nil).
func (s *scanner) strings(dst *[]string) bool {
	if s.null() {
		*dst = nil
		return true
	}
	out := []string{}
	ok := s.array(func() bool {
		var v string
		if !s.str(&v) {
			return false
		}
		out = append(out, v)
		return true
	})
	*dst = out
	return ok
}

// str reads a string; null leaves dst as it is, as encoding/json does.
func (s *scanner) str(dst *string) bool {
	switch s.peek() {
	case 'n':
		return s.literal("null")
	case '"':
	default:
		return false
	}
	s.mark = s.i
	special, ok := s.stringBody()
	raw := s.b[s.mark:s.i]
	s.mark = -1
	if !ok {
		return false
	}
	if !special {
		*dst = string(raw[1 : len(raw)-1])
		return true
	}
	if v, ok := unescapeASCII(raw[1 : len(raw)-1]); ok {
		*dst = v
		return true
	}
	// Non-ASCII or a rare escape: encoding/json's own rules for this one
	// string; invalid UTF-8, which it replaces, is left to it whole.
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
			if err != nil || v >= 0x80 {
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

// int reads a number into an int as encoding/json does (an integer that
// fits, or a type error); null leaves dst as it is.
func (s *scanner) int(dst *int) bool {
	if s.null() {
		return true
	}
	s.ws()
	s.mark = s.i
	ok := s.number()
	raw := s.b[s.mark:s.i]
	s.mark = -1
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return false
	}
	*dst = int(n)
	return true
}

// time reads a timestamp with time.Time's own UnmarshalJSON (RFC 3339,
// strictly), as encoding/json does; null leaves dst as it is.
func (s *scanner) time(dst *time.Time) bool {
	switch s.peek() {
	case 'n':
		return s.literal("null")
	case '"':
	default:
		return false
	}
	s.mark = s.i
	_, ok := s.stringBody()
	raw := s.b[s.mark:s.i]
	s.mark = -1
	return ok && dst.UnmarshalJSON(raw) == nil
}
