package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
)

// Watch event types as the server sends them.
const (
	EventAdded    = "ADDED"
	EventModified = "MODIFIED"
	EventDeleted  = "DELETED"
	EventBookmark = "BOOKMARK"
	EventError    = "ERROR"
)

// InitialEventsEndAnnotation marks the bookmark that ends a streaming list.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// WatchOptions are the query parameters of one watch request.
type WatchOptions struct {
	// ResourceVersion is sent only when RVSet: unset means "state, then
	// changes"; "0" means start at any; N means changes after exactly N.
	ResourceVersion string
	RVSet           bool
	// SendInitialEvents asks for a streaming list (with NotOlderThan and bookmarks).
	SendInitialEvents bool
	AllowBookmarks    bool
	// TimeoutSeconds is sent as timeoutSeconds (0 = server default).
	TimeoutSeconds int64
}

// Query renders the options as URL parameters.
func (o WatchOptions) Query(t Target) url.Values {
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
	t.addSelectors(q)
	return q
}

// Event is one decoded watch event.
type Event struct {
	Type     string
	Object   ItemMeta
	Status   *metav1.Status // for ERROR events
	Raw      json.RawMessage
	Received time.Time
}

// IsInitialEventsEnd reports the bookmark that ends a streaming list.
func (e Event) IsInitialEventsEnd() bool {
	return e.Type == EventBookmark && e.Object.Annotations[InitialEventsEndAnnotation] == "true"
}

// WatchStream reads the events of one open watch.
type WatchStream struct {
	URL    string
	body   io.ReadCloser
	cr     *countio.Reader
	dec    *json.Decoder
	cancel context.CancelFunc
}

// eventWire is one event with its object kept raw (DecodeEvent decodes it).
type eventWire struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
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
	Metadata ItemMeta        `json:"metadata"`
	Kind     string          `json:"kind"`
	Status   json.RawMessage `json:"status"`
	Message  json.RawMessage `json:"message"`
	Reason   json.RawMessage `json:"reason"`
	Details  json.RawMessage `json:"details"`
	Code     json.RawMessage `json:"code"`
}

// status rebuilds the Status of an ERROR event.
func (w *wireObject) status() (*metav1.Status, error) {
	st := &metav1.Status{}
	st.Kind = w.Kind
	for _, f := range []struct {
		raw json.RawMessage
		dst any
	}{{w.Status, &st.Status}, {w.Message, &st.Message}, {w.Reason, &st.Reason}, {w.Details, &st.Details}, {w.Code, &st.Code}} {
		if len(f.raw) == 0 {
			continue
		}
		if err := json.Unmarshal(f.raw, f.dst); err != nil {
			return nil, fmt.Errorf("cannot decode the ERROR event's Status: %w", err)
		}
	}
	if st.Kind != "" && st.Kind != "Status" {
		return nil, fmt.Errorf("cannot decode the ERROR event's Status: its object is a %s", st.Kind)
	}
	return st, nil
}

// OpenWatch opens a watch on the collection. An error status returned
// instead of a stream (for example 410 or 504) comes back as an API error.
func (c *Client) OpenWatch(ctx context.Context, t Target, o WatchOptions) (*WatchStream, error) {
	q := o.Query(t)
	ctx, cancel := context.WithCancel(ctx)
	req := getCollection(c.stream, t, q, acceptMetadata)
	body, err := req.Stream(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	cr := &countio.Reader{R: body}
	return &WatchStream{URL: URL(t.CollectionPath(), q), body: body, cr: cr, dec: json.NewDecoder(cr), cancel: cancel}, nil
}

// Next returns the next event; io.EOF when the server ended the stream.
// Events read from a stream do not keep their raw bytes (Raw is nil).
func (s *WatchStream) Next() (Event, error) {
	var w eventFrame
	if err := s.dec.Decode(&w); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Event{}, io.EOF
		}
		return Event{}, err
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
		return e, fmt.Errorf("unknown watch event type %q", w.Type)
	}
	return e, nil
}

// Bytes is how much of the stream has been read.
func (s *WatchStream) Bytes() int64 { return s.cr.N }

// Close ends the watch.
func (s *WatchStream) Close() {
	s.cancel()
	s.body.Close()
}

// DecodeEvent decodes one event's object: metadata for object events, a
// Status for ERROR events.
func DecodeEvent(typ string, raw json.RawMessage, received time.Time) (Event, error) {
	e := Event{Type: typ, Raw: raw, Received: received}
	switch typ {
	case EventAdded, EventModified, EventDeleted, EventBookmark:
		var obj struct {
			Metadata ItemMeta `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return e, fmt.Errorf("cannot decode the %s event's object: %w", typ, err)
		}
		e.Object = obj.Metadata
	case EventError:
		var st metav1.Status
		if err := json.Unmarshal(raw, &st); err != nil {
			return e, fmt.Errorf("cannot decode the ERROR event's Status: %w", err)
		}
		e.Status = &st
	default:
		return e, fmt.Errorf("unknown watch event type %q", typ)
	}
	return e, nil
}
