package apiclient

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Resource is a resource type resolved through discovery.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
	Verbs      []string
}

// Name is the resource as kubectl prints it: "configmaps" or "widgets.example.com".
func (r Resource) Name() string {
	if r.GVR.Group == "" {
		return r.GVR.Resource
	}
	return r.GVR.Resource + "." + r.GVR.Group
}

// Supports reports whether discovery lists verb for this resource.
func (r Resource) Supports(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// UnknownResourceError is returned when discovery does not know the name.
type UnknownResourceError struct {
	Name        string
	Suggestions []string
	// Unread are the group versions whose discovery failed (not the one
	// the name would be in): a type of theirs cannot be looked up now.
	Unread []string
}

func (e *UnknownResourceError) Error() string {
	msg := fmt.Sprintf("the server doesn't have a resource type %q", text.Echo(e.Name))
	if len(e.Unread) > 0 {
		msg += fmt.Sprintf(" in the discovery it could read (the discovery of %s failed: a type served there cannot be looked up now)", text.Echo(strings.Join(e.Unread, ", ")))
	}
	if len(e.Suggestions) > 0 {
		msg += fmt.Sprintf(": did you mean %s?", strings.Join(quoteAll(e.Suggestions), " or "))
	} else {
		msg += ": run 'kubectl api-resources' to see the names"
	}
	return msg
}

// IsTypoBeside reports whether e stays a typo beside derr, a failure of
// discovery the ledger saw (DiscoveryFailure) that cached discovery hid:
// by the rule of unknownResource, whatever the failure was (no answer, a
// body past its cap, an HTTP error). It does when derr is the failure of
// other group versions than the one the name would be in and the name is
// close to a name that was read; derr's group versions are then named
// among e's unread ones. A failure of /api or /apis, or of the name's own
// group, makes the name unknowable: false.
func (e *UnknownResourceError) IsTypoBeside(derr error) bool {
	var de *DiscoveryError
	if len(e.Suggestions) == 0 || !errors.As(derr, &de) || de.GroupVersion == "" {
		return false
	}
	fully, gr := schema.ParseResourceArg(e.Name)
	gvs := strings.Split(de.GroupVersion, ", ")
	for _, s := range gvs {
		gv, err := schema.ParseGroupVersion(s)
		if err != nil || gv.Group == gr.Group || (fully != nil && gv.Group == fully.Group) {
			return false
		}
	}
	for _, gv := range gvs {
		if !slices.Contains(e.Unread, gv) {
			e.Unread = append(e.Unread, gv)
		}
	}
	return true
}

// ResolveResource resolves a name the way kubectl does: plural, singular,
// short name, kind, resource.group or resource.version.group, CRDs included.
// The mapper is normally cli-runtime's (cached discovery and short names);
// l (may be nil) is the run's ledger, which has the server's answer to a
// document discovery could not read.
func ResolveResource(disco discovery.DiscoveryInterface, mapper meta.RESTMapper, arg string, l *Ledger) (Resource, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" || strings.ContainsAny(arg, " /") {
		return Resource{}, fmt.Errorf("%q is not a resource type name: use a name such as configmaps, cm, deployments.apps", text.Echo(arg))
	}
	if r, ok, err := coreResource(disco, arg, l); ok || err != nil {
		return r, err
	}
	var gvr schema.GroupVersionResource
	var err error
	fully, gr := schema.ParseResourceArg(arg)
	if fully != nil {
		gvr, err = mapper.ResourceFor(*fully)
	}
	if gvr.Empty() {
		gvr, err = mapper.ResourceFor(gr.WithVersion(""))
	}
	if err != nil && !meta.IsNoMatchError(err) && !meta.IsAmbiguousError(err) {
		// Discovery itself failed (no answer, a cut, 401, 403, ...): whether
		// the name exists is not known.
		return Resource{}, &DiscoveryError{GroupVersion: failedGroupVersion(err), Err: capError(err)}
	}
	if err != nil || gvr.Empty() {
		return Resource{}, unknownResource(disco, arg, fully, gr, l)
	}
	list, err := disco.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return Resource{}, &DiscoveryError{GroupVersion: gvr.GroupVersion().String(), Err: err}
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return Resource{GVR: gvr, Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs}, nil
		}
	}
	return Resource{}, unknownResource(disco, arg, fully, gr, l)
}

