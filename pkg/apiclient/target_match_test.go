package apiclient

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Excludes judges an object by what the request asked, as the API server's
// own parsers read the selectors: the namespace, the label selector (set
// and equality forms), and the metadata.name and metadata.namespace terms
// of the field selector; other field terms, and a selector that does not
// parse, judge nothing.
func TestExcludesJudgesWhatTheRequestAsked(t *testing.T) {
	cm := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	ns := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}}
	a := ItemMeta{Namespace: "demo", Name: "a", Labels: map[string]string{"app": "x", "tier": "web"}}
	for _, c := range []struct {
		t    Target
		m    ItemMeta
		want string // "" or a part of the reason
		// broke is the restriction the object broke (0 when none).
		broke Restriction
	}{
		{Target{Resource: cm, Namespace: "demo"}, a, "", 0},
		{Target{Resource: cm, Namespace: "other"}, a, `is in namespace "demo", not "other"`, RestrictNamespace},
		{Target{Resource: cm}, a, "", 0}, // every namespace
		{Target{Resource: ns, Namespace: "demo"}, ItemMeta{Name: "demo"}, "", 0},
		{Target{Resource: ns}, ItemMeta{Name: "a", Namespace: "kube-system"}, `is in namespace "kube-system", where namespaces are cluster-scoped`, RestrictClusterScope},
		{Target{Resource: cm, LabelSelector: "app=x"}, a, "", 0},
		{Target{Resource: cm, LabelSelector: "app in (x,y),tier!=db,!gone"}, a, "", 0},
		{Target{Resource: cm, LabelSelector: "app=y"}, a, `does not match the label selector "app=y"`, RestrictLabels},
		{Target{Resource: cm, LabelSelector: "gone"}, a, "does not match the label selector", RestrictLabels},
		{Target{Resource: cm, LabelSelector: "app=("}, a, "", 0}, // does not parse: judges nothing
		{Target{Resource: cm, FieldSelector: "metadata.name=a"}, a, "", 0},
		{Target{Resource: cm, FieldSelector: "metadata.name==b"}, a, "metadata.name=b", RestrictFields},
		{Target{Resource: cm, FieldSelector: "metadata.name!=a"}, a, "metadata.name!=a", RestrictFields},
		{Target{Resource: cm, FieldSelector: "metadata.namespace=demo,metadata.name=a"}, a, "", 0},
		{Target{Resource: cm, FieldSelector: "metadata.namespace=other"}, a, "metadata.namespace=other", RestrictFields},
		{Target{Resource: cm, FieldSelector: "data.key=v"}, a, "", 0}, // not a field every object has
	} {
		got := c.t.Matcher()(c.m)
		if (c.want == "") != (got.Why == "") || !strings.Contains(got.Why, c.want) || got.Broke != c.broke || c.t.Excludes(c.m) != got.Why {
			t.Errorf("%+v excludes %+v: %q (broke %d), want %q (broke %d)", c.t, c.m, got.Why, got.Broke, c.want, c.broke)
		}
	}
}

// Restrictions names the restrictions the excluded objects broke, and
// only those the request had (adversary try 22: every restriction of the
// request was named, the cluster scope of list ns -l a=b included, though
// only the label was broken).
func TestRestrictionsNamesOnlyWhatWasBroken(t *testing.T) {
	cm := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	ns := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}}
	all := RestrictNamespace | RestrictClusterScope | RestrictLabels | RestrictFields
	for _, c := range []struct {
		t     Target
		broke Restriction
		want  string
	}{
		{Target{Resource: ns, LabelSelector: "a=b"}, RestrictLabels, `the label selector "a=b"`},
		{Target{Resource: ns, FieldSelector: "metadata.name=x"}, RestrictFields, `the field selector "metadata.name=x"`},
		{Target{Resource: ns, LabelSelector: "a=b"}, RestrictClusterScope, "the collection's cluster scope (it answered objects in a namespace)"},
		{Target{Resource: cm, Namespace: "default", LabelSelector: "a=b"}, RestrictLabels, `the label selector "a=b"`},
		{Target{Resource: cm, Namespace: "default", LabelSelector: "a=b"}, RestrictNamespace | RestrictLabels, `the namespace "default" and the label selector "a=b"`},
		{Target{Resource: cm, Namespace: "default", LabelSelector: "a=b", FieldSelector: "metadata.name=x"}, all, `the namespace "default", the label selector "a=b" and the field selector "metadata.name=x"`},
		// A restriction the request did not have is never named.
		{Target{Resource: cm}, all, "what the request asked for"},
	} {
		if got := c.t.Restrictions(c.broke); got != c.want {
			t.Errorf("%+v broke %d: %q, want %q", c.t, c.broke, got, c.want)
		}
	}
}
