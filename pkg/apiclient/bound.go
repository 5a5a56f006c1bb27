package apiclient

import (
	"errors"
	"fmt"
	"io"
	"net/url"
)

// BoundError is an answer within its byte cap (capBody) whose content
// broke a bound on what the plugin decodes or keeps of it: more items in
// one list page, more series in one /metrics, a longer line than any
// server sends. Bytes under the cap can still expand many-fold once
// decoded; these bounds keep the memory of a decoded answer as small as
// the cap keeps its bytes. It is the same class of failure as a body over
// its cap (diagnose.FailureUnbounded, exit code 13), with the same one
// line: the request, the bound, the fix.
type BoundError struct {
	Method string
	// URL is the request, redacted (AttachRequest fills both in).
	URL string
	// Over says what the answer did: "holds more than 1000000 items".
	Over string
	// Bound names the bound: "the most the plugin reads of one list page".
	Bound string
	// Fix is what the user can do.
	Fix string
	// Cause (may be nil) is the sentinel a caller can test with errors.Is.
	Cause error
}

// Unwrap is the cause.
func (e *BoundError) Unwrap() error { return e.Cause }

func (e *BoundError) Error() string {
	req := "the answer"
	if e.URL != "" {
		req = "the answer to " + RequestName(e.Method, e.URL)
	}
	return fmt.Sprintf("%s %s, %s: the plugin stopped reading it; %s", req, e.Over, e.Bound, e.Fix)
}

// Unbounded marks the error as an answer that broke one of the plugin's
// bounds (diagnose.FailureUnbounded).
func (e *BoundError) Unbounded() bool { return true }

// requester is a body that knows its request: every body read through the
// cap (capBody).
type requester interface {
	Request() (method, url string)
}

// Request is the body's request: its method and redacted URL.
func (b *capBody) Request() (string, string) { return b.err.Method, b.err.URL }

// AttachRequest names the request in a *BoundError of err's chain that
// does not name one yet (a decoder knows the bound, not the request): the
// request of body when it came through the cap, else GET path?q. Other
// errors come back as they are.
func AttachRequest(err error, body io.Reader, path string, q url.Values) error {
	var b *BoundError
	if !errors.As(err, &b) || b.URL != "" {
		return err
	}
	if r, ok := body.(requester); ok {
		b.Method, b.URL = r.Request()
	} else {
		b.Method, b.URL = "GET", URL(path, q)
	}
	return err
}
