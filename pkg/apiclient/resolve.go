package apiclient

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
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

// DiscoveryError is discovery that failed while a name was resolved: the
// name may exist or not, it is not known. Its class is the failure's own
// (diagnose.ClassifyFailure of Err: a cut connection, no answer, 401 ...).
type DiscoveryError struct {
	// GroupVersion is the group version whose resources could not be
	// read ("" for the discovery of every group).
	GroupVersion string
	// Root is the root document that failed (/api or /apis), when it is
	// known ("" with a GroupVersion, or when either may have).
	Root string
	Err  error
}

func (e *DiscoveryError) Error() string {
	if e.GroupVersion != "" {
		return fmt.Sprintf("cannot read the discovery of %s, so the resource types served there are not known: %v", e.GroupVersion, e.Err)
	}
	return fmt.Sprintf("cannot read discovery (%s), so the server's resource types are not known: %v", e.roots(), e.Err)
}

// roots is the root documents the failure is of: Root, else both.
func (e *DiscoveryError) roots() string {
	if e.Root != "" {
		return e.Root
	}
	return "/api and /apis"
}

func (e *DiscoveryError) Unwrap() error { return e.Err }

// DiscoveryWhat is what a failed discovery read, for an error line's
// "get WHAT": the discovery endpoints, or the group versions that failed.
func DiscoveryWhat(err error) string {
	var de *DiscoveryError
	if errors.As(err, &de) && de.GroupVersion != "" {
		return "the discovery of " + de.GroupVersion
	}
	if de != nil && de.Root != "" {
		return "the discovery endpoint " + de.Root
	}
	return "the discovery endpoints /api and /apis"
}

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
		gv := ""
		if u, err := url.Parse(f.URL); err == nil {
			gv = groupVersionOfPath(u.Path)
		}
		switch {
		case f.Err != nil:
			if IsBodyTooLarge(f.Err) {
				return &DiscoveryError{GroupVersion: gv, Err: f.Err} // it names the request
			}
			return &DiscoveryError{GroupVersion: gv, Err: fmt.Errorf("%s %s: %w", f.Method, f.URL, f.Err)}
		case root && f.Answer != nil:
			return discoveryAnswer(f)
		case root:
			return &DiscoveryError{Err: apierrors.NewGenericServerResponse(f.Status, "get", schema.GroupResource{}, "", fmt.Sprintf("%s %s answered %d %s", f.Method, f.URL, f.Status, http.StatusText(f.Status)), 0, true)}
		}
	}
	return nil
}

// documentAnswer is the HTTP error answer this run had for gv's discovery
// document, in the server's words when it gave any, as a
// *DiscoveryError; nil when there was none (or l is nil).
func (l *Ledger) documentAnswer(gv string) error {
	if l == nil {
		return nil
	}
	for _, f := range l.Failures(KindDiscovery) {
		u, err := url.Parse(f.URL)
		if err != nil || f.Status < 400 || f.Err != nil || groupVersionOfPath(u.Path) != gv {
			continue
		}
		if a := discoveryAnswer(f); a != nil {
			return a
		}
		return &DiscoveryError{GroupVersion: gv, Err: apierrors.NewGenericServerResponse(f.Status, "get", schema.GroupResource{}, "", fmt.Sprintf("%s %s answered %d %s", f.Method, f.URL, f.Status, http.StatusText(f.Status)), 0, true)}
	}
	return nil
}

// DiscoveryAnswer is the first discovery request of the run answered with
// an HTTP error, told by the Status the plugin read of it (the server's
// own words, nil when none): client-go's discovery reads error answers
// with Result.Raw, which keeps a generic text of its own ("the server is
// currently unable to handle the request" for any 503, "unknown" for a
// 403), and its errors name neither the request nor what the server said
// (adversary try 13).
func (l *Ledger) DiscoveryAnswer() error {
	for _, f := range l.Failures(KindDiscovery) {
		if err := discoveryAnswer(f); err != nil {
			return err
		}
	}
	return nil
}

