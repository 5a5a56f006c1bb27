package apiclient

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// NoHiddenRetries stops client-go from silently retrying 429 answers (it
// retries up to ten times when a Retry-After header is present), also for
// the requests this plugin does not send through Client.Get (discovery), so
// that throttling by API Priority and Fairness is reported at once instead
// of turning into a timeout. The commands that wait (probe, a paged walk)
// read the delay from the Status details (retryAfterSeconds), not from the
// header, and wait themselves.
func NoHiddenRetries(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return hideRetryAfter{rt} })
	return cfg
}

type hideRetryAfter struct{ next http.RoundTripper }

func (h hideRetryAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}
