package apiclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

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
		if gv, cut := l.discoveryCut("", true); cut != nil {
			return &DiscoveryError{GroupVersion: gv, Err: cut}
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
// came and whose body broke off, from its ledger entry: the transport's
// *BodyCutError of a connection that broke it (the one wording of a cut
// body), else the read's failure in words ("GET URL: its body broke off
// after N bytes: ..."); with the group version it read ("" for /api or
// /apis); nil when l has none.
func (l *Ledger) discoveryCut(gv string, any bool) (string, error) {
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
		var cut *BodyCutError
		if errors.As(f.Err, &cut) {
			return g, cut
		}
		return g, &ConnectionLostError{What: fmt.Sprintf("GET %s: its body broke off after %s: %s", f.URL, text.Count(int(f.Bytes), "byte"), text.OneLine(f.Err.Error())), Err: f.Err}
	}
	return "", nil
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
	if _, cut := l.discoveryCut(gv.String(), false); cut != nil && !notADocument(err) {
		return cut
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
	var refused *UnreadableAnswerError
	if errors.As(err, &refused) {
		// The transport's own words (a body net/http refused: its
		// chunked framing broken), under client-go's "... Please retry.
		// Original error: ".
		return refused.Error()
	}
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
