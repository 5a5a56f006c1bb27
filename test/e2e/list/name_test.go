//go:build e2e

package list

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// list takes RESOURCE NAME and RESOURCE/NAME as watch does (issue 16, item
// 24: "list cm/a" said to give "cm a", which then failed with "expected one
// RESOURCE"). NAME narrows the list by metadata.name, escaped, so a name
// with ',' or '=' stays one term.
func TestListTakesTypeAndName(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "list-name")
	for _, name := range []string{"a", "b", "c"} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"configmaps/a"}, {"configmaps", "a"}, {"cm", "a"}, {"cm/a", "--rv-only"}} {
		got := runListJSON(t, shared.Kubeconfig, append(args, "-n", ns)...)
		if got.ItemCount != 1 || got.MaxItemResourceVersion == "" || got.ResourceVersion == "" {
			t.Fatalf("list %v: want the one object a, got %d item(s) (RV %q, newest item %q)", args, got.ItemCount, got.ResourceVersion, got.MaxItemResourceVersion)
		}
	}
	// What kubectl shows for one object is its own RV, not "" (fresh
	// user try 17: the collection's words were printed for a NAME).
	if r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "a", "-n", ns); r.Code != 0 || strings.Contains(r.Stdout, `kubectl get -o json shows ""`) || !strings.Contains(r.Stdout, "the object's own metadata.resourceVersion") {
		t.Fatalf("list cm a: exit %d:\n%s", r.Code, r.Stdout)
	}
	// One term: "b,metadata.namespace=NS" is a name (of no object, so
	// NotFound, exit 9), not a second selector term that would match b.
	if r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "b,metadata.namespace="+ns, "-n", ns); r.Code != 9 {
		t.Fatalf("a name with ',' and '=': exit %d (it was split into selector terms?): %s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "cm/a", "b"}, "not both"},
		{[]string{"list", "cm", "a", "--field-selector", "metadata.name=b"}, "both select metadata.name"},
		{[]string{"list", "cm", "a", "b"}, "expected one RESOURCE and an optional NAME"},
	} {
		r := framework.Run(t, shared.Kubeconfig, time.Minute, append(c.args, "-n", ns)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, c.want) {
			t.Fatalf("%v: exit %d, want 2 with %q: %s", c.args, r.Code, c.want, r.Stderr)
		}
	}
}

// Issue 25 E25: a NAME the list does not find is kubectl's NotFound
// (exit 9, one line naming it), in the namespace, across namespaces, for a
// cluster-scoped resource, and with -o json (nothing on stdout, as kubectl).
func TestListNameNotFound(t *testing.T) {
	_, ns := newNamespace(t, shared, "list-notfound")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "cm", "nosuch", "-n", ns}, `configmaps "nosuch" not found in namespace ` + ns},
		{[]string{"list", "cm/nosuch", "-n", ns, "--rv-only"}, `configmaps "nosuch" not found in namespace ` + ns},
		{[]string{"list", "cm", "nosuch", "-A", "-o", "json"}, `configmaps "nosuch" not found in any namespace`},
		{[]string{"list", "namespaces", "nosuch"}, `namespaces "nosuch" not found (`},
	} {
		r := framework.Run(t, shared.Kubeconfig, time.Minute, c.args...)
		line := strings.TrimSpace(r.Stderr)
		if r.Code != 9 || r.Stdout != "" || strings.Contains(line, "\n") || !strings.HasPrefix(line, "error: ") || !strings.Contains(line, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 9 and one line with %q", c.args, r.Code, r.Stdout, r.Stderr, c.want)
		}
	}
	// A name that exists is found, of course.
	if r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "namespaces", ns); r.Code != 0 {
		t.Errorf("list namespaces %s: exit %d %s", ns, r.Code, r.Stderr)
	}
}

