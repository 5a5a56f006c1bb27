package apiclient

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// BodyCutError is an answer whose body the connection broke before its
// end, after its head came: the one wording of every such break, "the
// answer to GET /version broke off after 40 bytes: the connection closed
// before the answer's end", whatever reads the body (a list, a watch, the
// streaming check, /metrics, /version, discovery, the EndpointSlices of
// --servers) and whatever broke it (a short body, a TCP reset, an HTTP/2
// stream reset or a lost HTTP/2 connection). The transport (the cap's
// read, capBody) makes it, so no reader can leave a break in Go's words
// ("unexpected EOF", "read tcp A->B: read: connection reset by peer"), nor
// name the request its own way (adversary try 49 F4-F6: five readers
// called a helper, the others said "broke: unexpected EOF", and top said
// "GET GET /metrics"). A connection lost (exit 4); it unwraps to
// net/http's error.
type BodyCutError struct {
	// Request names the request as error lines do (RequestName of its
	// method and path: the line names the server).
	Request string
	// Watch: the body is a watch stream.
	Watch bool
	// Bytes is how much of the body was read before it broke.
	Bytes int64
	// Cause is what broke it, in words ("the connection was reset").
	Cause string
	Err   error
}

func (e *BodyCutError) Error() string {
	what := "the answer to " + e.Request
	if e.Watch {
		what = "the watch stream of " + e.Request
	}
	return fmt.Sprintf("%s broke off after %s: %s", what, text.Count(e.Bytes, "byte"), e.Cause)
}

func (e *BodyCutError) Unwrap() error { return e.Err }

// FailureClass: a connection that broke (exit 4).
func (e *BodyCutError) FailureClass() diagnose.Failure {
	return diagnose.FailureConnectionBroken
}

// IsBodyCut reports a *BodyCutError in err's chain.
func IsBodyCut(err error) bool {
	var cut *BodyCutError
	return errors.As(err, &cut)
}

// bodyCut is err, the failure of a read of the body of req's answer after
// n bytes of it, as a *BodyCutError when the connection broke it: a body
// shorter than its length or its chunks announced, a reset, the HTTP/2
// stream or connection lost. Any other err is kept as it is: the body's
// clean end (io.EOF), a read the plugin ended itself (its context done:
// a time bound, which pastDeadline names, the run's --timeout, a signal,
// a body closed under its read), the cap's, an answer net/http refused.
func bodyCut(req *http.Request, kind BodyKind, n int64, err error) error {
	if err == nil || err == io.EOF || req.Context().Err() != nil {
		return err
	}
	var late *DeadlineError
	var unreadable *UnreadableAnswerError
	var big *BodyTooLargeError
	var cut *BodyCutError
	if errors.As(err, &late) || errors.As(err, &unreadable) || errors.As(err, &big) || errors.As(err, &cut) {
		return err
	}
	cause := cutCause(err)
	if cause == "" {
		return err
	}
	return &BodyCutError{Request: RequestName(req.Method, requestPath(RequestURL(req.URL))), Watch: kind == KindWatch, Bytes: n, Cause: cause, Err: err}
}

// cutCause is what broke a body's read, in words; "" when err is no
// break of the connection.
func cutCause(err error) string {
	var lost *ConnectionLostError
	msg := err.Error()
	switch {
	case errors.As(err, &lost):
		// http2Lost's words: a GOAWAY, a RST_STREAM of the request.
		return lost.What
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the answer's end"
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(msg, "connection reset by peer"):
		return "the connection was reset"
	case strings.Contains(msg, "http2: client connection lost"):
		// net/http's HTTP/2 health check (client-go's: a ping
		// unanswered for 15 s after 30 s of silence) closed it.
		return "the connection was lost (HTTP/2's health check: a ping unanswered for 15 s after 30 s of silence)"
	case strings.Contains(msg, "http2: client connection force closed") || strings.Contains(msg, "http2: server closed the connection"):
		return "the server closed the HTTP/2 connection"
	}
	return ""
}

// WatchCutMidEvent is a watch stream whose body ended cleanly (no length
// announced: the connection's close is its end) inside an event, after n
// bytes: the decoder's io.ErrUnexpectedEOF, which the transport never
// sees as a break (it read a clean end), said as every other break of a
// body (adversary try 50 F1: "the watch stream broke: unexpected EOF").
// url is the stream's (path and query).
func WatchCutMidEvent(url string, n int64, err error) error {
	return &BodyCutError{Request: RequestName(http.MethodGet, requestPath(url)), Watch: true, Bytes: n, Cause: "the connection closed in the middle of an event", Err: err}
}
