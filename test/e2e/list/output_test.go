//go:build e2e

package list

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// kubectl's output habits on a real server (issue 25, F30): -o name prints
// TYPE/NAME of every object read (list) or carried by an event (watch);
// -o jsonpath and go-template see the -o json document (each line's, for
// watch); a bad template is one line and exit 2.
func TestOutputNamesAndTemplates(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "output")
	names := []string{"a", "b", "c"}
	for _, n := range names {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kc := shared.Kubeconfig
	lines := func(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

	// -o name: every object, over pages too (--limit 2 reads two pages).
	r := framework.Run(t, kc, time.Minute, "list", "cm", "-n", ns, "-o", "name", "--limit", "2")
	if want := []string{"configmap/a", "configmap/b", "configmap/c"}; r.Code != 0 || !slices.Equal(lines(r.Stdout), want) {
		t.Fatalf("list -o name: exit %d, %q; want %q (%s)", r.Code, r.Stdout, want, r.Stderr)
	}
	// The same names kubectl's NamePrinter gives a group's type.
	r = framework.Run(t, kc, time.Minute, "list", "leases.coordination.k8s.io", "-n", "kube-system", "-o", "name")
	for _, l := range lines(r.Stdout) {
		if r.Code != 0 || (l != "" && !strings.HasPrefix(l, "lease.coordination.k8s.io/")) {
			t.Fatalf("list leases -o name: exit %d, %q (%s)", r.Code, r.Stdout, r.Stderr)
		}
	}

	// jsonpath and go-template over the -o json document.
	var doc struct {
		ResourceVersion string `json:"resourceVersion"`
		ItemCount       int    `json:"itemCount"`
	}
	j := framework.Run(t, kc, time.Minute, "list", "cm", "-n", ns, "-o", "json")
	if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || doc.ItemCount != 3 {
		t.Fatalf("list -o json: %v: %s", err, j.Stdout)
	}
	for _, c := range []struct{ args, want string }{
		{"jsonpath={.itemCount}", "3"},
		{"jsonpath={.itemCount} {.pages}{\"\\n\"}", "3 1\n"},
		{"go-template={{.itemCount}}/{{len .pageDetails}}", "3/1"},
	} {
		r := framework.Run(t, kc, time.Minute, "list", "cm", "-n", ns, "-o", c.args)
		if r.Code != 0 || r.Stdout != c.want {
			t.Errorf("list -o %s: exit %d, %q, want %q (%s)", c.args, r.Code, r.Stdout, c.want, r.Stderr)
		}
	}
	tmpl := t.TempDir() + "/rv.tmpl"
	if err := os.WriteFile(tmpl, []byte("{{.resourceVersion}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-o", "go-template-file=" + tmpl}, {"--template", "{{.resourceVersion}}"}, {"-o", "go-template", "--template", "{{.resourceVersion}}"}} {
		r := framework.Run(t, kc, time.Minute, append([]string{"list", "cm", "-n", ns}, args...)...)
		rv, _ := strconv.Atoi(r.Stdout)
		if want, _ := strconv.Atoi(doc.ResourceVersion); r.Code != 0 || rv < want || want == 0 {
			t.Errorf("list %v: exit %d, %q: want an RV of at least %s (%s)", args, r.Code, r.Stdout, doc.ResourceVersion, r.Stderr)
		}
	}

	// watch: the state then the changes; -o name names each object, a
	// template applies to each line's document.
	r = framework.Run(t, kc, time.Minute, "watch", "cm", "-n", ns, "--timeout", "2s", "-o", "name")
	if want := []string{"configmap/a", "configmap/b", "configmap/c"}; r.Code != 0 || !slices.Equal(lines(r.Stdout), want) {
		t.Fatalf("watch -o name: exit %d, %q; want %q (%s)", r.Code, r.Stdout, want, r.Stderr)
	}
	r = framework.Run(t, kc, time.Minute, "watch", "cm", "-n", ns, "--timeout", "2s", "-o", `go-template={{if eq .record "event"}}{{.type}} {{.name}}{{"\n"}}{{end}}`)
	if want := []string{"ADDED a", "ADDED b", "ADDED c"}; r.Code != 0 || !slices.Equal(lines(r.Stdout), want) {
		t.Fatalf("watch -o go-template: exit %d, %q; want %q (%s)", r.Code, r.Stdout, want, r.Stderr)
	}
	r = framework.Run(t, kc, time.Minute, "watch", "cm", "-n", ns, "--timeout", "2s", "-o", "wide")
	if r.Code != 0 || !strings.Contains(r.Stdout, ns+"/a") {
		t.Fatalf("watch -o wide: exit %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	full, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Stdout, string(full.UID)) {
		t.Errorf("watch -o wide shows the whole UID %s:\n%s", full.UID, r.Stdout)
	}

	// Bad templates and misplaced names: one line, exit 2.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "cm", "-n", ns, "-o", "jsonpath={.itemCount"}, "error parsing jsonpath"},
		{[]string{"list", "cm", "-n", ns, "-o", "go-template={{.itemCount"}, "fix the template"},
		{[]string{"list", "cm", "-n", ns, "-o", "go-template={{index .resource 99}}"}, "the template failed on the output"},
		{[]string{"list", "cm", "-n", ns, "-o", "jsonpath-file=/nonexistent"}, "/nonexistent"},
		{[]string{"list", "cm", "-n", ns, "-o", "name", "--rv-only"}, "-o name prints every object"},
		{[]string{"probe", "cm", "-n", ns, "-o", "name"}, "-o name prints the objects a command reads"},
		{[]string{"watch", "cm", "-n", ns, "--timeout", "2s", "-o", "jsonpath={.x[}"}, "error parsing jsonpath"},
	} {
		r := framework.Run(t, kc, time.Minute, c.args...)
		line := strings.TrimSpace(r.Stderr)
		if r.Code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("%v: exit %d, want 2 and one line with %q: %q", c.args, r.Code, c.want, r.Stderr)
		}
	}
}
