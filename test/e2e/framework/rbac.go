package framework

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// GrantConfigMapReading lets user get, list and watch the configmaps of
// namespace ns, and nothing else (not /metrics): a Role and RoleBinding of
// the harness's own, named after the user. The bootstrap "view" role would
// not do: its rules come from the aggregation controller, which this
// harness (no controller manager) does not run. RBAC reaches the
// authorizer's cache a moment later: a caller that needs it at once retries
// on 403.
func GrantConfigMapReading(t testing.TB, cs kubernetes.Interface, ns, user string) {
	t.Helper()
	ctx := context.Background()
	name := "read-configmaps-" + user
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("role %s in %s: %v", name, ns, err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("role binding %s in %s: %v", name, ns, err)
	}
}
