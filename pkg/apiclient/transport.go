package apiclient

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// retryAfterHeader is where a 429's Retry-After is kept once hidden.
const retryAfterHeader = "X-Watchrv-Retry-After"

// NoHiddenRetries stops client-go from silently retrying 429 answers (it
// retries up to ten times when a Retry-After header is present), so that
// throttling by API Priority and Fairness is reported at once instead of
// turning into a timeout. The commands that wait (probe, a paged walk) read
// the delay from the Status details and wait themselves.
func NoHiddenRetries(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return hideRetryAfter{rt} })
	return cfg
}

type hideRetryAfter struct{ next http.RoundTripper }

func (h hideRetryAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		if v := resp.Header.Get("Retry-After"); v != "" {
			resp.Header.Set(retryAfterHeader, v)
			resp.Header.Del("Retry-After")
		}
	}
	return resp, err
}
