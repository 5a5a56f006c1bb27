//go:build e2e

package ha

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// notOlderThanList lists configmaps of ns on server i with
// resourceVersion=rv&resourceVersionMatch=NotOlderThan, by a plain
// http.Client: client-go would retry a 504 that carries Retry-After.
func notOlderThanList(t *testing.T, i int, ns string, rv int64) (int, string, time.Duration) {
	t.Helper()
	cfg := shared.Cluster.RESTConfig(i)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u := fmt.Sprintf("%s/api/v1/namespaces/%s/configmaps?resourceVersion=%d&resourceVersionMatch=NotOlderThan", cfg.Host, ns, rv)
	start := time.Now()
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatalf("server %d: GET %s: %v", i, u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), time.Since(start)
}

func createConfigMap(t *testing.T, ctx context.Context, i int, ns, name string) int64 {
	t.Helper()
	cs, err := shared.Cluster.Clientset(i)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s/%s through server %d: %v", ns, name, i, err)
	}
	rv, err := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

var currentRE = regexp.MustCompile(`Too large resource version: (\d+), current: (\d+)`)

// With its etcd link paused, the lagging server's watch cache stays where it
// was while the others follow the writes: its rv=0 list reports an older RV,
// and a NotOlderThan list at the others' RV fails with 504 "Too large
// resource version" after the cacher's ~3 s wait (where a healthy server
// answers 200). Resumed, it catches up and answers 200 too.
func TestPausedEtcdLinkMakesWatchCacheFallBehind(t *testing.T) {
	h := shared
	ctx := context.Background()
	healthy := 0
	cs, err := h.Cluster.Clientset(healthy)
	if err != nil {
		t.Fatal(err)
	}
	ns := "ha-lag"
	if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	settled := createConfigMap(t, ctx, healthy, ns, "before-pause")
	for i := range h.Cluster.APIServers {
		if _, err := h.WaitConfigMapCacheRV(ctx, i, ns, settled, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}

	link := h.EtcdLink(lagging)
	link.Pause()
	t.Cleanup(link.Resume)
	paused := time.Now()
	first := createConfigMap(t, ctx, healthy, ns, "during-pause-0")
	var last int64
	for k := 1; k < 5; k++ {
		last = createConfigMap(t, ctx, healthy, ns, fmt.Sprintf("during-pause-%d", k))
	}
	for i := range h.Cluster.APIServers {
		if i == lagging {
			continue
		}
		got, err := h.WaitConfigMapCacheRV(ctx, i, ns, last, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("server %d (healthy): rv=0 list at RV %d", i, got)
	}
	behind, err := h.ConfigMapCacheRV(ctx, lagging, ns)
	if err != nil {
		t.Fatalf("rv=0 list on the lagging server: %v", err)
	}
	t.Logf("server %d (paused): rv=0 list at RV %d; writes during the pause at RVs %d..%d", lagging, behind, first, last)
	if behind >= first {
		t.Fatalf("the paused server's cache is at RV %d, not behind the first write of the pause (%d)", behind, first)
	}

	code, body, took := notOlderThanList(t, lagging, ns, last)
	t.Logf("server %d (paused): NotOlderThan %d: HTTP %d after %s: %s", lagging, last, code, took.Round(time.Millisecond), strings.TrimSpace(body))
	if code != http.StatusGatewayTimeout || !strings.Contains(body, "Too large resource version") {
		t.Fatalf("the paused server answered a NotOlderThan list at RV %d with HTTP %d %s, want 504 Too large resource version", last, code, body)
	}
	if m := currentRE.FindStringSubmatch(body); m == nil || m[1] != strconv.FormatInt(last, 10) {
		t.Errorf("the 504 does not name the RV asked for (%d): %s", last, body)
	} else if cur, _ := strconv.ParseInt(m[2], 10, 64); cur >= first {
		t.Errorf("the 504 says the server is at %d, not behind the pause's first write %d", cur, first)
	}
	if code, body, _ := notOlderThanList(t, 1, ns, last); code != http.StatusOK {
		t.Fatalf("healthy server 1 answered the same NotOlderThan list with HTTP %d %s", code, body)
	}

	link.Resume()
	t.Logf("etcd link of server %d paused for %s", lagging, time.Since(paused).Round(time.Millisecond))
	resumed := time.Now()
	caught, err := h.WaitConfigMapCacheRV(ctx, lagging, ns, last, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server %d caught up to RV %d in %s after resuming", lagging, caught, time.Since(resumed).Round(time.Millisecond))
	if code, body, _ := notOlderThanList(t, lagging, ns, last); code != http.StatusOK {
		t.Fatalf("after resuming, the lagging server answered HTTP %d %s", code, body)
	}
}
