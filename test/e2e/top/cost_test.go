//go:build e2e

package top

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/top"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// scrape is one GET /metrics as a scraper sends it (gzip asked for): the
// bytes on the wire, the text they decode to, and the time to read it all.
type scrape struct {
	wire, text int64
	took       time.Duration
}

func getMetrics(t *testing.T, hc *http.Client, host string, q url.Values) scrape {
	t.Helper()
	u := host + "/metrics"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Accept", "text/plain")
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wire := &countReader{r: resp.Body}
	var body io.Reader = wire
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(wire)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	n, err := io.Copy(io.Discard, body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return scrape{wire: wire.n, text: n, took: time.Since(start)}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func median(xs []scrape) scrape {
	sort.Slice(xs, func(i, j int) bool { return xs[i].took < xs[j].took })
	return xs[len(xs)/2]
}

// TestTopCost measures, in one run under the load of TestTopLoad, top's
// read of /metrics (a name[] per family it reads) against a full scrape of
// the same server (what Prometheus reads), and holds top's own account of
// its bytes to the measured read: the figures of docs/performance.md.
func TestTopCost(t *testing.T) {
	ctx := context.Background()
	run, err := framework.StartLoad(ctx, shared, 0, "top-cost", testLoad)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	cfg := shared.RESTConfig(0)
	cfg.DisableCompression = true // the gzip is read here, to count its bytes
	tr, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	q := url.Values{"name[]": top.Families}
	var full, filtered []scrape
	for i := 0; i < 7; i++ {
		full = append(full, getMetrics(t, hc, cfg.Host, nil))
		filtered = append(filtered, getMetrics(t, hc, cfg.Host, q))
	}
	f, s := median(full), median(filtered)
	r, res := framework.RunTopJSON(t, shared.Kubeconfig, "--interval", "2s")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	per := r.Cost.Bytes / int64(r.Cost.Reads)
	t.Logf("| read | text bytes | gzip bytes on the wire | median time |")
	t.Logf("| full scrape (GET /metrics) | %d | %d | %s |", f.text, f.wire, f.took.Round(time.Millisecond))
	t.Logf("| top's read (GET /metrics?name[]=..., %d families) | %d | %d | %s |", len(top.Families), s.text, s.wire, s.took.Round(time.Millisecond))
	t.Logf("top -o json: %d reads, %d bytes (%d per read); filtered %v", r.Cost.Reads, r.Cost.Bytes, per, r.Cost.Filtered)
	if s.text*5 > f.text || !r.Cost.Filtered {
		t.Errorf("top's read %d bytes against a full scrape of %d: want a fifth or less, filtered", s.text, f.text)
	}
	if lo, hi := s.text*8/10, s.text*12/10; per < lo || per > hi {
		t.Errorf("top says %d bytes per read, a read measured here is %d", per, s.text)
	}
}
