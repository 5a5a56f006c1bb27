//go:build e2e

package matrix

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// server is the harness's raw view of one cell's API server: plain HTTP
// requests with the admin token, so that statuses, bodies and metrics are
// the server's own, not a client library's reading of them.
type server struct {
	t    testing.TB
	c    *framework.Cluster
	http *http.Client
	base string
}

func newServer(t testing.TB, c *framework.Cluster) *server {
	hc, err := rest.HTTPClientFor(c.RESTConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	return &server{t: t, c: c, http: hc, base: c.APIServers[0].URL}
}

// get returns the status and body of GET path?query.
func (s *server) get(path string, query url.Values) (int, []byte) {
	s.t.Helper()
	return s.getAs("", path, query)
}

// getAs is get with the User-Agent agent (client-go's own when ""), the
// name the request has in the cell's audit log.
func (s *server) getAs(agent, path string, query url.Values) (int, []byte) {
	s.t.Helper()
	u := s.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		s.t.Fatalf("GET %s: %v", u, err)
	}
	if agent != "" {
		req.Header.Set("User-Agent", agent)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("GET %s: reading: %v", u, err)
	}
	return resp.StatusCode, b
}

// listRV lists path with query and returns the list's RV and item count; a
// status other than 200 fails the test.
func (s *server) list(path string, query url.Values) (uint64, int) {
	s.t.Helper()
	code, body := s.get(path, query)
	if code != http.StatusOK {
		s.t.Fatalf("list %s %v: %d %s", path, query, code, body)
	}
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		s.t.Fatalf("list %s: %v", path, err)
	}
	rv, err := strconv.ParseUint(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		s.t.Fatalf("list %s: RV %q: %v", path, l.Metadata.ResourceVersion, err)
	}
	return rv, len(l.Items)
}

// event is one line of a watch stream.
type event struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Code     int    `json:"code"`
		Message  string `json:"message"`
		Metadata struct {
			Name            string            `json:"name"`
			ResourceVersion string            `json:"resourceVersion"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

// watched is what one raw watch saw.
type watched struct {
	Code   int     // the HTTP status
	Body   string  // the body of a refused watch
	Events []event // every event, in order
	Ended  bool    // the server closed the stream before the harness's deadline
	Took   time.Duration
}

// watch opens a raw watch on path with query and reads it until the server
// ends it, stop returns true for an event, or wait passes. A failed request
// fails the test.
func (s *server) watch(path string, query url.Values, wait time.Duration, stop func(event) bool) watched {
	s.t.Helper()
	w, err := s.watchErr(path, query, wait, stop)
	if err != nil {
		s.t.Fatal(err)
	}
	return w
}

// watchErr is watch for a goroutine other than the test's: it returns the
// error instead of failing the test.
func (s *server) watchErr(path string, query url.Values, wait time.Duration, stop func(event) bool) (watched, error) {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("watch", "1")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path+"?"+q.Encode(), nil)
	start := time.Now()
	resp, err := s.http.Do(req)
	if err != nil {
		return watched{}, fmt.Errorf("watch %s %v: %v", path, q, err)
	}
	defer resp.Body.Close()
	w := watched{Code: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		w.Body, w.Took = string(b), time.Since(start)
		return w, nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return w, fmt.Errorf("watch %s: event %q: %v", path, sc.Text(), err)
		}
		w.Events = append(w.Events, e)
		if stop != nil && stop(e) {
			w.Took = time.Since(start)
			return w, nil
		}
	}
	w.Ended = ctx.Err() == nil
	w.Took = time.Since(start)
	return w, nil
}

// metrics returns the server's /metrics text.
func (s *server) metrics() string {
	s.t.Helper()
	code, body := s.get("/metrics", nil)
	if code != http.StatusOK {
		s.t.Fatalf("/metrics: %d %s", code, body)
	}
	return string(body)
}

// metricSum sums the samples of metric whose labels contain every one of
// match (e.g. `podtemplates`); a metric with no such sample sums to 0.
func metricSum(text, metric string, match ...string) float64 {
	var sum float64
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, metric+"{") && !strings.HasPrefix(line, metric+" ") {
			continue
		}
		ok := true
		for _, m := range match {
			ok = ok && strings.Contains(line, m)
		}
		if !ok {
			continue
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// featureGates reads the kubernetes_feature_enabled gauges: name -> value
// (absent: the gate does not exist in this version).
func featureGates(text string) map[string]float64 {
	gates := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "kubernetes_feature_enabled{") {
			continue
		}
		i := strings.Index(line, `name="`)
		if i < 0 {
			continue
		}
		name := line[i+len(`name="`):]
		name = name[:strings.IndexByte(name, '"')]
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			gates[name] = v
		}
	}
	return gates
}
