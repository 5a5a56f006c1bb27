//go:build e2e

package probe

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// recordedFamilies are the metric families pkg/metrics reads; the recording
// keeps their lines (HELP, TYPE and samples, unchanged) and drops the
// thousands of others.
var recordedFamilies = []string{
	"watch_cache_capacity", "apiserver_watch_cache_capacity",
	"apiserver_watch_cache_events_received_total", "apiserver_watch_cache_resource_version",
	"apiserver_watch_cache_initializations_total", "apiserver_terminated_watchers_total",
	"etcd_bookmark_total", "etcd_bookmark_counts", "apiserver_watch_cache_events_dispatched_total",
}

// readMetrics reads the real /metrics text of API server 0 as admin.
func readMetrics(t *testing.T, c *framework.Cluster) string {
	t.Helper()
	cfg := c.RESTConfig(0)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, cfg.Host+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: HTTP %d, %v", resp.StatusCode, err)
	}
	return string(b)
}

// TestRecordMetrics saves the watch-cache families of a real v1.37.2
// /metrics to pkg/metrics/testdata when WATCHRV_RECORD_METRICS=1; the
// unit tests of pkg/metrics read it. Without the variable it checks that
// the families the parser reads are still exposed.
func TestRecordMetrics(t *testing.T) {
	_, ns := newNamespace(t, shared, "metrics-record")
	runProbeJSON(t, shared.Kubeconfig, 0, "configmaps", "-n", ns)
	text := readMetrics(t, shared)
	var kept []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		for _, f := range recordedFamilies {
			if name == f || strings.HasPrefix(name, f+"{") || strings.HasPrefix(name, f+" ") {
				kept = append(kept, line)
				break
			}
		}
	}
	for _, f := range []string{"apiserver_watch_cache_events_received_total", "apiserver_watch_cache_resource_version", "apiserver_watch_cache_initializations_total"} {
		if !strings.Contains(text, "\n"+f+"{") {
			t.Errorf("the real /metrics has no %s samples", f)
		}
	}
	if os.Getenv("WATCHRV_RECORD_METRICS") == "" {
		return
	}
	// An older server's text is recorded the same way: point
	// WATCHRV_CLUSTER_BIN at a directory holding that kube-apiserver (built
	// from the Go module proxy like test/cluster/build.sh does) and etcd,
	// and name its version in WATCHRV_RECORD_METRICS_VERSION.
	version := os.Getenv("WATCHRV_RECORD_METRICS_VERSION")
	if version == "" {
		version = "v1.37.2"
	}
	out := filepath.Join(framework.RepoRoot(), "pkg", "metrics", "testdata", version+".metrics.txt")
	if err := os.WriteFile(out, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d lines of %d into %s", len(kept), strings.Count(text, "\n"), out)
}
