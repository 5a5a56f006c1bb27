package servers

import (
	"net/url"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// Every shape of the view's target reads its cache RV from one key: a
// name the store can make a key of, in a namespace for a namespaced
// resource (the namespace of the view, or CacheRVNamespace for -A), none
// for a cluster-scoped one, and no selector of the user's (fresh user try
// 22 F5: the read was the collection's).
func TestCacheRVTargetIsOneKey(t *testing.T) {
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	roles := apiclient.Resource{GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}}
	const selector = "fieldSelector=metadata.name%3Dwatchrv.cache-rv.NO-SUCH-OBJECT&limit=1&resourceVersion=0"
	for _, c := range []struct {
		name string
		t    apiclient.Target
		want string
	}{
		{"namespace", apiclient.Target{Resource: cm, Namespace: "demo"}, "/api/v1/namespaces/demo/configmaps?" + selector},
		{"every namespace", apiclient.Target{Resource: cm}, "/api/v1/namespaces/default/configmaps?" + selector},
		{"cluster-scoped", apiclient.Target{Resource: roles, Namespace: "demo"}, "/apis/rbac.authorization.k8s.io/v1/clusterroles?" + selector},
		{"the user's selectors", apiclient.Target{Resource: cm, Namespace: "demo", LabelSelector: "app=x", FieldSelector: "metadata.name=a"}, "/api/v1/namespaces/demo/configmaps?" + selector},
		{"the user's selectors, every namespace", apiclient.Target{Resource: cm, LabelSelector: "app=x", FieldSelector: "metadata.namespace=demo"}, "/api/v1/namespaces/default/configmaps?" + selector},
	} {
		n := CacheRVTarget(c.t)
		got := apiclient.URL(n.CollectionPath(), listing.PageOptions{Limit: 1, ResourceVersion: "0"}.Query(n))
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		if u, err := url.Parse(got); err != nil || u.Query().Get("fieldSelector") != "metadata.name="+NoObjectName {
			t.Errorf("%s: %s names no one object", c.name, got)
		}
	}
}

// NoObjectName is a name the store makes a key of (a path segment), that
// no DNS-1123 named object has, and CacheRVNamespace a namespace name.
func TestNoObjectNameIsAKeyNoObjectHas(t *testing.T) {
	if err := apiclient.ValidateName(NoObjectName); err != nil {
		t.Errorf("%q: %v", NoObjectName, err)
	}
	if len(validation.IsDNS1123Subdomain(NoObjectName)) == 0 {
		t.Errorf("%q is a DNS-1123 subdomain: a configmap or a pod may have it", NoObjectName)
	}
	if err := apiclient.ValidateNamespace(CacheRVNamespace); err != nil {
		t.Errorf("%q: %v", CacheRVNamespace, err)
	}
}
