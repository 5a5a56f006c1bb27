package framework

import (
	"context"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// The API Priority and Fairness fixtures make the server answer some
// requests of user "throttled" with a real 429. A priority level with no
// seats of its own, none to borrow, and Reject as its limit response still
// runs one request at a time, so its seats are kept busy by lists at a
// future RV, which the server holds for about 3 s before answering 504.

// RejectAllFlowSchema sends every request of user "throttled" (discovery
// included) to a rejecting priority level. Pair it with HoldThrottledSeats.
func (c *Cluster) RejectAllFlowSchema(ctx context.Context) error {
	return c.rejectFlow(ctx, "watchrv-reject", 100, flowcontrolv1.PolicyRulesWithSubjects{
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"},
		}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	})
}

// HoldThrottledSeats keeps the rejecting level's seats busy until ctx ends.
func (c *Cluster) HoldThrottledSeats(ctx context.Context, holders int) error {
	return c.holdSeats(ctx, "default", holders)
}

// RejectWatchesOfThrottled makes APF answer the configmap watches of user
// "throttled" with 429 until ctx ends, while its discovery and its lists
// outside namespace watchrv-held pass: discovery and the current-RV list
// work, every watch probe is throttled. The seats are held by lists in
// watchrv-held.
func (c *Cluster) RejectWatchesOfThrottled(ctx context.Context, holders int) error {
	err := c.rejectFlow(ctx, "watchrv-probe-reject-watches", 90, flowcontrolv1.PolicyRulesWithSubjects{
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{
			{Verbs: []string{"watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ClusterScope: true, Namespaces: []string{"*"}},
			{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, Namespaces: []string{"watchrv-held"}},
		},
	})
	if err != nil {
		return err
	}
	return c.holdSeats(ctx, "watchrv-held", holders)
}

// rejectFlow creates a rejecting priority level and a flow schema of that
// name sending user "throttled"'s requests matching rules to it.
func (c *Cluster) rejectFlow(ctx context.Context, name string, precedence int32, rules flowcontrolv1.PolicyRulesWithSubjects) error {
	cs, err := c.Clientset(0)
	if err != nil {
		return err
	}
	plc := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](0),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, plc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	rules.Subjects = []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "throttled"}}}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: name},
			MatchingPrecedence:         precedence,
			Rules:                      []flowcontrolv1.PolicyRulesWithSubjects{rules},
		},
	}
	if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// holdSeats lets user "throttled" read configmaps (not through the
// aggregated "view" role: no controller manager runs to fill it) and keeps
// holders lists at a future RV in ns running until ctx ends.
func (c *Cluster) holdSeats(ctx context.Context, ns string, holders int) error {
	cs, err := c.Clientset(0)
	if err != nil {
		return err
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "watchrv-read-configmaps"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "watchrv-throttled-read"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: "rbac.authorization.k8s.io", Name: "throttled"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	cfg := c.RESTConfig(0)
	cfg.BearerToken = ThrottledToken
	holder, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for i := 0; i < holders; i++ {
		go func() {
			for ctx.Err() == nil {
				_, _ = holder.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{
					ResourceVersion: "999999999", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
				})
			}
		}()
	}
	return nil
}
