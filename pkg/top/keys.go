package top

import (
	"strings"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KindResources maps a watch event series' {group, kind} to its resource:
// servers before v1.34 label apiserver_watch_events_* by kind. nil, or ok
// false: the kind stays unmapped (a note, never a guessed resource).
type KindResources func(group, kind string) (resource string, ok bool)

// labels is one series' labels by name.
type labels map[string]string

func labelsOf(m *dto.Metric) labels {
	l := make(labels, len(m.GetLabel()))
	for _, lp := range m.GetLabel() {
		l[lp.GetName()] = lp.GetValue()
	}
	return l
}

// splitLegacy reads the "resource" label of servers before v1.34:
// "configmaps" or "deployments.apps" (a resource name has no dot; the
// group follows the first one).
func splitLegacy(s string) schema.GroupResource {
	r, g, _ := strings.Cut(s, ".")
	return schema.GroupResource{Group: g, Resource: r}
}

// direct maps a series labelled {group,resource} or {resource="R.G"}.
func (l labels) direct() (schema.GroupResource, bool) {
	if g, ok := l["group"]; ok {
		if r, ok := l["resource"]; ok && r != "" {
			return schema.GroupResource{Group: g, Resource: r}, true
		}
		return schema.GroupResource{}, false
	}
	if r := l["resource"]; r != "" {
		return splitLegacy(r), true
	}
	return schema.GroupResource{}, false
}

// specialPrefixes are kube-apiserver's storage prefixes that are not the
// resource's name (k8s.io/kubernetes pkg/kubeapiserver
// SpecialDefaultResourcePrefixes), as the watch cache labels its lists
// before v1.34 ({resource_prefix="/minions"}).
var specialPrefixes = map[string]schema.GroupResource{
	"controllers":        {Resource: "replicationcontrollers"},
	"services/endpoints": {Resource: "endpoints"},
	"minions":            {Resource: "nodes"},
	"services/specs":     {Resource: "services"},
	"ingress":            {Group: "networking.k8s.io", Resource: "ingresses"},
}

// fromPrefix maps a watch cache's storage prefix to its resource: a special
// prefix; "/GROUP/RESOURCE" (custom resources and aggregated groups, whose
// group has a dot); or "/RESOURCE" when exactly one resource of that name
// has a watch cache on the server (cached). ok false: not told (a note).
func fromPrefix(prefix string, cached map[schema.GroupResource]bool) (schema.GroupResource, bool) {
	p := strings.Trim(prefix, "/")
	if gr, ok := specialPrefixes[p]; ok {
		return gr, true
	}
	if g, r, ok := strings.Cut(p, "/"); ok {
		if strings.Contains(g, ".") && r != "" && !strings.Contains(r, "/") {
			return schema.GroupResource{Group: g, Resource: r}, true
		}
		return schema.GroupResource{}, false
	}
	var found []schema.GroupResource
	for gr := range cached {
		if gr.Resource == p {
			found = append(found, gr)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return schema.GroupResource{}, false
}