// coreResource resolves a name of the core group (configmaps, cm, pod,
// Event) from its one discovery document (v1), as kubectl does: a name
// of a core resource is the core resource, whatever another group serves
// under the same name (the core group is first in kubectl's priority, and
// a CRD's short name that shadows a core one loses). It spares the read of
// every group's document (from kubectl's disk cache: one file per group
// version, each read twice by cli-runtime's mapper and short-name
// expander; tens of milliseconds with 200 CRDs) for the names users type
// most. ok is false for any other name, and when v1 was answered with an
// HTTP error (the mapper's path then decides, and names any failure); a
// read of v1 that got no answer or broke is that failure (err), as a cut
// anywhere in discovery is.
func coreResource(disco discovery.DiscoveryInterface, arg string, l *Ledger) (r Resource, ok bool, err error) {
	if strings.Contains(arg, ".") || disco == nil {
		return Resource{}, false, nil
	}
	list, err := disco.ServerResourcesForGroupVersion("v1")
	var status apierrors.APIStatus
	switch {
	case err != nil && !errors.As(err, &status):
		if a := l.documentAnswer("v1"); a != nil {
			return Resource{}, false, a // a 404 or 403, read as an empty list
		}
		if isEmptyList(err) {
			return Resource{}, false, nil // v1 lists no type: the mapper's path decides
		}
		return Resource{}, false, wholeDiscoveryFailed(err, l)
	case err != nil || list == nil:
		return Resource{}, false, nil
	}
	name := strings.ToLower(arg)
	for _, r := range list.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		for _, n := range namesOf(r) {
			if n == name {
				return Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: r.Name}, Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs}, true, nil
			}
		}
	}
	return Resource{}, false, nil
}

// unknownResource is the error of a name discovery does not know, told by
// what discovery could read (client-go's own record of the group versions
// that failed, whatever the failure: a 503, a 403, a body that was empty,
// 204 or cut). When the group version the name would be in failed (the
// core group "v1" for a name without a group, else the group it names),
// whether the type exists is not known: a *DiscoveryError of that failure,
// never "doesn't have a resource type" (adversary try 11). The failures of
// other groups do not hide the name (kubectl too says the type does not
// exist then), and the error names them.
func unknownResource(disco discovery.DiscoveryInterface, arg string, fully *schema.GroupVersionResource, gr schema.GroupResource, l *Ledger) error {
	_, _, derr := disco.ServerGroupsAndResources()
	var failed *discovery.ErrGroupDiscoveryFailed
	if derr != nil && !errors.As(derr, &failed) {
		return &DiscoveryError{Err: capError(derr)}
	}
	gvs, errs := failedGroupVersions(failed, l)
	var others []string
	for i, gv := range gvs {
		if gv.Group == gr.Group || (fully != nil && gv.Group == fully.Group) {
			return errs[i]
		}
		others = append(others, gv.String())
	}
	suggestions := suggest(disco, arg)
	if len(others) > 0 && len(suggestions) == 0 && fully == nil && !strings.Contains(arg, ".") {
		// A name without a group that is in none of the discovery read,
		// and close to no name there, while group versions failed: it may
		// well be one of theirs ("deployments" when apps/v1 answered 403
		// or 504), so that failure is the answer, not "doesn't have a
		// resource type" (adversary tries 12 to 14). A name close to one
		// read is a typo, and stays exit 9 with its suggestion: a
		// metrics-server that is down does not turn every typo into a
		// 503.
		return &DiscoveryError{GroupVersion: strings.Join(others, ", "), Err: errors.Unwrap(errs[0])}
	}
	return &UnknownResourceError{Name: arg, Suggestions: suggestions, Unread: others}
}

// ListableResources returns every resource in discovery that supports list
// and watch, skipping subresources, at the preferred version of each group.
func ListableResources(disco discovery.DiscoveryInterface, l *Ledger) ([]Resource, error) {
	lists, err := disco.ServerPreferredResources()
	err = groupsFailed(err, l)
	if err != nil && len(lists) == 0 {
		return nil, err
	}
	var out []Resource
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			res := Resource{GVR: gv.WithResource(r.Name), Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs}
			if res.Supports("list") && res.Supports("watch") {
				out = append(out, res)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, err
}
