package render

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// ListRetryWait is the walk's wait before it sent pages again (the one
// retry policy's backoff, or the server's Retry-After): the plugin's own
// wait, not the server's time. It is the run's RetryWait (who set each
// wait: adversary tries 25 F6, 27 F1) of the walk, with the pages the
// requests sent again were of.
type ListRetryWait struct {
	apiclient.RetryWait
	Pages []int `json:"pages"`
}

// retryWaitOf is the walk's ListRetryWait, nil when it retried nothing.
func retryWaitOf(w *listing.WalkResult) *ListRetryWait {
	if w.Retries == 0 {
		return nil
	}
	rw := &ListRetryWait{RetryWait: apiclient.RetryWait{Millis: float64(w.RetryWaited.Microseconds()) / 1000, Retries: w.Retries,
		ServerAskedRetries: w.ServerAskedRetries, RetryAfterSeconds: w.ServerAsked.Seconds(), CappedRetries: w.CappedRetries}, Pages: []int{}}
	for _, a := range w.Attempts {
		for _, p := range a.RetriedPages {
			if !slices.Contains(rw.Pages, p) {
				rw.Pages = append(rw.Pages, p)
			}
		}
	}
	slices.Sort(rw.Pages)
	return rw
}

// retryWaitText is what the Transfer line says of the retry wait, beside
// the transfer's time and never inside it: "and 7.75 s more waiting to
// send page 2 again after a transient failure (5 retries, by the plugin's
// backoff)". The retries show so without -v (adversary try 24 F5), and
// who set their wait: the plugin's backoff or the server's Retry-After
// (adversary try 25 F6).
func retryWaitText(rw *ListRetryWait) string {
	return fmt.Sprintf(", and %s more waiting to send %s again after a transient failure (%s)", millisText(rw.Millis), pagesText(rw.Pages), whoSetTheWait(rw))
}

// whoSetTheWait: "5 retries, by the plugin's backoff", "1 retry, as the
// server's Retry-After asked: 3 s", or both counted apart.
func whoSetTheWait(rw *ListRetryWait) string {
	return setTheWait(retriesText(rw.Retries), &rw.RetryWait)
}

// AfterRetriesText is what a run's final error line says of the retry
// policy's waits, with the Transfer line's words: "after 2 retries and
// 60.00 s waiting, as the server's Retry-After asked: 999999999.00 s,
// capped by the plugin's retry policy" ("" when nothing was sent again).
// One text for every command's error (adversary try 26 F3).
func AfterRetriesText(w *apiclient.RetryWait) string {
	if w == nil || w.Retries == 0 {
		return ""
	}
	return setTheWait(fmt.Sprintf("after %s and %s waiting", retriesText(w.Retries), millisText(w.Millis)), w)
}

// RetryCauseText is what a line ending with AfterRetriesText says of why
// the first request was sent again: "; first sent again after: 503
// ServiceUnavailable: etcd leader changed", or a failure with no answer in
// its own words; "" when no cause was noted or final, the failure the
// line says, is the same (apiclient.SameFailure: the same status and
// message, compared as recorded, not as words of the line: adversary try
// 28 F4). A final error of another kind then does not hide the first
// try's (CI: a list's first page lost its connection, and only the
// retry's TLS handshake stall was said). final nil: the line says no
// failure (the cost line).
func RetryCauseText(w *apiclient.RetryWait, final error) string {
	if w == nil || w.FirstCause == "" || apiclient.SameFailure(w, final) {
		return ""
	}
	return "; first sent again after: " + w.FirstCause
}

// RetriesSaid is what a note or a warning about a failed read ends with
// when the read was sent again (apiclient.RetriesOf: its own retries, not
// the run's): " (after 2 retries and 600.0 ms waiting, by the plugin's
// backoff)", with the first retry's cause when the read's last failure is
// another; "" when it was sent once (adversary try 27 F5).
func RetriesSaid(err error) string {
	rw := apiclient.RetriesOf(err)
	if t := AfterRetriesText(rw); t != "" {
		return " (" + t + RetryCauseText(rw, err) + ")"
	}
	return ""
}

func retriesText(n int) string {
	if n == 1 {
		return "1 retry"
	}
	return strconv.Itoa(n) + " retries"
}

// setTheWait is head said with who set the waits: the plugin's backoff,
// the server's Retry-After (and the cap that cut it), or both apart.
func setTheWait(head string, rw *apiclient.RetryWait) string {
	server, own := rw.ServerAskedRetries, rw.Retries-rw.ServerAskedRetries
	asked := "the server's Retry-After asked: " + millisText(rw.RetryAfterSeconds*1000)
	if server > 1 {
		// Several asks: the longest is said (adversary try 27 F1: 2 s
		// and 3 s said as "asked: 3.00 s" of 5 s waited).
		asked = "the server's Retry-After asked: up to " + millisText(rw.RetryAfterSeconds*1000)
	}
	if rw.CappedRetries > 0 {
		// The policy's cap cut what the server asked (counted per wait,
		// not guessed from the total: adversary try 27 F1).
		asked += ", capped by the plugin's retry policy"
	}
	switch {
	case server <= 0:
		return head + ", by the plugin's backoff"
	case own <= 0:
		return head + ", as " + asked
	}
	return fmt.Sprintf("%s: %s as %s, %s by the plugin's backoff", head, retriesText(server), asked, retriesText(own))
}

// pagesText names the pages: "page 2", "pages 2 and 5", "pages 2, 3 and 5".
func pagesText(pages []int) string {
	if len(pages) == 1 {
		return fmt.Sprintf("page %d", pages[0])
	}
	s := "pages "
	for i, p := range pages {
		switch {
		case i == 0:
		case i == len(pages)-1:
			s += " and "
		default:
			s += ", "
		}
		s += strconv.Itoa(p)
	}
	return s
}
