package apiclient

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Target is the collection a request reads: a resource, optionally in one
// namespace, optionally narrowed by selectors.
type Target struct {
	Resource      Resource
	Namespace     string // "" means all namespaces (or a cluster-scoped resource)
	LabelSelector string
	FieldSelector string
}

// ValidateNamespace checks a namespace before it becomes a path segment: a
// namespace is a DNS-1123 label, so "..", "a/b" or "%2e" can never reach a
// path (a "-n .." once listed every namespace).
func ValidateNamespace(ns string) error {
	if len(validation.IsDNS1123Label(ns)) > 0 {
		return fmt.Errorf("namespace %q is not a namespace name, which is a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit", text.Echo(ns))
	}
	return nil
}

// ValidateName checks an object's name by the rule client-go's request
// builder applies to a path segment: not "." or "..", no "/" and no "%".
func ValidateName(name string) error {
	if name == "" {
		return errors.New("the object name is empty")
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) > 0 {
		return fmt.Errorf("%q is not an object name: it %s", text.Echo(name), strings.Join(msgs, " and "))
	}
	return nil
}

// CollectionPath is the REST path of the collection, built from its
// segments. A segment that could change the path's meaning (a namespace
// that fails ValidateNamespace, or a group, version or resource with "/"
// or ".." in it) makes an unsafe path that Client.Get refuses to send.
func (t Target) CollectionPath() string {
	gvr := t.Resource.GVR
	segs := []string{"api", gvr.Version}
	if gvr.Group != "" {
		segs = []string{"apis", gvr.Group, gvr.Version}
	}
	if t.Resource.Namespaced && t.Namespace != "" {
		segs = append(segs, "namespaces", t.Namespace)
	}
	return joinSegments(append(segs, gvr.Resource)...)
}

// ObjectPath is the REST path of one named object of the collection.
func (t Target) ObjectPath(namespace, name string) string {
	o := t
	o.Namespace = namespace
	return o.CollectionPath() + "/" + safeSegment(name)
}

// joinSegments joins path segments, each of which must be one segment.
func joinSegments(segs ...string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(safeSegment(s))
	}
	return b.String()
}

// safeSegment keeps a valid segment as it is and marks an invalid one so
// that the path is refused by checkPath: it is never cleaned into another
// path.
func safeSegment(s string) string {
	if s == "" || len(content.IsPathSegmentName(s)) > 0 {
		return invalidSegment
	}
	return s
}

// invalidSegment stands for a segment that failed validation; checkPath
// refuses any path holding it.
const invalidSegment = "\x00invalid"

// ErrUnsafePath is a request path with a segment that is not one segment.
var ErrUnsafePath = errors.New("refused to send a request whose path has an invalid namespace, name or resource segment")

// checkPath refuses a path that a server could read as another one: an
// invalid segment, "." or "..", an empty segment, or an escape.
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\x00%?#\\") {
		return fmt.Errorf("%w: %q", ErrUnsafePath, text.Echo(strings.ReplaceAll(p, invalidSegment, "<invalid>")))
	}
	for _, s := range strings.Split(p[1:], "/") {
		if s == "" || s == "." || s == ".." {
			return fmt.Errorf("%w: %q", ErrUnsafePath, text.Echo(p))
		}
	}
	return nil
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