// Issue 25 C8: --rv-only reads one item; with a label selector (or a NAME
// across namespaces) the answer carries a continue token and no
// remainingItemCount, so the collection's size is unknown and said so,
// never "1 in the collection" when two match.
func TestRVOnlyTotalUnknownWithASelector(t *testing.T) {
	cs, ns := newNamespace(t, shared, "list-total")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("a", map[string]string{"app": "demo"})
	w.Create("b", map[string]string{"app": "demo"})
	w.Create("c", nil)
	_, other := newNamespace(t, shared, "list-total-2")
	framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: other}.Create("a", nil)
	for _, args := range [][]string{{"cm", "-n", ns, "-l", "app=demo"}, {"cm/a", "-A"}} {
		r := framework.Run(t, shared.Kubeconfig, time.Minute, append([]string{"list", "--rv-only"}, args...)...)
		if r.Code != 0 || strings.Contains(r.Stdout, "in the collection\n") || !strings.Contains(r.Stdout, "how many are in the collection is unknown") {
			t.Errorf("list --rv-only %v: exit %d:\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		if got := runListJSON(t, shared.Kubeconfig, append([]string{"--rv-only"}, args...)...); got.EstimatedTotal != nil {
			t.Errorf("list --rv-only %v -o json: estimatedTotal %d claimed without a count", args, *got.EstimatedTotal)
		}
	}
	// Without a selector the server counts: the total is known.
	if got := runListJSON(t, shared.Kubeconfig, "cm", "-n", ns, "--rv-only"); got.EstimatedTotal == nil || *got.EstimatedTotal != 3 {
		t.Errorf("list --rv-only without a selector: estimatedTotal %v, want 3", got.EstimatedTotal)
	}
}

// Issue 25 F34: a cluster-scoped resource says so, and that -n is ignored
// (as kubectl does); -A says all namespaces; the Server line is one short
// line.
func TestListScopeTexts(t *testing.T) {
	_, ns := newNamespace(t, shared, "list-scope")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "namespaces", "-n", ns}, `(?m)^Namespace: +- \(namespaces is cluster-scoped; -n ` + ns + ` is ignored, as kubectl does\)$`},
		{[]string{"list", "namespaces"}, `(?m)^Namespace: +- \(namespaces is cluster-scoped\)$`},
		{[]string{"list", "cm", "-A"}, `(?m)^Namespace: +\(all\)$`},
	} {
		r := framework.Run(t, shared.Kubeconfig, time.Minute, c.args...)
		if r.Code != 0 || !regexp.MustCompile(c.want).MatchString(r.Stdout) || (c.args[1] == "namespaces" && strings.Contains(r.Stdout, "(all)")) {
			t.Errorf("%v: exit %d, want %q:\n%s%s", c.args, r.Code, c.want, r.Stdout, r.Stderr)
		}
		for _, l := range strings.Split(r.Stdout, "\n") {
			if strings.HasPrefix(l, "Server:") && len(l) > 120 {
				t.Errorf("%v: a Server line of %d characters: %s", c.args, len(l), l)
			}
		}
	}
	// Every other command that reads a cluster-scoped resource says the
	// same of -n, once, on stderr (its stdout stays the result).
	for _, args := range [][]string{
		{"watch", "namespaces", "-n", ns, "--max-events", "1"},
		{"probe", "namespaces", "-n", ns},
		{"probe", "namespaces", "-n", ns, "-o", "json"},
		{"streaming", "namespaces", "-n", ns},
		{"explain-error", "too old resource version: 1 (2)", "--resource", "namespaces", "-n", ns, "--check"},
	} {
		r := framework.Run(t, shared.Kubeconfig, time.Minute, args...)
		note := "Note: namespaces is cluster-scoped; -n " + ns + " is ignored, as kubectl does"
		if strings.Count(r.Stderr, note) != 1 || strings.Contains(r.Stdout, note) {
			t.Errorf("%v: exit %d, want %q once on stderr:\nstdout:\n%s\nstderr:\n%s", args, r.Code, note, r.Stdout, r.Stderr)
		}
	}
	// --rv 0: "possibly stale" once.
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv", "0")
	if n := strings.Count(r.Stdout, "stale"); r.Code != 0 || n != 1 {
		t.Errorf("list --rv 0 says stale %d times (exit %d):\n%s", n, r.Code, r.Stdout)
	}
	// A user who may list configmaps but not read /metrics: the Server
	// line stays one short line, the reason goes to a note on stderr.
	cs, _ := shared.Clientset(0)
	framework.GrantConfigMapReading(t, cs, ns, "nobody")
	u := framework.Run(t, shared.UserKubeconfig, time.Minute, "list", "cm", "-n", ns)
	server := regexp.MustCompile(`(?m)^Server: .*$`).FindString(u.Stdout)
	if u.Code != 0 || server == "" || len(server) > 120 || !strings.Contains(server, "see the note") || !strings.Contains(u.Stderr, "Note: /metrics is forbidden to this user") {
		t.Errorf("list as a user without /metrics: exit %d, Server line of %d characters %q, stderr %q", u.Code, len(server), server, u.Stderr)
	}
}
