//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

func probeMetrics(t *testing.T, kubeconfig string, args ...string) (render.ProbeReport, framework.Result) {
	t.Helper()
	args = append([]string{"probe"}, append(args, "--metrics", "-o", "json")...)
	r := framework.Run(t, kubeconfig, 2*time.Minute, args...)
	var rep render.ProbeReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("exit %d, stdout not JSON (%v): %q; stderr %s", r.Code, err, r.Stdout, r.Stderr)
	}
	return rep, r
}

// The values the plugin shows are the server's: the same capacity and
// initializations as the harness's own read of /metrics, and a cache RV
// that a list at RV 0 (served from that same watch cache) confirms.
func TestProbeMetricsMatchTheServer(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "probe-metrics")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "m", 30, 10, 4); err != nil {
		t.Fatal(err)
	}
	rep, r := probeMetrics(t, shared.Kubeconfig, "configmaps", "-n", ns)
	if r.Code != 0 || rep.Metrics == nil || rep.Metrics.Note != "" {
		t.Fatalf("exit %d, metrics %+v; stderr %s", r.Code, rep.Metrics, r.Stderr)
	}
	m := rep.Metrics
	t.Logf("metrics: capacity %v events %v cacheRV %v inits %v rate %v; limit %s: %s", deref(m.Capacity), deref(m.EventsReceived), deref(m.ResourceVersion), deref(m.Initializations), deref(m.EventRate), m.Limit, m.LimitText)
	fams, err := metrics.Parse(strings.NewReader(readMetrics(t, shared)))
	if err != nil {
		t.Fatal(err)
	}
	list0, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	server := fams.Pick("", "configmaps")
	if m.Labels != "group,resource" || server.Capacity == nil || deref(m.Capacity) != *server.Capacity || deref(m.Initializations) != deref(server.Initializations) {
		t.Errorf("plugin capacity %v inits %v labels %q, server capacity %v inits %v", deref(m.Capacity), deref(m.Initializations), m.Labels, deref(server.Capacity), deref(server.Initializations))
	}
	// The cache RV only moves forward: plugin's read <= a list at RV 0
	// (the cache's RV, read after) <= the current RV the probe read... or
	// later; equal when nothing moved the cache in between.
	rv0 := float64(atoiRV(list0.ResourceVersion))
	if cache := deref(m.ResourceVersion); cache <= 0 || cache > rv0 || cache > deref(server.ResourceVersion) {
		t.Errorf("plugin cache RV %v, then list RV 0 says %v and /metrics %v", cache, rv0, deref(server.ResourceVersion))
	}
	// The 30 creates reached the cache before the probe: received >= 30.
	if deref(m.EventsReceived) < 30 || m.EventsDuringProbe == nil || m.Seconds <= 0 {
		t.Errorf("events received %v during %v over %vs", deref(m.EventsReceived), m.EventsDuringProbe, m.Seconds)
	}
	if m.Limit != metrics.LimitEviction && m.Limit != metrics.LimitInitialization && m.Limit != metrics.LimitUndetermined && m.Limit != metrics.LimitNothingExpired {
		t.Errorf("limit %q: %s", m.Limit, m.LimitText)
	}
	if m.Requests != 2 {
		t.Errorf("%d /metrics requests, want 2 (before and after)", m.Requests)
	}
}

