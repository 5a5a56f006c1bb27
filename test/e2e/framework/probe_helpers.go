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

// RejectWatchesOfThrottled makes API Priority and Fairness answer the
// configmap watches of user "throttled" with 429 until ctx ends, while its
// discovery and its lists outside namespace watchrv-held pass: discovery
// and the current-RV list work, every watch probe is throttled.
// (RejectAllFlowSchema rejects discovery too, so a command would stop
// before its first watch.) A watch holds an APF seat only while it starts,
// so the seats of the rejecting level are kept busy by lists of user
// "throttled" in namespace watchrv-held at a future RV, which the server
// holds for about 3 s each.
func (c *Cluster) RejectWatchesOfThrottled(ctx context.Context, holders int) error {
	cs, err := c.Clientset(0)
	if err != nil {
		return err
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "watchrv-probe-read-configmaps"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "watchrv-probe-throttled-read"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: "rbac.authorization.k8s.io", Name: "throttled"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	plc := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "watchrv-probe-reject"},
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
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "watchrv-probe-reject-watches"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: plc.Name},
			MatchingPrecedence:         90,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "throttled"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{
					{Verbs: []string{"watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ClusterScope: true, Namespaces: []string{"*"}},
					{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, Namespaces: []string{"watchrv-held"}},
				},
			}},
		},
	}
	if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
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
				_, _ = holder.CoreV1().ConfigMaps("watchrv-held").List(ctx, metav1.ListOptions{
					ResourceVersion: "999999999", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
				})
			}
		}()
	}
	return nil
}
