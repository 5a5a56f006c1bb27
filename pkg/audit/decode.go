package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"time"
)

// Reasons a line is not read as an event (the keys of Stats.Unreadable).
const (
	ReasonNotJSON   = "not JSON"
	ReasonTruncated = "truncated JSON"
	ReasonNotEvent  = "JSON, but no audit event in it"
	ReasonTooLong   = "line longer than the limit"
	// ReasonBadTime: an event whose stageTimestamp is missing or not a
	// time a log can hold (before 1970, after 2262), or one of whose
	// times is not RFC 3339: it cannot be placed in time, so it is not
	// counted.
	ReasonBadTime = "audit event without a valid time"
	// ReasonLongNotPlain: a line too long to hold whole (see
	// Options.MaxLineBytes) is read as the log backend writes events, in
	// one pass; one in another form (wrapped, a key in another case) is
	// not read.
	ReasonLongNotPlain = "long line not in the log backend's form"
)

// The times a log can hold: an event outside them is unreadable
// (ReasonBadTime); a requestReceivedTimestamp outside them, or after the
// event's stageTimestamp, is unknown (zero). From 1970 to the last time
// whose nanoseconds since then fit an int64 (2262-04-11), so that the
// span between any two is a time.Duration: a log from 1970 to 9999 had a
// span clamped to 292 years and a chart of 2236962-hour bars (adversary
// try 19).
var (
	minTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

func validTime(t time.Time) bool { return !t.Before(minTime) && !t.After(maxTime) }

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
		return false, e.finish()
	}
	*e = Event{}
	err := json.Unmarshal(line, e)
	if err == nil {
		if e.isEvent() {
			return false, e.finish()
		}
		// Valid JSON without an event at the top: look inside.
		*e = Event{}
		if findWrapped(line, e, maxWrapDepth) {
			return true, e.finish()
		}
		return false, ReasonNotEvent
	}
	if i := bytes.IndexByte(line, '{'); i > 0 {
		// A text prefix before the JSON.
		switch _, r := Decode(line[i:], e); r {
		case "", ReasonBadTime:
			return true, r
		}
	}
	return false, classify(line, err)
}

// isEvent tells an audit event from other JSON: every event has an
// auditID, a stage and a verb.
func (e *Event) isEvent() bool { return e.AuditID != "" && e.Stage != "" && e.Verb != "" }

// finish derives what is not in the JSON (the parsed query, the item count,
// the response's RV) and checks the times: "" or ReasonBadTime.
func (e *Event) finish() string {
	e.Query, _ = ParseQuery(e.RequestURI)
	e.Items = -1
	if o := e.ResponseObject; o != nil {
		if o.Items != nil {
			e.Items = len(*o.Items)
		}
		if o.Metadata != nil {
			e.ResponseRV = o.Metadata.ResourceVersion
		}
	}
	e.ResponseObject = nil
	e.bound()
	if !validTime(e.StageTimestamp) {
		return ReasonBadTime
	}
	if r := e.RequestReceivedTimestamp; !validTime(r) || r.After(e.StageTimestamp) {
		e.RequestReceivedTimestamp = time.Time{}
	}
	return ""
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
	// The error of an Unmarshaler: the only ones an Event has are its
	// times (time.Time's strict RFC 3339).
	return ReasonBadTime
}

// truncated reports JSON that ends before its value does. Unmarshal says
// so only in words; a Decoder says it with io.ErrUnexpectedEOF (io.EOF for
// nothing at all, which Unmarshal calls the same end of input).
func truncated(line []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(line)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
