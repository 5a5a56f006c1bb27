package top

import (
	"context"
	"io"
	"net/url"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// Sample is one read of one server's /metrics.
type Sample struct {
	// Start is when the request was sent, At when its answer's headers
	// came (the server gathers its metrics before it writes them, so At
	// is the sample's time, to within the request's latency), End when
	// the body was read.
	Start time.Time `json:"start"`
	At    time.Time `json:"at"`
	End   time.Time `json:"end"`
	// Bytes is the text read (after the transport's gzip decoding).
	Bytes int64 `json:"bytes"`
	// Declared is how many families the text declared; Filtered: none
	// but those asked for (the server honoured name[]).
	Declared int  `json:"families"`
	Filtered bool `json:"filtered"`

	Values *Values `json:"-"`
}

// Read sends one GET /metrics?name[]=... for the families top needs and
// extracts them. It is top's one read of /metrics (readMetrics below is
// its one request).
func Read(ctx context.Context, c *apiclient.Client, kinds KindResources) (*Sample, error) {
	s := &Sample{Start: time.Now()}
	body, err := readMetrics(ctx, c)
	if err != nil {
		return nil, shortRequest(err)
	}
	defer body.Close()
	s.At = time.Now()
	cr := &countio.Reader{R: body}
	sel, err := metrics.ParseSelected(cr, Families, true)
	s.End, s.Bytes = time.Now(), cr.N
	if err != nil {
		return nil, shortRequest(apiclient.AttachRequest(err, body, "/metrics", url.Values{"name[]": Families}))
	}
	s.Declared = len(sel.Declared)
	s.Filtered = true
	for name := range sel.Declared {
		if !wanted[name] {
			s.Filtered = false
			break
		}
	}
	s.Values = Extract(sel, kinds)
	return s, nil
}

// readMetrics is the one request of top: GET /metrics with a name[]
// parameter per family (kube-apiserver v1.37 sends only those; older
// servers ignore it and send everything). The body is read as it
// streams. The lead may switch this call to apiclient's capped /metrics
// read when it lands: this is its single call site.
func readMetrics(ctx context.Context, c *apiclient.Client) (io.ReadCloser, error) {
	return c.Get(ctx, "/metrics", url.Values{"name[]": Families}, "text/plain")
}

var wanted = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range Families {
		m[f] = true
	}
	return m
}()

// Request is top's request as its errors name it: the path without the
// name[] query.
func Request() string { return metrics.Request(len(Families)) }

// shortRequest is err in the one wording of a /metrics failure
// (metrics.ShortRequest).
func shortRequest(err error) error { return metrics.ShortRequest(err) }
