package apiclient

import (
	"fmt"
	"net/url"
	"strings"
)

// RequestName is how an error line names a request the plugin sent, the
// one way every such line does: its method and its URL (redacted by the
// caller: RequestURL), except a read of /metrics by name, whose name[]
// parameters (one a family) make its URL a kilobyte and more: that one is
// MetricsRequest ("GET /metrics (21 families)"). Used by the errors of
// the body cap (BodyTooLargeError) and of the decoders' bounds
// (BoundError), and by metrics.ShortRequest for client-go's *url.Error
// (adversary tries 17 and 19: the same failed /metrics named in 60
// characters by one line and 1,300 by another).
func RequestName(method, rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && strings.HasSuffix(u.Path, "/metrics") {
		if n := len(u.Query()["name[]"]); n > 0 {
			return MetricsRequest(n)
		}
	}
	return method + " " + rawURL
}

// MetricsRequest is a read of /metrics by name as errors name it: the
// path without its name[] query, and how many families it asked for.
func MetricsRequest(families int) string {
	return fmt.Sprintf("GET /metrics (%d families)", families)
}
