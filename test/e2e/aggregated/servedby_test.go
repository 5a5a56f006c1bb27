//go:build e2e

package aggregated

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Claims of the kube-apiserver's own watch cache and storage (etcd, kine
// and its PrevKv=nil caveat, the storage requests a list cost, its
// WatchList gate) are made only of a resource it serves itself. An
// aggregated API's resource passes through it to another server, whose
// cache and storage the plugin cannot see: every command that names who
// served a request (list, watch, probe, streaming, explain-error --check)
// says so through the one decision (serverinfo.Serves), through the real
// aggregator of a real kube-apiserver (adversary try 20 #6: "Served by:
// storage (etcd, or a shim such as kine)", kine's caveat and "1 storage
// request" for gadgets). The built-in and custom resources of the same
// server keep their watch cache (the control: the claims are not dropped
// for all).
func TestOnlyTheServersOwnResourcesAreSaidServedByItsCacheOrStorage(t *testing.T) {
	// The extension server's 410 carries the watch cache's own words: a
	// watch cache answered, but not the kube-apiserver's.
	agg.Extension.SetExpiry(102, "too old resource version: 50 (102)")
	defer agg.Extension.SetExpiry(0, "")
	claims := []string{"shim such as kine", "etcd, or", "PrevKv", `"storageRequests"`, `"firstPageFrom": "storage"`, `"firstPageFrom": "watch cache"`,
		"watch cache for " + gadgets, "has no watch cache", "the watch cache of this API server", "the watch cache once", "its WatchList feature gate is",
		// list's read semantics and the per-server view (adversary try 21 F8),
		// etcd's compaction and the cacher's TooLarge of the other modes
		// (adversary try 22).
		"quorum read from storage", "follows storage", "every watch cache has seen", "is compacted", "fails with 504 TooLarge"}
	ns := framework.ExtensionNamespace
	host := strings.TrimPrefix(cluster.APIServers[0].URL, "https://")
	for _, args := range [][]string{
		{"list", gadgets, "-n", ns},
		{"list", gadgets, "-A", "-o", "json"},
		{"list", gadgets, "-n", ns, "--rv", "0"},
		{"list", gadgets, "-n", ns, "--rv-only"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--rv-match", "Exact"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--rv-match", "Exact", "--rv-only", "-o", "json"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--limit", "5"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--rv-match", "NotOlderThan"},
		{"list", gadgets, "-n", ns, "--endpoints", host},
		{"probe", gadgets, "-n", ns, "--endpoints", host},
		{"probe", gadgets, "-n", ns, "--endpoints", host, "-o", "json"},
		{"watch", gadgets, "-n", ns, "--rv", "list", "--timeout", "3s"},
		{"watch", gadgets, "-n", ns, "--rv", "99999", "--timeout", "3s"},
		{"watch", gadgets, "-n", ns, "--rv", "list", "--follow", "--timeout", "3s", "-o", "json"},
		{"probe", gadgets, "-n", ns},
		{"probe", gadgets, "-n", ns, "-o", "json"},
		{"streaming", gadgets, "-n", ns},
		{"explain-error", "--check", "-n", ns, "--resource", gadgets, "Timeout: Too large resource version: 99999, current: 103"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := framework.Run(t, cluster.Kubeconfig, 2*time.Minute, args...)
			out := r.Stdout + r.Stderr
			if args[0] == "explain-error" {
				// The diagnosis explains the error's words in general
				// (a watch cache, etcd); only the check names a server.
				_, out, _ = strings.Cut(out, "Checked now")
			}
			for _, c := range claims {
				if strings.Contains(out, c) {
					t.Errorf("exit %d: says %q of an aggregated API's resource:\n%s", r.Code, c, out)
				}
			}
		})
	}
	// Every mode of list's read semantics says the request's meaning, and
	// of who keeps the state only "as the server that serves it gives
	// it", through the one decision, with and without the facts read
	// (--rv-only reads none).
	for _, args := range [][]string{
		{"list", gadgets, "-n", ns},
		{"list", gadgets, "-n", ns, "--rv-only"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--rv-match", "Exact"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--rv-match", "Exact", "--rv-only", "-o", "json"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--limit", "5"},
		{"list", gadgets, "-n", ns, "--rv", "50", "--rv-match", "NotOlderThan"},
	} {
		r := framework.Run(t, cluster.Kubeconfig, 2*time.Minute, args...)
		if want := "as the server that serves " + gadgets + " gives it (not known to be this API server"; !strings.Contains(r.Stdout, want) {
			t.Errorf("%v: exit %d, read semantics without %q:\n%s%s", args, r.Code, want, r.Stdout, r.Stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "configmaps", "-n", "default"}, "the watch cache once it has caught up"},
		{[]string{"list", "events", "-A"}, "this resource has no watch cache on this server"},
		{[]string{"list", "configmaps", "-n", "default", "--rv-only"}, "as of a quorum read from storage"},
		{[]string{"list", "configmaps", "-n", "default", "--rv", "1", "--rv-match", "NotOlderThan"}, "fails with 504 TooLarge if the server has not reached 1"},
	} {
		r := framework.Run(t, cluster.Kubeconfig, 2*time.Minute, c.args...)
		if r.Code != 0 || !strings.Contains(r.Stdout, c.want) {
			t.Errorf("%v: exit %d, want %q of the server's own resource:\n%s%s", c.args, r.Code, c.want, r.Stdout, r.Stderr)
		}
	}
}
