//go:build e2e

package list

import (
	"context"
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
	// One term: "b,metadata.namespace=NS" is a name (of no object), not a
	// second selector term that would match b.
	if got := runListJSON(t, shared.Kubeconfig, "cm", "b,metadata.namespace="+ns, "-n", ns); got.ItemCount != 0 {
		t.Fatalf("a name with ',' and '=' matched %d object(s): it was split into selector terms", got.ItemCount)
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
