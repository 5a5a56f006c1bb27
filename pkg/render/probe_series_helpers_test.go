package render

import (
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// configmapsIn is the target the series tests probe: configmaps (v1) in ns.
func configmapsIn(ns string) apiclient.Target {
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	return apiclient.Target{Resource: cm, Namespace: ns}
}
