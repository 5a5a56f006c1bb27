// Package watchstream opens one watch and decodes its events: the plugin's
// one event decoder, for live streams and recorded ones alike.
package watchstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Watch event types as the server sends them.
const (
	EventAdded    = "ADDED"
	EventModified = "MODIFIED"
	EventDeleted  = "DELETED"
	EventBookmark = "BOOKMARK"
	EventError    = "ERROR"
)

// InitialEventsEndAnnotation marks the bookmark that ends an initial state:
// a streaming list's, or that of a watch from RV unset or 0 where the
// server sends one (docs/watch.md has the servers measured).
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// Options are the query parameters of one watch request.
type Options struct {
	// ResourceVersion is sent only when RVSet: unset means "state, then
	// changes"; "0" means start at any; N means changes after exactly N.
	ResourceVersion string
	RVSet           bool
	// SendInitialEvents asks for a streaming list (with NotOlderThan and bookmarks).
	SendInitialEvents bool
	AllowBookmarks    bool
	// TimeoutSeconds is sent as timeoutSeconds (0 = server default).
	TimeoutSeconds int64
	// Budget (nil = unbounded) is not a query parameter: Open takes one
	// token from it before it sends the watch (the rule of apiclient.Budget).
	Budget *apiclient.Budget
}

// Query renders the options as URL parameters.
func (o Options) Query(t apiclient.Target) url.Values {
	q := url.Values{}
	q.Set("watch", "1")
	if o.RVSet {
		q.Set("resourceVersion", o.ResourceVersion)
	}
	if o.SendInitialEvents {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
		q.Set("allowWatchBookmarks", "true")
		if !o.RVSet {
			// The server requires an RV with sendInitialEvents; "" is rejected
			// as unset, so ask for "state as of now or newer".
			q.Set("resourceVersion", "")
		}
	} else if o.AllowBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	t.AddSelectors(q)
	return q
}

// Event is one decoded watch event.
type Event struct {
	Type   string
	Object apiclient.ItemMeta
	// Status is an ERROR event's, its code as sent: CodeSent is false
	// where the Status had no "code" or "code": null, never a code 0.
	Status   *diagnose.SentStatus
	Received time.Time
}

// IsInitialEventsEnd reports the bookmark that ends an initial state,
// whatever the request that asked for the state.
func (e Event) IsInitialEventsEnd() bool {
	return e.Type == EventBookmark && e.Object.Annotations[InitialEventsEndAnnotation] == "true"
}

// Stream reads the events of one open watch.
type Stream struct {
	URL    string
	body   io.ReadCloser
	frames apiclient.FrameReader
	dec    *json.Decoder
	cancel context.CancelFunc
}

// eventFrame is one event as the server frames it. The object is decoded in
// the same pass as the frame (one scan of the bytes, not two: decoding is
// most of the cost of a fast stream): metadata for object events, and the
// fields of a Status, kept raw because an ordinary object may have fields
// of the same names with other types.
type eventFrame struct {
	Type   string     `json:"type"`
	Object wireObject `json:"object"`
}

type wireObject struct {
	Metadata apiclient.ItemMeta `json:"metadata"`
	Kind     string             `json:"kind"`
	Status   json.RawMessage    `json:"status"`
	Message  json.RawMessage    `json:"message"`
	Reason   json.RawMessage    `json:"reason"`
	Details  json.RawMessage    `json:"details"`
	Code     json.RawMessage    `json:"code"`
}

