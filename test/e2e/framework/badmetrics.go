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

// MetricsBreak is how KubeMetrics breaks one family out of a
// kube-apiserver's form, as no kube-apiserver writes it (adversary try
// 19: a /metrics read as one summed duplicate series, and read a family
// of another TYPE as 0).
type MetricsBreak string

const (
	// BreakNone: the family as a kube-apiserver writes it.
	BreakNone MetricsBreak = ""
	// BreakRepeatedSeries: each series of the family comes twice (the
	// same name and labels), right after itself.
	BreakRepeatedSeries MetricsBreak = "repeated-series"
	// BreakDeclaredTwice: the family (its "# TYPE" line and its series)
	// comes twice, the second time at the end of the text.
	BreakDeclaredTwice MetricsBreak = "declared-twice"
	// BreakWrongType: the family is declared with another TYPE (a
	// counter as a gauge, a gauge as a histogram, a histogram as a
	// gauge), its samples as they are.
	BreakWrongType MetricsBreak = "wrong-type"
)

// kubeFamily is one family of KubeMetrics: its TYPE and its sample lines.
type kubeFamily struct {
	name, typ string
	lines     []string
}

// kubeFamilies are the families top and probe --metrics read, as a
// kube-apiserver v1.37.2 writes them (names, TYPEs and labels of the
// recordings in pkg/top/testdata), one series each for configmaps (a
// histogram's series is its buckets, sum and count). The families v1.37
// hides (apiserver_cache_list_*, apiserver_storage_objects) and the
// legacy etcd_bookmark_counts are not in it, as on a v1.37 server.
var kubeFamilies = []kubeFamily{
	{"apiserver_audit_event_total", "counter", []string{`apiserver_audit_event_total 0`}},
	{"apiserver_flowcontrol_rejected_requests_total", "counter", []string{`apiserver_flowcontrol_rejected_requests_total{flow_schema="global-default",priority_level="global-default",reason="queue-full"} 3`}},
	{"apiserver_longrunning_requests", "gauge", []string{`apiserver_longrunning_requests{component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"} 360`}},
	{"apiserver_request_total", "counter", []string{`apiserver_request_total{code="410",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"} 5`}},
	{"apiserver_resource_objects", "gauge", []string{`apiserver_resource_objects{group="",resource="configmaps"} 40`}},
	{"apiserver_storage_list_fetched_objects_total", "counter", []string{`apiserver_storage_list_fetched_objects_total{group="",index="",resource="configmaps",storage="etcd"} 70`}},
	{"apiserver_storage_list_returned_objects_total", "counter", []string{`apiserver_storage_list_returned_objects_total{group="",resource="configmaps",storage="etcd"} 70`}},
	{"apiserver_storage_list_total", "counter", []string{`apiserver_storage_list_total{group="",index="",resource="configmaps",storage="etcd"} 7`}},
	{"apiserver_terminated_watchers_total", "counter", []string{`apiserver_terminated_watchers_total{group="",resource="configmaps"} 2`}},
	{"apiserver_watch_cache_events_dispatched_total", "counter", []string{`apiserver_watch_cache_events_dispatched_total{group="",resource="configmaps"} 11`}},
	{"apiserver_watch_cache_events_received_total", "counter", []string{`apiserver_watch_cache_events_received_total{group="",resource="configmaps"} 11`}},
	{"apiserver_watch_cache_initializations_total", "counter", []string{`apiserver_watch_cache_initializations_total{group="",resource="configmaps"} 1`}},
	{"apiserver_watch_cache_resource_version", "gauge", []string{`apiserver_watch_cache_resource_version{group="",resource="configmaps"} 99`}},
	{"apiserver_watch_events_sizes", "histogram", []string{
		`apiserver_watch_events_sizes_bucket{group="",resource="configmaps",version="v1",le="1024"} 9`,
		`apiserver_watch_events_sizes_bucket{group="",resource="configmaps",version="v1",le="+Inf"} 9`,
		`apiserver_watch_events_sizes_sum{group="",resource="configmaps",version="v1"} 4500`,
		`apiserver_watch_events_sizes_count{group="",resource="configmaps",version="v1"} 9`,
	}},
	{"apiserver_watch_events_total", "counter", []string{`apiserver_watch_events_total{group="",resource="configmaps",version="v1"} 9`}},
	{"etcd_bookmark_total", "counter", []string{`etcd_bookmark_total{group="",resource="configmaps"} 4`}},
	{"kubernetes_build_info", "gauge", []string{`kubernetes_build_info{build_date="2026-01-01T00:00:00Z",compiler="gc",git_commit="0000000000000000000000000000000000000000",git_tree_state="clean",git_version="v1.37.2",go_version="go1.25.5",major="1",minor="37",platform="linux/amd64"} 1`}},
	{"process_start_time_seconds", "gauge", []string{`process_start_time_seconds 1.7e+09`}},
	{"watch_cache_capacity", "gauge", []string{`watch_cache_capacity{group="",resource="configmaps"} 100`}},
	{"watch_cache_capacity_decrease_total", "counter", []string{`watch_cache_capacity_decrease_total{group="",resource="configmaps"} 1`}},
	{"watch_cache_capacity_increase_total", "counter", []string{`watch_cache_capacity_increase_total{group="",resource="configmaps"} 1`}},
}

// KubeMetricsFamilies are the families of KubeMetrics, in its order.
func KubeMetricsFamilies() []string {
	out := make([]string, len(kubeFamilies))
	for i, f := range kubeFamilies {
		out[i] = f.name
	}
	return out
}

// KubeMetrics is a /metrics as a kube-apiserver v1.37.2 writes it
// (kubeFamilies), with family broken by how (BreakNone: none).
func KubeMetrics(family string, how MetricsBreak) string {
	var b, again strings.Builder
	for _, f := range kubeFamilies {
		typ := f.typ
		if f.name == family && how == BreakWrongType {
			typ = map[string]string{"counter": "gauge", "gauge": "histogram", "histogram": "gauge"}[f.typ]
		}
		block := "# HELP " + f.name + " A family as a kube-apiserver writes it.\n# TYPE " + f.name + " " + typ + "\n"
		series := strings.Join(f.lines, "\n") + "\n"
		if f.name == family && how == BreakRepeatedSeries {
			series += series
		}
		b.WriteString(block + series)
		if f.name == family && how == BreakDeclaredTwice {
			again.WriteString(block + series)
		}
	}
	return b.String() + again.String()
}
