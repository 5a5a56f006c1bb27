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
	}{
		{Target{Resource: cm, Namespace: "demo"}, a, ""},
		{Target{Resource: cm, Namespace: "other"}, a, `is in namespace "demo", not "other"`},
		{Target{Resource: cm}, a, ""}, // every namespace
		{Target{Resource: ns, Namespace: "demo"}, ItemMeta{Name: "demo"}, ""},
		{Target{Resource: ns}, ItemMeta{Name: "a", Namespace: "kube-system"}, `is in namespace "kube-system", where namespaces are cluster-scoped`},
		{Target{Resource: cm, LabelSelector: "app=x"}, a, ""},
		{Target{Resource: cm, LabelSelector: "app in (x,y),tier!=db,!gone"}, a, ""},
		{Target{Resource: cm, LabelSelector: "app=y"}, a, `does not match the label selector "app=y"`},
		{Target{Resource: cm, LabelSelector: "gone"}, a, "does not match the label selector"},
		{Target{Resource: cm, LabelSelector: "app=("}, a, ""}, // does not parse: judges nothing
		{Target{Resource: cm, FieldSelector: "metadata.name=a"}, a, ""},
		{Target{Resource: cm, FieldSelector: "metadata.name==b"}, a, "metadata.name=b"},
		{Target{Resource: cm, FieldSelector: "metadata.name!=a"}, a, "metadata.name!=a"},
		{Target{Resource: cm, FieldSelector: "metadata.namespace=demo,metadata.name=a"}, a, ""},
		{Target{Resource: cm, FieldSelector: "metadata.namespace=other"}, a, "metadata.namespace=other"},
		{Target{Resource: cm, FieldSelector: "data.key=v"}, a, ""}, // not a field every object has
	} {
		got := c.t.Excludes(c.m)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v excludes %+v: %q, want %q", c.t, c.m, got, c.want)
		}
	}
}
