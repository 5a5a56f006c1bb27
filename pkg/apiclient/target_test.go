package apiclient

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
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