// A user who may list and watch configmaps but not get /metrics: the probe
// works and the metrics are one note.
func TestProbeMetricsForbiddenIsANote(t *testing.T) {
	cs, ns := newNamespace(t, shared, "probe-metrics-rbac")
	framework.GrantConfigMapReading(t, cs, ns, "nobody")
	var rep render.ProbeReport
	var r framework.Result
	for i := 0; i < 20; i++ { // RBAC reaches the authorizer's cache within a moment
		rep, r = probeMetrics(t, shared.UserKubeconfig, "configmaps", "-n", ns)
		if r.Code != 7 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if r.Code != 0 || !rep.Found {
		t.Fatalf("exit %d found %v: %s", r.Code, rep.Found, r.Stderr)
	}
	if rep.Metrics == nil || !strings.Contains(rep.Metrics.Note, "/metrics is forbidden") || rep.Metrics.Capacity != nil {
		t.Fatalf("metrics %+v, want only the forbidden note", rep.Metrics)
	}
	human := framework.Run(t, shared.UserKubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--metrics")
	if human.Code != 0 || strings.Count(human.Stdout, "forbidden") != 1 || strings.Contains(human.Stderr, "error") {
		t.Errorf("exit %d; stdout %s; stderr %s", human.Code, human.Stdout, human.Stderr)
	}
	// The audit log has the /metrics gets, as get.
	var gets int
	for _, e := range framework.ReadAudit(t, shared.APIServers[0].AuditLog) {
		if strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") && (e.RequestURI == "/metrics" || strings.HasPrefix(e.RequestURI, "/metrics?")) {
			if e.Verb != "get" {
				t.Errorf("/metrics audited as %q", e.Verb)
			}
			gets++
		}
	}
	if gets == 0 {
		t.Error("no GET /metrics from the plugin in the audit log")
	}
}

func deref(f *float64) float64 {
	if f == nil {
		return -1
	}
	return *f
}

func atoiRV(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

// Issue 25 item 6: the watch cache evicts before it grows. One limitrange,
// then more than 75 s of quiet, then a burst of 300: the full cache's
// oldest event is too old to grow over, so it is evicted first and the
// capacity grows after (100 -> 400 for 301 events received). The window
// then starts after the first limitrange, as the probe measures, and the
// counters (received 301 < capacity 400) must not say "nothing evicted".
// About 90 s: in make test-long (E2E_LONG_TESTS).
func TestProbeMetricsAfterEvictionBeforeGrowth(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "probe-evict-grow")
	lr := func(name string) *corev1.LimitRange {
		return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer}}}}
	}
	first, err := cs.CoreV1().LimitRanges(ns).Create(ctx, lr("first"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(80 * time.Second) // older than the cache's fresh duration (75 s)
	for i := 0; i < 300; i++ {
		if _, err := cs.CoreV1().LimitRanges(ns).Create(ctx, lr(fmt.Sprintf("burst-%03d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rep, r := probeMetrics(t, shared.Kubeconfig, "limitranges", "-n", ns)
	if r.Code != 0 || !rep.Found || rep.Metrics == nil {
		t.Fatalf("exit %d found %v metrics %+v: %s", r.Code, rep.Found, rep.Metrics, r.Stderr)
	}
	m := rep.Metrics
	t.Logf("window from %s (first limitrange at %s); metrics: capacity %v (+%v -%v) received %v inits %v: %s: %s",
		rep.OldestResourceVersion, first.ResourceVersion, deref(m.Capacity), deref(m.CapacityIncreases), deref(m.CapacityDecreases), deref(m.EventsReceived), deref(m.Initializations), m.Limit, m.LimitText)
	// The server's own answer: a watch from the first limitrange's RV is
	// refused, and its 410 names the probe's bound.
	line := rawWatchFirst(t, cs, "/api/v1/namespaces/"+ns+"/limitranges", first.ResourceVersion)
	if named := namedOldest(t, line); named != rep.OldestResourceVersion {
		t.Fatalf("the server names %s as the oldest RV, the probe %s", named, rep.OldestResourceVersion)
	}
	for _, claim := range []string{"no event was evicted", "nothing was evicted", "holds the last"} {
		if strings.Contains(m.LimitText, claim) {
			t.Errorf("the counters' text says %q, yet the window starts after an evicted event: %s", claim, m.LimitText)
		}
	}
	if deref(m.EventsReceived) >= deref(m.Capacity) || deref(m.CapacityIncreases) < 1 {
		t.Fatalf("the counters are not the case of the issue (fewer events than the capacity, which grew): %+v", m)
	}
	if m.Limit != metrics.LimitUndetermined || !strings.Contains(m.LimitText, "RV "+rep.OldestResourceVersion) {
		t.Errorf("want %s naming the measured bound, got %s: %s", metrics.LimitUndetermined, m.Limit, m.LimitText)
	}
}

// TestProbeMetricsNoSampleIsInTheJSON (fresh user try 20 #10): on a real
// kube-apiserver v1.37.2, the counter families with no series at all for
// any resource (no watcher terminated, no capacity changed since the
// server started: the harness's own read of /metrics says which) are
// registered by that version: the human block says "no sample" and 0, and
// -o json carries the same: the number 0 in the field and the family in
// noSample; notExposed names nothing.
func TestProbeMetricsNoSampleIsInTheJSON(t *testing.T) {
	_, ns := newNamespace(t, shared, "probe-metrics-nosample")
	raw, err := metrics.Parse(strings.NewReader(readMetrics(t, shared)))
	if err != nil {
		t.Fatal(err)
	}
	rep, r := probeMetrics(t, shared.Kubeconfig, "configmaps", "-n", ns)
	if r.Code != 0 || rep.Metrics == nil || rep.Metrics.Note != "" {
		t.Fatalf("exit %d, metrics %+v; stderr %s", r.Code, rep.Metrics, r.Stderr)
	}
	human := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--metrics")
	m := rep.Metrics
	none := 0
	for _, c := range []struct {
		family, line, says string
		value              *float64
	}{
		{metrics.FamilyTerminatedWatchers, "Terminated watchers:", "0 (no sample: none terminated since the server started)", m.TerminatedWatchers},
		{metrics.FamilyCapacityIncreases, "Capacity changes:", "none (no sample", m.CapacityIncreases},
		{metrics.FamilyCapacityDecreases, "Capacity changes:", "none (no sample", m.CapacityDecreases},
	} {
		if len(raw[c.family].GetMetric()) > 0 {
			continue // the server counted some: not this test's case
		}
		none++
		if c.value == nil || *c.value != 0 || !m.ReadAsZero(c.family) {
			t.Errorf("%s has no series on the server: JSON value %v, noSample %v; want 0 and named", c.family, c.value, m.NoSample)
		}
		if !strings.Contains(human.Stdout, c.line) || !strings.Contains(human.Stdout, c.says) {
			t.Errorf("%s: want %q %q:\n%s", c.family, c.line, c.says, human.Stdout)
		}
	}
	if none == 0 {
		t.Skip("every family of the case has series on this server")
	}
	if len(m.NotExposed) > 0 {
		t.Errorf("notExposed %v on a v1.37.2 with its watch cache", m.NotExposed)
	}
}
