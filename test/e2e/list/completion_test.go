//go:build e2e

package list

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Completion on a real server (issue 25, F31), through cobra's __complete
// as the shells and kubectl's plugin completion call it: namespaces after
// -n (not files), object names after "list/watch TYPE" and after "TYPE/",
// resource types, kubeconfig names, and the values of every fixed-value
// flag.
func TestCompletionAgainstARealServer(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "complete")
	for _, n := range []string{"alpha", "alpine", "beta"} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kc := []string{"--kubeconfig", shared.Kubeconfig}
	complete := func(words ...string) ([]string, string) {
		t.Helper()
		r := framework.Run(t, "", time.Minute, append([]string{"__complete"}, words...)...)
		if r.Code != 0 {
			t.Fatalf("__complete %v: exit %d: %s", words, r.Code, r.Stderr)
		}
		out := strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n")
		directive := out[len(out)-1]
		var got []string
		for _, l := range out[:len(out)-1] {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		return got, directive
	}
	// with puts the kubeconfig right after the command: the word completed
	// is the last one.
	with := func(kc []string, cmd string, rest ...string) []string {
		return append(append([]string{cmd}, kc...), rest...)
	}
	const noFiles = ":4" // cobra.ShellCompDirectiveNoFileComp
	cases := []struct {
		words []string
		want  []string // all of these, exactly when exact
		exact bool
		files bool // the shell's file completion (the default directive)
	}{
		{with(kc, "list", "cm", "-n", ns, "al"), []string{"alpha", "alpine"}, true, false},
		{with(kc, "watch", "configmaps", "-n", ns, ""), []string{"alpha", "alpine", "beta"}, true, false},
		{with(kc, "list", "-n", ns, "cm/al"), []string{"cm/alpha", "cm/alpine"}, true, false},
		{with(kc, "list", "cm", "-A", "bet"), []string{"beta"}, false, false},
		{with(kc, "list", "-n", ""), []string{ns, "default", "kube-system"}, false, false},
		{with(kc, "probe", "-n", "kube-"), []string{"kube-system"}, false, false},
		{with(kc, "list", "config"), []string{"configmaps"}, false, false},
		{with(kc, "streaming", "config"), []string{"configmaps"}, false, false},
		{with(kc, "explain-error", "--check", "--resource", "config"), []string{"configmaps"}, false, false},
		{with(kc, "list", "cm", "--context", ""), []string{"watchrv-e2e"}, true, false},
		{[]string{"watch", "cm", "--until", ""}, []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}, true, false},
		{[]string{"list", "cm", "--rv-match", ""}, []string{"NotOlderThan", "Exact"}, true, false},
		{[]string{"watch", "cm", "--rv", ""}, []string{"0", "list"}, true, false},
		{[]string{"explain-error", "--operation", "list"}, []string{"list", "list-exact", "list-continue"}, true, false},
		{[]string{"list", "cm", "-o", ""}, []string{"wide", "json", "yaml", "name", "jsonpath=", "go-template="}, false, false},
		{[]string{"watch", "cm", "-o", "j"}, []string{"json", "jsonpath=", "jsonpath-file="}, true, false},
		{[]string{"probe", "cm", "-o", "n"}, nil, true, false},
		{[]string{"list", "cm", "--limit", ""}, nil, true, false},
		{[]string{"clients", "-f", ""}, nil, true, true},
		{[]string{"completion", ""}, []string{"kubectl", "bash", "zsh", "fish", "powershell"}, true, false},
	}
	for _, c := range cases {
		got, directive := complete(c.words...)
		if got == nil {
			got = []string{}
		}
		missing := false
		for _, w := range c.want {
			missing = missing || !slices.Contains(got, w)
		}
		if missing || (c.exact && len(got) != len(c.want)) {
			t.Errorf("__complete %v: %q, want %q (exact %v)", c.words, got, c.want, c.exact)
		}
		if c.files != (directive != noFiles) {
			t.Errorf("__complete %v: directive %s; files wanted: %v", c.words, directive, c.files)
		}
	}
}
