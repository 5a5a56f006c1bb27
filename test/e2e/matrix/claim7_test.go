//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Claim 7: kubectl's discovery disk cache is keyed by address only. A
// v1.37 API server, started on this v1.30 cell's etcd, answers at an
// address (a link) while one run fills the cache of a HOME; then the same
// address leads to the cell's own v1.30 server. probe --all in that HOME
// must probe what v1.30 serves, not the cached v1.37 list (13 resources
// it does not serve, each a failed row). One extra API server start.
var checkStaleDiscovery = claimCheck{"claim7-stale-discovery", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	newer, err := c.AddAPIServer(ctx, framework.APIServerOptions{Version: "v1.37"})
	if err != nil {
		t.Fatal(err)
	}
	link, err := framework.StartPausableLink(hostPort(t, newer.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	home := t.TempDir()
	kcNewer, err := c.WriteKubeconfigFor("claim7-newer.kubeconfig", "https://"+link.Addr(), newer.CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	if r := framework.RunInHome(t, home, kcNewer, nil, time.Minute, "list", "configmaps", "-n", "default", "--rv-only"); r.Code != 0 {
		t.Fatalf("filling the discovery cache from v1.37: exit %d: %s", r.Code, r.Stderr)
	}
	c.StopAPIServer(newer.Index)
	if err := link.Retarget(hostPort(t, c.APIServers[0].URL)); err != nil {
		t.Fatal(err)
	}
	kc, err := c.WriteKubeconfigFor("claim7.kubeconfig", "https://"+link.Addr(), c.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	served := servedListable(t, c)
	r := framework.RunInHome(t, home, kc, nil, 3*time.Minute, "probe", "--all", "-n", "default", "--qps", "100", "-o", "json")
	var got struct {
		Resources []struct {
			Resource string `json:"resource"`
			Reason   string `json:"reason"`
			Error    string `json:"error"`
		} `json:"resources"`
		Failed int `json:"failed"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("probe --all: exit %d, not JSON (%v): %s", r.Code, err, r.Stderr)
	}
	var probed, failed []string
	for _, row := range got.Resources {
		probed = append(probed, row.Resource)
		if row.Error != "" {
			failed = append(failed, row.Resource+" ("+row.Reason+")")
		}
	}
	sort.Strings(probed)
	t.Logf("probe --all after v1.37 -> v1.30 at %s: exit %d, %d resources, %d failed in %s", link.Addr(), r.Code, len(probed), got.Failed, r.Duration.Round(time.Millisecond))
	if r.Code != 0 || len(failed) > 0 || strings.Join(probed, " ") != strings.Join(served, " ") {
		t.Errorf("probe --all with a v1.37 discovery cache on v1.30: exit %d, failed %v; probed %d resources, the server serves %d: %v; stderr: %s",
			r.Code, failed, len(probed), len(served), difference(probed, served), r.Stderr)
	}
}}

// servedListable is every resource the cell's server serves that supports
// list and watch, from its own discovery (no cache), by name.
func servedListable(t *testing.T, c *framework.Cluster) []string {
	t.Helper()
	cs, err := c.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := apiclient.ListableResources(cs.Discovery(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res {
		names = append(names, r.Name())
	}
	sort.Strings(names)
	return names
}

// difference names what is in a and not in b, and the other way round.
func difference(a, b []string) string {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	var onlyA, onlyB []string
	for _, x := range a {
		if !ib[x] {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !ia[x] {
			onlyB = append(onlyB, x)
		}
	}
	return "probed but not served: " + strings.Join(onlyA, ", ") + "; served but not probed: " + strings.Join(onlyB, ", ")
}

func hostPort(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
