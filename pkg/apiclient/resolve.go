package apiclient

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
}

func (e *UnknownResourceError) Error() string {
	msg := fmt.Sprintf("the server doesn't have a resource type %q", text.Echo(e.Name))
	if len(e.Suggestions) > 0 {
		msg += fmt.Sprintf(": did you mean %s?", strings.Join(quoteAll(e.Suggestions), " or "))
	} else {
		msg += ": run 'kubectl api-resources' to see the names"
	}
	return msg
}

// DiscoveryError is discovery that failed while a name was resolved: the
// name may exist or not, it is not known. Its class is the failure's own
// (diagnose.ClassifyFailure of Err: a cut connection, no answer, 401 ...).
type DiscoveryError struct {
	// GroupVersion is the group version whose resources could not be
	// read ("" for the discovery of every group).
	GroupVersion string
	Err          error
}

func (e *DiscoveryError) Error() string {
	if e.GroupVersion != "" {
		return fmt.Sprintf("cannot read the discovery of %s: %v", e.GroupVersion, e.Err)
	}
	return fmt.Sprintf("cannot read discovery (/api and /apis), so the resource type cannot be looked up: %v", e.Err)
}

func (e *DiscoveryError) Unwrap() error { return e.Err }

// DiscoveryFailure is the first failure of this run's discovery that makes
// a "no such resource type" unknowable: a discovery request that got no
// answer or whose body broke (a cut, a reset, a timeout, a body past its
// cap), or any failure of the root documents /api and /apis. cli-runtime's
// cached discovery keeps such failures to itself and answers "no match";
// the ledger saw them. nil when none: an HTTP error of one group version
// (the 503 of an aggregated API that is down) is not one, and kubectl too
// says the type does not exist then.
func (l *Ledger) DiscoveryFailure() error {
	for _, f := range l.Failures(KindDiscovery) {
		root := false
		if u, err := url.Parse(f.URL); err == nil {
			root = u.Path == "/api" || u.Path == "/apis"
		}
		switch {
		case f.Err != nil:
			if IsBodyTooLarge(f.Err) {
				return &DiscoveryError{Err: f.Err} // it names the request
			}
			return &DiscoveryError{Err: fmt.Errorf("%s %s: %w", f.Method, f.URL, f.Err)}
		case root:
			return &DiscoveryError{Err: apierrors.NewGenericServerResponse(f.Status, "get", schema.GroupResource{}, "", fmt.Sprintf("%s %s answered %d %s", f.Method, f.URL, f.Status, http.StatusText(f.Status)), 0, true)}
		}
	}
	return nil
}

// ResolveResource resolves a name the way kubectl does: plural, singular,
// short name, kind, resource.group or resource.version.group, CRDs included.
// The mapper is normally cli-runtime's (cached discovery and short names).
func ResolveResource(disco discovery.DiscoveryInterface, mapper meta.RESTMapper, arg string) (Resource, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" || strings.ContainsAny(arg, " /") {
		return Resource{}, fmt.Errorf("%q is not a resource type name: use a name such as configmaps, cm, deployments.apps", text.Echo(arg))
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
		return Resource{}, &DiscoveryError{Err: capError(err)}
	}
	if err != nil || gvr.Empty() {
		return Resource{}, &UnknownResourceError{Name: arg, Suggestions: suggest(disco, arg)}
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
	return Resource{}, &UnknownResourceError{Name: arg, Suggestions: suggest(disco, arg)}
}

// ListableResources returns every resource in discovery that supports list
// and watch, skipping subresources, at the preferred version of each group.
func ListableResources(disco discovery.DiscoveryInterface) ([]Resource, error) {
	lists, err := disco.ServerPreferredResources()
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

// maxResourceArg is longer than any resource.group name (a group is a DNS
// subdomain of at most 253 bytes).
const maxResourceArg = 512

// suggest returns up to three names close to arg (prefix or small edit distance).
func suggest(disco discovery.DiscoveryInterface, arg string) []string {
	if len(arg) > maxResourceArg {
		// No resource is named like that, and the edit distance of a huge
		// argument would cost seconds.
		return nil
	}
	lists, _ := disco.ServerPreferredResources()
	arg = strings.ToLower(arg)
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	seen := map[string]bool{}
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			full := r.Name
			if gv.Group != "" {
				full += "." + gv.Group
			}
			best := -1
			for _, n := range namesOf(r) {
				d := distance(arg, n)
				if strings.HasPrefix(n, arg) && len(arg) >= 3 {
					d = min(d, 1)
				}
				if best < 0 || d < best {
					best = d
				}
			}
			if best <= max(2, len(arg)/4) && !seen[full] {
				seen[full] = true
				cands = append(cands, cand{full, best})
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

func namesOf(r metav1.APIResource) []string {
	names := []string{r.Name, strings.ToLower(r.Kind)}
	if r.SingularName != "" {
		names = append(names, r.SingularName)
	}
	return append(names, r.ShortNames...)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