// InServersWords is err, a failed discovery read, as the server answered
// it (DiscoveryAnswer) when err is an answer: client-go's errors of
// discovery carry its own words. Any other err (a cut, no answer) is kept.
func (l *Ledger) InServersWords(err error) error {
	var de *DiscoveryError
	if !diagnose.IsAnswer(err) || errors.As(err, &de) && de.GroupVersion != "" {
		// A failure of named group versions is in the server's words
		// already (failedGroupVersions), and names them all: the first
		// answer of the run would name one (adversary try 15: batch/v1
		// lost beside apps/v1).
		return err
	}
	if a := l.DiscoveryAnswer(); a != nil {
		return a
	}
	return err
}

// discoveryAnswer is f's answer as a *DiscoveryError (nil when f was not
// answered with an HTTP error, or its body was not read). Its reason stays
// as said (none for a proxy's page: the line then names the code in
// HTTP's words, "502 Bad Gateway").
func discoveryAnswer(f Entry) error {
	if f.Answer == nil || f.Status < 400 {
		return nil
	}
	gv := ""
	if u, err := url.Parse(f.URL); err == nil {
		gv = groupVersionOfPath(u.Path)
	}
	return &DiscoveryError{GroupVersion: gv, Err: &apierrors.StatusError{ErrStatus: *f.Answer}}
}

// failedGroupVersion is the group version whose document err, a request
// that failed, asked for ("" for /api or /apis, or when err names no
// request): a failure of /api/v1 is not one of "the discovery endpoints
// /api and /apis" (adversary try 15).
func failedGroupVersion(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return ""
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil {
		return ""
	}
	return groupVersionOfPath(u.Path)
}

// groupVersionOfPath is the group version a discovery path reads: "v1"
// for /api/v1, "apps/v1" for /apis/apps/v1, "" for /api and /apis.
func groupVersionOfPath(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) == 2 && parts[0] == "api":
		return parts[1]
	case len(parts) == 3 && parts[0] == "apis":
		return parts[1] + "/" + parts[2]
	}
	return ""
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

// groupsFailed is err, a discovery of every group, in the plugin's words
// when group versions failed (client-go's "unable to retrieve the complete
// list of server APIs: ..."): a *DiscoveryError that names each and tells
// the first one's failure by its class.
func groupsFailed(err error, l *Ledger) error {
	var failed *discovery.ErrGroupDiscoveryFailed
	var de *DiscoveryError
	switch {
	case err == nil || errors.As(err, &de):
		return err
	case !errors.As(err, &failed) || len(failed.Groups) == 0:
		return wholeDiscoveryFailed(err, l)
	}
	gvs, errs := failedGroupVersions(failed, l)
	if len(gvs) == 0 {
		return nil // every one lists no type
	}
	names := make([]string, len(gvs))
	for i, gv := range gvs {
		names[i] = gv.String()
	}
	return &DiscoveryError{GroupVersion: strings.Join(names, ", "), Err: errors.Unwrap(errs[0])}
}

