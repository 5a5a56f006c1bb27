package framework

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// BadMetricsServer is a small server on loopback whose /metrics carries
// values no kube-apiserver writes (what no real server does): the
// families top reads for configmaps, each at Value from the N-th read on
// (before: a count that grows 100 a read), and a kubernetes_build_info
// with a git_version but no minor label. Plain HTTP, no authentication.
type BadMetricsServer struct {
	URL string
	// Value is the sample text of every series ("NaN", "+Inf", "1e308",
	// "-100"), from read From on (1: every read).
	Value string
	From  int64

	srv   *http.Server
	reads atomic.Int64
}

// StartBadMetricsServer serves value from read from on, until Close.
func StartBadMetricsServer(value string, from int64) (*BadMetricsServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &BadMetricsServer{URL: "http://" + ln.Addr().String(), Value: value, From: from}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *BadMetricsServer) Close() { _ = s.srv.Close() }

// Kubeconfig writes a kubeconfig for the server into dir.
func (s *BadMetricsServer) Kubeconfig(dir string) (string, error) {
	p := filepath.Join(dir, "badmetrics.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: bad\n  cluster:\n    server: %s\ncontexts:\n- name: bad\n  context:\n    cluster: bad\n    user: bad\ncurrent-context: bad\nusers:\n- name: bad\n  user:\n    token: bad-token\n", s.URL)
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}

func (s *BadMetricsServer) serve(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/version":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(faultVersion))
	case "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(s.metrics(s.reads.Add(1))))
	default:
		http.NotFound(w, r)
	}
}

func (s *BadMetricsServer) metrics(read int64) string {
	val := fmt.Sprint(read * 100)
	if read >= s.From {
		val = s.Value
	}
	const cm = `group="",resource="configmaps"`
	var b strings.Builder
	b.WriteString("# TYPE kubernetes_build_info gauge\nkubernetes_build_info{git_version=\"v1.37.2\",major=\"1\"} 1\n")
	b.WriteString("# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1.7e+09\n")
	b.WriteString("# TYPE watch_cache_capacity gauge\nwatch_cache_capacity{" + cm + "} 100\n")
	for _, l := range []string{
		`# TYPE apiserver_longrunning_requests gauge`,
		`apiserver_longrunning_requests{component="apiserver",` + cm + `,scope="namespace",subresource="",verb="WATCH",version="v1"} %s`,
		`# TYPE apiserver_watch_events_total counter`,
		`apiserver_watch_events_total{` + cm + `,version="v1"} %s`,
		`# TYPE apiserver_terminated_watchers_total counter`,
		`apiserver_terminated_watchers_total{` + cm + `} %s`,
		`# TYPE apiserver_request_total counter`,
		`apiserver_request_total{code="429",component="apiserver",dry_run="",` + cm + `,scope="namespace",subresource="",verb="LIST",version="v1"} %s`,
		`# TYPE apiserver_flowcontrol_rejected_requests_total counter`,
		`apiserver_flowcontrol_rejected_requests_total{flow_schema="global-default",priority_level="global-default",reason="queue-full"} %s`,
		`# TYPE apiserver_storage_list_total counter`,
		`apiserver_storage_list_total{` + cm + `,index="",storage="etcd"} %s`,
		`# TYPE apiserver_storage_list_fetched_objects_total counter`,
		`apiserver_storage_list_fetched_objects_total{` + cm + `,index="",storage="etcd"} %s`,
		`# TYPE apiserver_storage_list_returned_objects_total counter`,
		`apiserver_storage_list_returned_objects_total{` + cm + `,storage="etcd"} 1`,
	} {
		if strings.Contains(l, "%s") {
			l = fmt.Sprintf(l, val)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// StartUntrustedTLS serves HTTPS on loopback with a certificate no
// kubeconfig trusts (httptest's own CA): every request fails its TLS
// check. It returns the address (host:port) and the stop function.
func StartUntrustedTLS() (string, func()) {
	s := httptest.NewTLSServer(http.NotFoundHandler())
	return s.Listener.Addr().String(), s.Close
}