// status rebuilds the Status of an ERROR event. An object that is no
// Status (null, another kind, fields of the wrong type) is an
// *apiclient.UnreadableAnswerError: no API server sends one. Its code is
// kept as sent, whatever it is (200, -1, 999): dropped, a reason Expired
// read as a 410 (adversary: "410 Gone" of a code 999); the one rule of a
// code that is no error's is diagnose.ClassifySent (exit 1, "other").
// A code absent or null is no code 0: CodeSent says which it was.
func (w *wireObject) status() (*diagnose.SentStatus, error) {
	st := &diagnose.SentStatus{}
	st.Kind = w.Kind
	empty := true
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  any
	}{{"status", w.Status, &st.Status.Status}, {"message", w.Message, &st.Message}, {"reason", w.Reason, &st.Reason}, {"details", w.Details, &st.Details}, {"code", w.Code, &st.Code}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		empty = false
		if err := json.Unmarshal(f.raw, f.dst); err != nil {
			// Each field is decoded alone: its name is said here, the
			// decoder's words say the rest ("it is the JSON number
			// 99999999999, where the API has a 32-bit integer").
			return nil, apiclient.Undecodable(fmt.Sprintf("an ERROR event whose Status's %q does not decode", f.name), err)
		}
		if f.name == "code" {
			st.CodeSent = true
		}
	}
	switch {
	case st.Kind != "" && st.Kind != "Status":
		return nil, &apiclient.UnreadableAnswerError{What: "an ERROR event whose object is a " + text.Shorten(st.Kind, 64) + ", not a Status"}
	case st.Kind == "" && empty:
		return nil, &apiclient.UnreadableAnswerError{What: "an ERROR event without a Status"}
	}
	return st, nil
}

// Open opens a watch on the collection. An error status returned instead
// of a stream (for example 410 or 504) comes back as an API error.
func Open(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) (*Stream, error) {
	if err := o.Budget.Take(ctx); err != nil {
		return nil, err
	}
	q := o.Query(t)
	ctx, cancel := context.WithCancel(ctx)
	body, err := c.Get(ctx, t.CollectionPath(), q, apiclient.AcceptMetadata)
	if err != nil {
		cancel()
		return nil, err
	}
	return newStream(apiclient.URL(t.CollectionPath(), q), body, cancel), nil
}

// newStream decodes body frame by frame, each within the frame cap
// (apiclient.LimitWatchFrame, client-go's): an event that never ends, or
// one of more than 16 MiB, fails with a *apiclient.BodyTooLargeError
// instead of growing the decoder's buffer without end.
func newStream(url string, body io.ReadCloser, cancel context.CancelFunc) *Stream {
	frames := apiclient.Frames(body, url)
	return &Stream{URL: url, body: body, frames: frames, dec: json.NewDecoder(frames), cancel: cancel}
}

// Next returns the next event. io.EOF means the server ended the stream
// cleanly between two events; a stream cut inside an event is
// io.ErrUnexpectedEOF, a broken stream and not an end.
func (s *Stream) Next() (Event, error) {
	var w eventFrame
	s.frames.StartFrame(s.dec.InputOffset())
	if err := s.dec.Decode(&w); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && !apiclient.IsBodyCut(err) {
			// The body ended cleanly inside an event: a cut, said as
			// every cut (the bytes: what the decoder read, decoded or
			// still buffered).
			rest, _ := io.Copy(io.Discard, s.dec.Buffered())
			return Event{}, apiclient.WatchCutMidEvent(s.URL, s.dec.InputOffset()+rest, err)
		}
		// JSON that is no event is said in the API's words; a read that
		// failed (a cut, a cap, a deadline) keeps its own class.
		return Event{}, apiclient.Undecodable("an event that does not decode", err)
	}
	e := Event{Type: w.Type, Received: time.Now()}
	switch w.Type {
	case EventAdded, EventModified, EventDeleted, EventBookmark:
		e.Object = w.Object.Metadata
	case EventError:
		st, err := w.Object.status()
		if err != nil {
			return e, err
		}
		e.Status = st
	default:
		return e, &apiclient.UnreadableAnswerError{What: fmt.Sprintf("an event of unknown type %q", text.Shorten(w.Type, 64))}
	}
	return e, nil
}

// Close ends the watch.
func (s *Stream) Close() {
	s.cancel()
	s.body.Close()
}
