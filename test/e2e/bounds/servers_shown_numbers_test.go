//go:build e2e

package bounds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestEveryRVOfTheServersVerdictIsOneTheRowsShow (fresh user try 21 F1):
// on a real kube-apiserver without a watch cache, with writes going on,
// the rv=0 list (read last) returns an RV above the consistent list's,
// which the row hides (CACHE RV none: storage's, no cache's). The verdict's
// range, the reconnect RV and the -o json bound are each an RV some row
// shows (CURRENT RV, CACHE RV, OLDEST RV), never the hidden one.
func TestEveryRVOfTheServersVerdictIsOneTheRowsShow(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	cs, err := c.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "shown-rvs"
	if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	go func() { // a background writer: every write moves etcd's revision
		for k := 0; ctx.Err() == nil; k++ {
			_, _ = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w-%d", k)}}, metav1.CreateOptions{})
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// Storage compacted: the probe's 410s come from storage, the sign
	// that the server has no watch cache (CACHE RV none).
	time.Sleep(500 * time.Millisecond)
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rev-2); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(c.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	rangeRE := regexp.MustCompile(`\[(\d+), (\d+)\]`)
	reconnectRE := regexp.MustCompile(`Reconnect from RV (\d+)`)
	for round := 0; round < 3; round++ {
		r := framework.Run(t, c.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--endpoints", u.Host)
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		row := lineOf(r.Stdout, "1 "+u.Host)
		shown := map[string]bool{}
		for _, f := range strings.Fields(row) {
			shown[f] = true
		}
		var said []string
		if m := rangeRE.FindStringSubmatch(lineOf(r.Stdout, "Every server:")); m != nil {
			said = append(said, m[1], m[2])
		}
		if m := reconnectRE.FindStringSubmatch(r.Stdout); m != nil {
			said = append(said, m[1])
		}
		if len(said) == 0 {
			t.Fatalf("no range nor reconnect RV in the verdict:\n%s", r.Stdout)
		}
		for _, n := range said {
			if !shown[n] {
				t.Errorf("the verdict says RV %s, which the row %q does not show:\n%s", n, row, r.Stdout)
			}
		}
		j := framework.Run(t, c.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--endpoints", u.Host, "-o", "json")
		var doc struct {
			Servers []struct {
				Current    uint64 `json:"currentResourceVersion,string"`
				WatchCache string `json:"watchCache"`
			} `json:"servers"`
			Verdict struct {
				CommonTo uint64 `json:"commonTo"`
			} `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || len(doc.Servers) != 1 {
			t.Fatalf("-o json: exit %d, %v:\n%s", j.Code, err, j.Stdout)
		}
		if s := doc.Servers[0]; s.WatchCache != "off" || doc.Verdict.CommonTo != s.Current || !strings.Contains(row, " none ") {
			t.Errorf("-o json: commonTo %d, the row's current RV %s (watch cache %s): want a server without one, and the same RV\n%s", doc.Verdict.CommonTo, strconv.FormatUint(s.Current, 10), s.WatchCache, r.Stdout)
		}
	}
}

// lineOf is the first line of out that starts with prefix ("" if none).
func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return l
		}
	}
	return ""
}
