package apiclient

import (
	"net/url"
	"path"
)

// Target is the collection a request reads: a resource, optionally in one
// namespace, optionally narrowed by selectors.
type Target struct {
	Resource      Resource
	Namespace     string // "" means all namespaces (or a cluster-scoped resource)
	LabelSelector string
	FieldSelector string
}

// CollectionPath is the REST path of the collection.
func (t Target) CollectionPath() string {
	gvr := t.Resource.GVR
	var p string
	if gvr.Group == "" {
		p = path.Join("/api", gvr.Version)
	} else {
		p = path.Join("/apis", gvr.Group, gvr.Version)
	}
	if t.Resource.Namespaced && t.Namespace != "" {
		p = path.Join(p, "namespaces", t.Namespace)
	}
	return path.Join(p, gvr.Resource)
}

// ObjectPath is the REST path of one named object of the collection.
func (t Target) ObjectPath(namespace, name string) string {
	o := t
	o.Namespace = namespace
	return path.Join(o.CollectionPath(), name)
}

// AddSelectors adds the target's label and field selectors to a query.
func (t Target) AddSelectors(q url.Values) {
	if t.LabelSelector != "" {
		q.Set("labelSelector", t.LabelSelector)
	}
	if t.FieldSelector != "" {
		q.Set("fieldSelector", t.FieldSelector)
	}
}

// URL renders path and query as kubectl get --raw would take them.
func URL(p string, q url.Values) string {
	if len(q) == 0 {
		return p
	}
	return p + "?" + q.Encode()
}
