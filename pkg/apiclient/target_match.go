package apiclient

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Restriction is one thing a request asks of the objects it answers; a
// set of them is their sum (bits).
type Restriction uint8

// The restrictions Matcher judges.
const (
	RestrictNamespace Restriction = 1 << iota
	RestrictClusterScope
	RestrictLabels
	RestrictFields
)

// Exclusion is why an object the server answered is not one the request
// asked for: Why says it of the object ("" when it is one), Broke names
// the restriction it broke, so that an answer's breach names what the
// server ignored, not every restriction the request had (adversary try
// 22: list ns -l a=b said "it ignored the collection's cluster scope ...
// or the label selector" of an object with no namespace).
type Exclusion struct {
	Why   string
	Broke Restriction
}

// Excludes says why an object the server answered for t is not one t asked
// for ("" when it is): in another namespace than t's, in a namespace at
// all when t's resource is cluster-scoped (adversary try 20 #15: list ns
// showed an item of namespace kube-system), or not matching t's
// label selector, or a term of t's field selector on metadata.name or
// metadata.namespace (the only fields every object has; other terms are
// not judged). A server that answers such objects ignored the request:
// nothing it says of the collection is the collection's (adversary try
// 19: an answer that ignored fieldSelector=metadata.name=a was shown as
// object a). The selectors are read with the API server's own parsers, so
// both judge alike; one that does not parse judges nothing. Excludes
// parses them at each call: a caller that judges many objects keeps
// t.Matcher().
func (t Target) Excludes(m ItemMeta) string { return t.Matcher()(m).Why }

// Matcher is Excludes with t's selectors parsed once, and the restriction
// each exclusion broke.
func (t Target) Matcher() func(ItemMeta) Exclusion {
	var lsel labels.Selector
	if t.LabelSelector != "" {
		if sel, err := labels.Parse(t.LabelSelector); err == nil {
			lsel = sel
		}
	}
	var terms []fields.Requirement
	if t.FieldSelector != "" {
		if sel, err := fields.ParseSelector(t.FieldSelector); err == nil {
			terms = sel.Requirements()
		}
	}
	return func(m ItemMeta) Exclusion {
		if t.Resource.Namespaced && t.Namespace != "" && m.Namespace != t.Namespace {
			return Exclusion{fmt.Sprintf("%s is in namespace %q, not %q", ObjectName(m), text.Echo(m.Namespace), t.Namespace), RestrictNamespace}
		}
		if !t.Resource.Namespaced && m.Namespace != "" {
			return Exclusion{fmt.Sprintf("%s is in namespace %q, where %s are cluster-scoped", ObjectName(m), text.Echo(m.Namespace), t.Resource.Name()), RestrictClusterScope}
		}
		if lsel != nil && !lsel.Matches(labels.Set(m.Labels)) {
			return Exclusion{fmt.Sprintf("%s does not match the label selector %q", ObjectName(m), text.Echo(t.LabelSelector)), RestrictLabels}
		}
		for _, r := range terms {
			if why := fieldExcludes(r, m); why != "" {
				return Exclusion{why, RestrictFields}
			}
		}
		return Exclusion{}
	}
}

// Restrictions names the restrictions of t in broke, for the explanation
// of an answer that broke them: only what the request had (adversary try
// 21 F2: "it ignored the request's namespace or selectors" of list ns,
// which has neither), and only what its excluded objects broke (try 22).
func (t Target) Restrictions(broke Restriction) string {
	var parts []string
	if broke&RestrictNamespace != 0 && t.Resource.Namespaced && t.Namespace != "" {
		parts = append(parts, fmt.Sprintf("the namespace %q", t.Namespace))
	}
	if broke&RestrictClusterScope != 0 && !t.Resource.Namespaced {
		parts = append(parts, "the collection's cluster scope (it answered objects in a namespace)")
	}
	if broke&RestrictLabels != 0 && t.LabelSelector != "" {
		parts = append(parts, fmt.Sprintf("the label selector %q", text.Echo(t.LabelSelector)))
	}
	if broke&RestrictFields != 0 && t.FieldSelector != "" {
		parts = append(parts, fmt.Sprintf("the field selector %q", text.Echo(t.FieldSelector)))
	}
	switch len(parts) {
	case 0:
		return "what the request asked for"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// SingleName is the one name t asks for, when it asks for one object: a
// metadata.name= term in its field selector, and one namespace (or a
// cluster-scoped resource). A list then holds at most one item.
func (t Target) SingleName() (string, bool) {
	if t.FieldSelector == "" || (t.Resource.Namespaced && t.Namespace == "") {
		return "", false
	}
	sel, err := fields.ParseSelector(t.FieldSelector)
	if err != nil {
		return "", false
	}
	for _, r := range sel.Requirements() {
		if r.Field == "metadata.name" && (r.Operator == selection.Equals || r.Operator == selection.DoubleEquals) {
			return r.Value, true
		}
	}
	return "", false
}

// fieldExcludes judges one field term on metadata.name or
// metadata.namespace ("" for other fields).
func fieldExcludes(r fields.Requirement, m ItemMeta) string {
	var have string
	switch r.Field {
	case "metadata.name":
		have = m.Name
	case "metadata.namespace":
		have = m.Namespace
	default:
		return ""
	}
	switch r.Operator {
	case selection.Equals, selection.DoubleEquals:
		if have != r.Value {
			return fmt.Sprintf("%s does not match the field selector %s=%s", ObjectName(m), r.Field, text.Echo(r.Value))
		}
	case selection.NotEquals:
		if have == r.Value {
			return fmt.Sprintf("%s does not match the field selector %s!=%s", ObjectName(m), r.Field, text.Echo(r.Value))
		}
	}
	return ""
}

// ObjectName is `object "namespace/name"`, or the name of a cluster-scoped
// object, quoted and bounded for a line.
func ObjectName(m ItemMeta) string {
	if m.Namespace == "" {
		return fmt.Sprintf("object %q", text.Echo(m.Name))
	}
	return fmt.Sprintf("object %q", text.Echo(m.Namespace+"/"+m.Name))
}
