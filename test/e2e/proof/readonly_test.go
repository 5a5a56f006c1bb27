//go:build e2e

package proof

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// readOnlyInvocations is every command in every mode and flag family. Each
// must finish on its own (bounded), whatever its exit code: the point here
// is what it asked the server for.
func readOnlyInvocations(ns, rv string) [][]string {
	return [][]string{
		{"version"},
		{"list", "configmaps", "-n", ns},
		{"list", "cm", "-n", ns, "--rv-only", "-o", "json"},
		{"list", "cm", "-A", "--limit", "2", "-o", "wide"},
		{"list", "cm", "-n", ns, "-l", "app=proof", "--field-selector", "metadata.name=a", "-o", "yaml"},
		{"list", "cm", "-n", ns, "--rv", rv, "--rv-match", "Exact"},
		{"list", "cm", "-n", ns, "--rv", "0"},
		{"list", "cm", "-n", ns, "--rv", rv, "--rv-match", "NotOlderThan", "--no-restart"},
		{"list", "namespaces"},
		{"watch", "cm", "-n", ns, "--timeout", "2s"},
		{"watch", "cm", "-n", ns, "--rv", "0", "--timeout", "2s", "-o", "json"},
		{"watch", "cm", "-n", ns, "--rv", rv, "--timeout", "2s", "--bookmarks"},
		{"watch", "cm", "-n", ns, "--rv", "list", "--timeout", "2s", "-o", "yaml"},
		{"watch", "cm", "-n", ns, "--send-initial-events", "--until", "BOOKMARK", "--timeout", "5s"},
		{"watch", "cm", "a", "-n", ns, "--timeout", "2s"},
		{"watch", "cm", "-n", ns, "-l", "app=proof", "--explain-deletes", "--timeout", "2s"},
		{"watch", "cm", "-A", "--max-events", "3", "--timeout", "5s"},
		{"watch", "cm", "-n", ns, "--follow", "--timeout", "3s"},
		{"watch", "cm", "-n", ns, "--follow", "--stall-timeout", "1s", "--timeout", "3s", "-o", "json"},
		{"watch", "cm", "-n", ns, "--rv", "999999999", "--timeout", "2s"},
		{"probe", "configmaps", "-n", ns, "-v", "--verify"},
		{"probe", "cm", "-n", ns, "--future", "-o", "json"},
		{"probe", "--all", "--max-requests", "8"},
		{"probe", "cm", "-n", ns, "--interval", "1s", "--duration", "2s"},
		{"explain-error", "too old resource version: 2 (211)"},
		{"explain-error", "--check", "--rv", "2", "too old resource version: 2 (211)"},
	}
}

// TestPluginOnlyReads runs every command against the server with an audit
// policy at level Metadata, then reads the audit log: every request made
// with the plugin's User-Agent must be a get, list or watch.
func TestPluginOnlyReads(t *testing.T) {
	ctx := context.Background()
	cs, ns := framework.Namespace(t, shared, "proof-readonly")
	var rv string
	for _, name := range []string{"a", "b"} {
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "proof"}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rv = cm.ResourceVersion
	}
	// The runs only read and are independent: side by side (-parallel),
	// all done before the audit log is read.
	t.Run("runs", func(t *testing.T) {
		for i, args := range readOnlyInvocations(ns, rv) {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, args...)
				t.Logf("exit %d in %s: kubectl watchrv %s", r.Code, r.Duration.Round(time.Millisecond), strings.Join(args, " "))
			})
		}
	})
	ua := "kubectl-watchrv/" + framework.PluginVersion
	verbs := map[string]int{}
	var writes []string
	for _, e := range framework.ReadAudit(t, shared.APIServers[0].AuditLog) {
		if !strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") {
			continue
		}
		if e.UserAgent != ua {
			t.Errorf("unexpected plugin User-Agent %q", e.UserAgent)
		}
		verbs[e.Verb]++
		switch e.Verb {
		case "get", "list", "watch":
		default:
			writes = append(writes, e.Verb+" "+e.RequestURI)
		}
	}
	if len(writes) > 0 {
		sort.Strings(writes)
		t.Fatalf("the plugin made %d requests that are not get/list/watch:\n%s", len(writes), strings.Join(writes, "\n"))
	}
	for _, v := range []string{"get", "list", "watch"} {
		if verbs[v] == 0 {
			t.Fatalf("no %s request from the plugin in the audit log: the audit proof saw nothing (verbs seen: %v)", v, verbs)
		}
	}
	t.Logf("plugin requests by verb: %v", verbs)
}
