package apiclient

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

func TestTargetPaths(t *testing.T) {
	cm := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	deploy := Resource{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true}
	nodes := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}}
	cases := map[string]Target{
		"/api/v1/namespaces/demo/configmaps":        {Resource: cm, Namespace: "demo"},
		"/api/v1/configmaps":                        {Resource: cm},
		"/apis/apps/v1/namespaces/demo/deployments": {Resource: deploy, Namespace: "demo"},
		"/api/v1/nodes":                             {Resource: nodes, Namespace: "ignored"},
	}
	for want, tg := range cases {
		if got := tg.CollectionPath(); got != want {
			t.Errorf("CollectionPath = %s, want %s", got, want)
		}
	}
	if d := distance("confgmaps", "configmaps"); d != 1 {
		t.Errorf("distance = %d, want 1", d)
	}
}

// A namespace or name that is not one path segment never becomes another
// path: path.Join once cleaned "-n .." into the cluster-wide collection. The
// request is refused before anything is sent (the cmd layer refuses such
// input earlier still, with exit 2).
func TestUnsafeSegmentsNeverBecomeAnotherPath(t *testing.T) {
	cm := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	c, err := NewClient(&rest.Config{Host: "https://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, ns := range []string{"..", ".", "../../../api/v1/namespaces/kube-system/secrets", "a/b", "%2e%2e"} {
		paths["namespace "+ns] = Target{Resource: cm, Namespace: ns}.CollectionPath()
	}
	for _, name := range []string{"..", ".", "a/b", "a%2fb", ""} {
		paths["name "+name] = Target{Resource: cm}.ObjectPath("demo", name)
	}
	for what, p := range paths {
		if p == "/api/v1/configmaps" || strings.Contains(p, "secrets") || strings.Contains(p, "/../") {
			t.Errorf("%s: path %q", what, p)
		}
		if err := checkPath(p); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("%s: path %q is not refused: %v", what, p, err)
		}
		if _, err := c.Get(context.Background(), p, url.Values{}, AcceptMetadataList); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("%s: Get(%q) = %v, want ErrUnsafePath before any request", what, p, err)
		}
	}
	if err := checkPath(Target{Resource: cm, Namespace: "kube-system"}.ObjectPath("kube-system", "a.b-c_d:e")); err != nil {
		t.Errorf("a valid object path is refused: %v", err)
	}
	for _, bad := range []string{"..", "a/b", "Demo", "-a", strings.Repeat("a", 64), ""} {
		if ValidateNamespace(bad) == nil {
			t.Errorf("ValidateNamespace(%q) = nil", bad)
		}
	}
	for _, bad := range []string{"..", ".", "a/b", "a%b", ""} {
		if ValidateName(bad) == nil {
			t.Errorf("ValidateName(%q) = nil", bad)
		}
	}
	if ValidateNamespace("kube-system") != nil || ValidateName("system:controller:a.b") != nil {
		t.Error("a valid namespace or name is refused")
	}
}
