package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Reasons a line is not read as an event (the keys of Stats.Unreadable).
const (
	ReasonNotJSON   = "not JSON"
	ReasonTruncated = "truncated JSON"
	ReasonNotEvent  = "JSON, but no audit event in it"
	ReasonTooLong   = "line longer than the limit"
)

// maxWrapDepth bounds the search for an event wrapped in other JSON: log
// shippers nest it one or two levels deep (fluentd's "log", CloudWatch's
// "message", a platform's {"properties": {"log": "..."}}).
const maxWrapDepth = 3

// Decode reads one line into e. It accepts the event as the log backend
// writes it, the same event as a JSON object or a JSON string inside
// another JSON object (a shipper's wrapper), and a line with a text prefix
// before the JSON (a container runtime's "TIME stdout F "). wrapped reports
// that the event was found inside something else. On failure, reason is
// one of the Reason constants.
func Decode(line []byte, e *Event) (wrapped bool, reason string) {
	if fastDecode(line, e) && e.isEvent() {
		e.finish()
		return false, ""
	}
	*e = Event{}
	err := json.Unmarshal(line, e)
	if err == nil {
		if e.isEvent() {
			e.finish()
			return false, ""
		}
		// Valid JSON without an event at the top: look inside.
		*e = Event{}
		if findWrapped(line, e, maxWrapDepth) {
			e.finish()
			return true, ""
		}
		return false, ReasonNotEvent
	}
	if i := bytes.IndexByte(line, '{'); i > 0 {
		// A text prefix before the JSON.
		if _, r := Decode(line[i:], e); r == "" {
			return true, ""
		}
	}
	return false, classify(line, err)
}

// isEvent tells an audit event from other JSON: every event has an
// auditID, a stage and a verb.
func (e *Event) isEvent() bool { return e.AuditID != "" && e.Stage != "" && e.Verb != "" }

// finish derives what is not in the JSON: the parsed query and the item count.
func (e *Event) finish() {
	e.Query, _ = ParseQuery(e.RequestURI)
	e.Items = -1
	if e.ResponseObject != nil && e.ResponseObject.Items != nil {
		e.Items = len(*e.ResponseObject.Items)
	}
	e.ResponseObject = nil
}

// findWrapped looks for an event in the values of a JSON object: an object
// that is an event, or a string whose text is one.
func findWrapped(obj []byte, e *Event, depth int) bool {
	if depth == 0 {
		return false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil {
		return false
	}
	for _, v := range fields {
		v = bytes.TrimSpace(v)
		if len(v) == 0 {
			continue
		}
		switch v[0] {
		case '{':
			*e = Event{}
			if json.Unmarshal(v, e) == nil && e.isEvent() {
				return true
			}
			if findWrapped(v, e, depth-1) {
				return true
			}
		case '"':
			var s string
			if json.Unmarshal(v, &s) != nil {
				continue
			}
			s = strings.TrimSpace(s)
			if !strings.HasPrefix(s, "{") {
				continue
			}
			*e = Event{}
			if json.Unmarshal([]byte(s), e) == nil && e.isEvent() {
				return true
			}
			if findWrapped([]byte(s), e, depth-1) {
				return true
			}
		}
	}
	*e = Event{}
	return false
}

// classify names why a line did not parse.
func classify(line []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		if truncated(line) {
			return ReasonTruncated
		}
		return ReasonNotJSON
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return ReasonNotEvent
	}
	return ReasonNotJSON
}

// truncated reports JSON that ends before its value does. Unmarshal says
// so only in words; a Decoder says it with io.ErrUnexpectedEOF (io.EOF for
// nothing at all, which Unmarshal calls the same end of input).
func truncated(line []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(line)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
