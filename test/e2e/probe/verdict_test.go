//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Issue 25 item 7: a forbidden row is not "unknown": a user who may list
// configmaps but not watch them gets SOURCE forbidden and a verdict that
// says so, and exit 7.
func TestProbeForbiddenWatchSaysForbidden(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "probe-no-watch")
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "list-only"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "list-only"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "list-only"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "nobody", APIGroup: "rbac.authorization.k8s.io"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var h framework.Result
	for i := 0; i < 20; i++ { // RBAC reaches the authorizer's cache within a moment
		h = framework.Run(t, shared.UserKubeconfig, time.Minute, "probe", "configmaps", "-n", ns)
		if strings.Contains(h.Stdout, "configmaps") {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if h.Code != 7 || sourceOf(h.Stdout) != "forbidden" || !strings.Contains(lineStarting(h.Stdout, "Answered by:"), "forbidden") || strings.Contains(h.Stdout, "nothing has expired") {
		t.Fatalf("exit %d; a watch refused 403 after the list worked:\n%s\n%s", h.Code, h.Stdout, h.Stderr)
	}
	j := framework.Run(t, shared.UserKubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "-o", "json")
	var rep render.ProbeReport
	if err := json.Unmarshal([]byte(j.Stdout), &rep); err != nil || j.Code != 7 {
		t.Fatalf("exit %d, %v: %s", j.Code, err, j.Stdout)
	}
	if !rep.Answer.Forbidden || !rep.Answer.NoAnswer || rep.Reason != "Forbidden" || rep.Found {
		t.Fatalf("JSON: %+v", rep)
	}
}

// sourceOf is the SOURCE cell of a probe table's first row.
func sourceOf(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "RESOURCE") && i+1 < len(lines) {
			col := strings.Index(l, " SOURCE") + 1
			if f := strings.Fields(lines[i+1][col:]); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

func lineStarting(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