// failedGroupVersions are the group versions of failed (sorted) whose
// discovery failed, each with its failure as a *DiscoveryError: the
// server's answer when it had one (l; client-go reads a 404 of /api/v1 as
// an empty list), else an unreadable document named as such, else the
// failure as client-go had it. A document that lists no type (client-go's
// memory cache calls it "received empty response", kept as a failure: an
// aggregated API such as metrics-server answers so) is no failure: it is
// left out.
func failedGroupVersions(failed *discovery.ErrGroupDiscoveryFailed, l *Ledger) ([]schema.GroupVersion, []error) {
	var all []schema.GroupVersion
	if failed != nil {
		for gv := range failed.Groups {
			all = append(all, gv)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	var gvs []schema.GroupVersion
	var errs []error
	for _, gv := range all {
		err := failed.Groups[gv]
		if a := l.documentAnswer(gv.String()); a != nil {
			err = a
		} else if isEmptyList(err) {
			continue
		} else {
			err = &DiscoveryError{GroupVersion: gv.String(), Err: unreadableDiscovery(gv, err, l)}
		}
		gvs, errs = append(gvs, gv), append(errs, err)
	}
	return gvs, errs
}

// isEmptyList: err is client-go's memory cache's word for a discovery
// document that lists no resource type (its error type is unexported).
func isEmptyList(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "received empty response for: ")
}

// wholeDiscoveryFailed is err, a failure of discovery as a whole (/api,
// /apis, or v1 read through them), as the *DiscoveryError every command
// says. Which request failed is not known here (a server of aggregated
// discovery answers v1 from /api and /apis): a transport error names its
// URL; an answer that could not be read is said so, in words and without
// a path (adversary try 12: a cut /api was blamed on GET /api/v1, never
// sent; try 15: a 204 was "JSON ends half way", and streaming --all
// printed encoding/json's own words).
func wholeDiscoveryFailed(err error, l *Ledger) error {
	if !notADocument(err) && failedGroupVersion(err) == "" {
		// A body that broke off names no request (adversary try 16: a
		// cut /api/v1 was "cannot read discovery (/api and /apis) ...:
		// unexpected EOF"): the ledger's entry of it does.
		if gv, cut := l.discoveryCut("", true); cut != "" {
			return &DiscoveryError{GroupVersion: gv, Err: &ConnectionLostError{What: cut, Err: err}}
		}
	}
	root := ""
	if notADocument(err) {
		what := "a discovery answer (to GET /api, /apis or a group version under them)"
		if p := l.notJSONDocument(); p != "" {
			// The run's kept documents tell which one it was (adversary
			// try 17: a non-JSON /apis was "/api and /apis").
			what = "the answer to GET " + p
			if p == "/api" || p == "/apis" {
				root = p
			}
		}
		err = &UnreadableAnswerError{What: fmt.Sprintf("%s is not a discovery document (%s)", what, documentProblem(err))}
	}
	return &DiscoveryError{GroupVersion: failedGroupVersion(err), Root: root, Err: capError(err)}
}

// discoveryCut is the discovery read of gv (any: the first) whose answer
// came and whose body broke off, in words from its ledger entry ("GET URL:
// its body broke off after N bytes: ..."), with the group version it read
// ("" for /api or /apis); "" when l has none.
func (l *Ledger) discoveryCut(gv string, any bool) (string, string) {
	for _, f := range l.Failures(KindDiscovery) {
		if f.Err == nil || f.Status < 200 || f.Status >= 300 || IsBodyTooLarge(f.Err) {
			continue
		}
		u, err := url.Parse(f.URL)
		if err != nil {
			continue
		}
		g := groupVersionOfPath(u.Path)
		if !any && g != gv {
			continue
		}
		cause := text.OneLine(f.Err.Error())
		if errors.Is(f.Err, io.ErrUnexpectedEOF) {
			cause = "the connection closed before the length the server announced"
		}
		return g, fmt.Sprintf("GET %s: its body broke off after %s: %s", f.URL, text.Count(int(f.Bytes), "byte"), cause)
	}
	return "", ""
}

// notJSONDocument is the path of the run's one whole discovery document
// that is not JSON ("" when none, or l is nil).
func (l *Ledger) notJSONDocument() string {
	if l == nil {
		return ""
	}
	return l.documents.notJSON()
}

// notADocument: err is a discovery answer that came and could not be read
// as a document (empty, 204, cut JSON): no HTTP error, no lost or refused
// connection, no body past its cap.
func notADocument(err error) bool {
	var status apierrors.APIStatus
	var ue *url.Error
	return !errors.As(err, &status) && !errors.As(err, &ue) && !IsBodyTooLarge(err) && diagnose.ClassifyFailure(err) == diagnose.FailureOther
}

// unreadableDiscovery is err, the failure of gv's discovery document, as
// an *UnreadableAnswerError when the answer came and could not be read (an
// empty body, a 204, JSON cut short): client-go's words alone ("0-length
// response with status code: 200") name neither the request nor what it
// means. An HTTP error or a lost connection is left as it is.
func unreadableDiscovery(gv schema.GroupVersion, err error, l *Ledger) error {
	if _, cut := l.discoveryCut(gv.String(), false); cut != "" && !notADocument(err) {
		return &ConnectionLostError{What: cut, Err: err}
	}
	if !notADocument(err) {
		if strings.HasPrefix(err.Error(), "unexpected error when reading response body") && errors.Unwrap(err) != nil {
			// client-go's "... Please retry. Original error: %w": the
			// original says it (a retry is the plugin's to judge).
			err = errors.Unwrap(err)
		}
		return capError(err) // an HTTP error, or no answer, a cut, a timeout
	}
	path := "/api/" + gv.Version
	if gv.Group != "" {
		path = "/apis/" + gv.Group + "/" + gv.Version
	}
	return &UnreadableAnswerError{What: fmt.Sprintf("the answer to GET %s is not a discovery document of %s (%s)", path, gv, documentProblem(err))}
}

// documentProblem says what was wrong with a discovery answer that came
// and could not be read, in words instead of client-go's and encoding/
// json's ("couldn't get version/kind; json parse error: json: cannot
// unmarshal string into Go value of type struct { APIVersion string ...",
// "0-length response with status code: 204 ..."; adversary try 14).
func documentProblem(err error) string {
	if words := decodeWords(err); words != err.Error() {
		return words // a decoder's typed error, in the API's words
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "0-length response"):
		return "its body is empty"
	case strings.Contains(msg, "unexpected end of JSON"), strings.Contains(msg, "unexpected EOF"):
		return "its JSON ends half way"
	case strings.Contains(msg, "is registered for version"), strings.Contains(msg, "unknown conversion"), strings.Contains(msg, "Object 'Kind' is missing"):
		// apimachinery's scheme, for an object of another kind (a Pod,
		// "kind: x"): its words name Go source files (adversary try 17).
		return "it is another kind of object than an APIResourceList"
	case strings.Contains(msg, "json"), strings.Contains(msg, "invalid character"), strings.Contains(msg, "cannot unmarshal"),
		strings.HasPrefix(msg, "yaml: "), strings.Contains(msg, ": yaml: "):
		// client-go reads a body that does not start as JSON with a YAML
		// decoder, whose words name YAML's grammar (adversary try 16).
		return "its body is not the JSON of one"
	}
	return text.OneLine(msg)
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
	res, _, _ := strings.Cut(arg, ".")
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
			// The name alone too, of a name with a wrong group or version
			// ("deploy.nosuchgroup" is deployments.apps), and the whole
			// name.group ("deploymnts.apps"; fresh user try 14).
			// Each comparison is bounded by the length of what it
			// compares: the type part of "widgets.example.com" is
			// "widgets", which is not close to "nodes" (fresh user try
			// 16: a bound of the whole name's length let it through).
			best, close := -1, false
			try := func(d int, of string) {
				if d <= suggestBound(of) {
					close = true
					if best < 0 || d < best {
						best = d
					}
				}
			}
			try(distance(arg, full), arg)
			for _, n := range namesOf(r) {
				try(distance(arg, n), arg)
				if res != arg {
					try(distance(res, n), res)
				}
				if strings.HasPrefix(n, arg) && len(arg) >= 3 {
					try(1, arg)
				}
			}
			if close && !seen[full] {
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
		if cands[i].dist > cands[0].dist && cands[0].dist == 0 {
			// A name that matched exactly (the type with a wrong
			// group) is the answer: others would only pad it (fresh
			// user try 15: "deployments.apps" or "endpoints" or ...).
			break
		}
		out = append(out, cands[i].name)
	}
	return out
}

// suggestBound is the largest edit distance at which a name is close to
// s: a quarter of its length, at least 2; 1 for a word under 5 letters, of
// which 2 edits are most ("foo" is not "job" or "pod").
func suggestBound(s string) int {
	if len(s) < 5 {
		return 1
	}
	return max(2, len(s)/4)
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
