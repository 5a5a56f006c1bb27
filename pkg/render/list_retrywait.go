package render

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// ListRetryWait is the walk's wait before it sent pages again (the one
// retry policy's backoff, or the server's Retry-After): the plugin's own
// wait, not the server's time. Retries counts the requests sent again,
// Pages the pages they were of.
type ListRetryWait struct {
	Millis  float64 `json:"ms"`
	Retries int     `json:"retries"`
	Pages   []int   `json:"pages"`
}

// retryWaitOf is the walk's ListRetryWait, nil when it retried nothing.
func retryWaitOf(w *listing.WalkResult) *ListRetryWait {
	if w.Retries == 0 {
		return nil
	}
	rw := &ListRetryWait{Millis: float64(w.RetryWaited.Microseconds()) / 1000, Retries: w.Retries, Pages: []int{}}
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
// send page 2 again after a transient failure (5 retries, by the plugin's retry policy
// backoff)". The retries show so without -v (adversary try 24 F5).
func retryWaitText(rw *ListRetryWait) string {
	retries := "1 retry"
	if rw.Retries != 1 {
		retries = strconv.Itoa(rw.Retries) + " retries"
	}
	return fmt.Sprintf(", and %s more waiting to send %s again after a transient failure (%s, by the plugin's retry policy)", millisText(rw.Millis), pagesText(rw.Pages), retries)
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
