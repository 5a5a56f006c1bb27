package diagnose

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Request is the API request a text's URL names (client-go's `Get
// "https://..."`, its round_trippers lines, a structured log's escaped
// string, an audit log's requestURI, curl): the collection it read, its
// scope and selectors, and how it read it, all from one URL read as the
// API server reads it. explain-error --check asks that request again, and
// only then calls what it tried "the same request" (adversary try 48 F1:
// a pods watch in namespace foo was checked as a configmaps watch in
// default).
type Request struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version"`
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	// Name is the one object the URL names: a watch of it (the /watch/
	// path) reads its collection with metadata.name; a GET of it
	// (Operation "") reads that object.
	Name          string `json:"name,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	// Operation is how the request read, by the API server's rules
	// (requestOp); "" when the URL carries no query (a path named in
	// passing) or reads one object (a GET).
	Operation       string `json:"operation,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Host is the server the URL names (host:port; "" for a path alone).
	Host string `json:"host,omitempty"`
}

// GroupResource is the request's resource as kubectl names it with its
// version: RESOURCE.VERSION.GROUP ("configmaps.v1." in the core group).
func (r Request) GroupResource() string {
	return r.Resource + "." + r.Version + "." + r.Group
}

// collection is what two URLs must share to be one request.
func (r Request) collection() string {
	return strings.Join([]string{r.Group, r.Version, r.Resource, r.Namespace, r.Name}, "/")
}

// maxURLBytes bounds the URL read from a text.
const maxURLBytes = 8 << 10

// maxURLs bounds how many URLs of a text are read: past it, which one
// failed is not known, and none is taken for it (adversary try 51 F8: only
// the first 16 were read, and a 17th naming another collection went
// unnoticed).
const maxURLs = 64

// urlStart finds where a URL or an API path may begin (urlBegins says
// whether one does).
var urlStart = regexp.MustCompile(`https?://|/apis?/`)

// urlBegins: the match of urlStart at s[i:] begins a URL: a scheme, or an
// API path at a word's start (the text's start, after a space, a quote, a
// bracket, =, a comma, ; : or |), never one inside a file path (adversary try 51 F6:
// "vendor/k8s.io/api/core/v1/types.go:123" was read as a GET of object
// "types.go:123" of resource "v1").
func urlBegins(s string, i int) bool {
	if s[i] != '/' || i == 0 {
		return true
	}
	return strings.IndexByte(" \t\n\r\v\f\"'`=([{<,;:|", s[i-1]) >= 0
}

// dnsWord is a segment the plugin would build itself for a version,
// resource, group or namespace: lowercase DNS words.
var dnsWord = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// requestOfText is the one API request the URLs in s name, or why there is
// none to read (unread, "" when s holds no API URL at all): a URL that is
// no API collection request, one that holds a control character, more URLs
// than are read, or several that name different collections (adversary
// try 49 F2: with two URLs, the collection came from one and the operation
// from the other).
func requestOfText(s string) (req *Request, unread string) {
	var found []*Request
	read := 0
	for off := 0; off < len(s); {
		loc := urlStart.FindStringIndex(s[off:])
		if loc == nil {
			break
		}
		start := off + loc[0]
		off = off + loc[1]
		if !urlBegins(s, start) {
			continue
		}
		if read++; read > maxURLs {
			return nil, fmt.Sprintf("it holds more than %d URLs, past which none is read: which one failed is not known", maxURLs)
		}
		tok, used, long, ctl := urlToken(s[start:])
		off = max(off, start+used)
		switch {
		case ctl:
			// Cut there, it would name another request (fresh user try
			// 51 F7: an ESC in the namespace asked namespaces).
			unread = orFirst(unread, "its URL holds a control character")
			continue
		case long:
			unread = orFirst(unread, "its URL is longer than 8 KiB")
			continue
		}
		u, err := url.Parse(tok)
		if err != nil {
			if strings.Contains(tok, "/api") {
				unread = orFirst(unread, "its URL does not parse")
			}
			continue
		}
		r, why := requestOfURL(u)
		if r == nil {
			unread = orFirst(unread, why)
			continue
		}
		found = append(found, r)
	}
	if len(found) == 0 {
		return nil, unread
	}
	req = found[0]
	for _, r := range found[1:] {
		if r.collection() != req.collection() {
			return nil, fmt.Sprintf("it names several requests (%s and %s): which one failed is not known", req.says(), r.says())
		}
		if req.Operation == "" {
			req = r // the same collection: the URL that says how it read
		}
	}
	return req, ""
}

// orFirst keeps the first reason found.
func orFirst(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// says names the request's collection.
func (r Request) says() string {
	w := r.Resource
	if r.Group != "" {
		w += "." + r.Group
	}
	if r.Name != "" {
		w += "/" + r.Name
	}
	if r.Namespace != "" {
		w += " in namespace " + r.Namespace
	}
	return text.Echo(w)
}

// urlToken is the URL that starts s, as a text carries it: up to a space,
// a quote or a bracket, JSON's escapes read (\u0026 is &, \/ is /), ended
// at any other backslash (a structured log's \" around it: fresh user try
// 49 F1, the backslash was read as part of watch=true); used is how much
// of s it took; long: it runs past maxURLBytes; ctl: a control character
// (C0 other than white space, DEL, C1) ends it, so the URL read would be
// cut short of the one the text holds.
func urlToken(s string) (tok string, used int, long, ctl bool) {
	var b strings.Builder
	i := 0
	for ; i < len(s); i++ {
		if b.Len() > maxURLBytes {
			return "", i, true, false
		}
		c := s[i]
		if strings.HasPrefix(s[i:], `\u0026`) {
			b.WriteByte('&')
			i += 5
			continue
		}
		if strings.HasPrefix(s[i:], `\/`) {
			b.WriteByte('/')
			i++
			continue
		}
		if n := controlAt(s, i); n > 0 {
			if urlEndsAt(s, i+n) {
				break // a colour reset after the URL (ESC[0m): it ended
			}
			return "", i, false, true
		}
		if c == '\\' || c <= ' ' || strings.IndexByte("\"'`<>", c) >= 0 {
			break
		}
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), ".,;:)]}"), i, b.Len() > maxURLBytes, false
}

// controlAt is the length of the control character at s[i] (0: none):
// a C0 control other than white space, DEL or a C1 control, an ESC with
// the CSI sequence it starts (ESC [ parameters final byte: a colour).
func controlAt(s string, i int) int {
	c := s[i]
	switch {
	case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1 - i
		}
		return 1
	case c < ' ' && strings.IndexByte("\t\n\r\v\f", c) < 0, c == 0x7f:
		return 1
	case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
		return 2
	}
	return 0
}

// urlEndsAt: nothing of a URL follows s[i:] (its end, white space, a
// quote, a bracket or a backslash): a control character there came after
// the URL, not inside it.
func urlEndsAt(s string, i int) bool {
	for i < len(s) {
		n := controlAt(s, i)
		if n == 0 {
			return strings.IndexByte(" \t\n\r\v\f\\\"'`<>", s[i]) >= 0
		}
		i += n
	}
	return true
}

// requestOfURL reads an API collection request from u, as the API server
// reads its path (k8s.io/apiserver's RequestInfoFactory): nil, with why,
// when u is no such request.
func requestOfURL(u *url.URL) (*Request, string) {
	var segs []string
	for _, e := range strings.Split(strings.Trim(u.EscapedPath(), "/"), "/") {
		seg, err := url.PathUnescape(e)
		if err != nil {
			return nil, "its URL's path does not parse"
		}
		segs = append(segs, seg)
	}
	r := &Request{}
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		r.Version, segs = segs[1], segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		r.Group, r.Version, segs = segs[1], segs[2], segs[3:]
	default:
		return nil, "its URL is no API request (/api/VERSION/... or /apis/GROUP/VERSION/...)"
	}
	watchPath := len(segs) > 0 && segs[0] == "watch"
	if watchPath {
		segs = segs[1:]
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		r.Namespace, segs = segs[1], segs[2:]
	}
	switch len(segs) {
	case 1:
		r.Resource = segs[0]
	case 2:
		r.Resource, r.Name = segs[0], segs[1]
	case 0:
		return nil, "its URL names no resource"
	default:
		return nil, "its URL names a subresource (" + text.Echo(strings.Join(segs[2:], "/")) + "), not a collection"
	}
	for _, w := range []string{r.Version, r.Resource, r.Group, r.Namespace} {
		if w != "" && !dnsWord.MatchString(w) {
			return nil, fmt.Sprintf("its URL's segment %q is no name an API server serves", text.Echo(w))
		}
	}
	if r.Name != "" && !pathSegmentName(r.Name) {
		return nil, fmt.Sprintf("its URL's object name %q is no name an object can have", text.Echo(r.Name))
	}
	if r.Group != "" && !strings.Contains(r.Group, ".") && !builtInGroups[r.Group] {
		// A CRD's group has a dot; a word after /apis/ that has none
		// and is no built-in group is no group a server serves.
		return nil, fmt.Sprintf("its URL's group %q is no API group", text.Echo(r.Group))
	}
	r.Host = strings.ToLower(u.Host)
	q := u.Query()
	r.LabelSelector, r.FieldSelector = q.Get("labelSelector"), q.Get("fieldSelector")
	r.ResourceVersion = q.Get("resourceVersion")
	switch {
	case r.Name != "" && !watchPath:
		// A GET of one object, whatever its query (the API server
		// watches one object only on the /watch/ path).
	case u.RawQuery != "" || watchPath:
		r.Operation = requestOp(q, watchPath)
	}
	return r, ""
}

// pathSegmentName is k8s.io/apimachinery's IsValidPathSegmentName, and
// bounded: an object name is one path segment (no "/" nor "%", not "."
// nor ".."), and never a control character.
func pathSegmentName(n string) bool {
	if n == "." || n == ".." || len(n) > 253 || strings.ContainsAny(n, "/%") {
		return false
	}
	for _, c := range n {
		if c < ' ' || c == 0x7f || (c >= 0x80 && c <= 0x9f) {
			return false
		}
	}
	return true
}

// builtInGroups are the API groups without a dot that kube-apiserver
// serves.
var builtInGroups = map[string]bool{"apps": true, "batch": true, "policy": true, "autoscaling": true, "extensions": true}

// queryBool reads a boolean parameter as the API server does
// (runtime.Convert_Slice_string_To_bool): given, and neither "0" nor
// "false" in any case, even empty, it is true (adversary try 49 F1:
// watch=TRUE was read as a list).
func queryBool(q url.Values, name string) bool {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return false
	}
	switch strings.ToLower(v[0]) {
	case "0", "false":
		return false
	}
	return true
}

// queryHints reads the request from a text that holds no API URL but a
// query (a path without its host, a log's "?watch=true&resourceVersion=5")
// by the one rule a URL's query is read by (requestOp): a watch is what
// the API server takes for one (watch=TRUE too), never a word found
// anywhere. rv is the digits after the text's resourceVersion=.
func queryHints(s string) (op, rv string) {
	i := strings.Index(s, "resourceVersion=")
	if i >= 0 {
		rv, _ = digitsAt(s, i+len("resourceVersion="))
	}
	watchPath := strings.Contains(s, "/watch/")
	q := strings.IndexByte(s, '?')
	if q < 0 && !watchPath {
		return "", rv
	}
	vals := url.Values{}
	if q >= 0 {
		tok, _, _, _ := urlToken(s[q+1:])
		vals, _ = url.ParseQuery(tok) // what parses, as the server keeps it
	}
	named := watchPath
	for _, k := range []string{"watch", "resourceVersion", "resourceVersionMatch", "continue", "sendInitialEvents"} {
		named = named || vals.Has(k)
	}
	if !named {
		return "", rv
	}
	return requestOp(vals, watchPath), rv
}

// requestOp is how a request with query q read, by the API's rules: a
// watch (a streaming list with sendInitialEvents), a continue (at its
// token's exact RV), resourceVersionMatch when given, else the legacy
// rule (an RV other than 0 with a limit is exact), else a list (not older
// than its RV, or any with 0).
func requestOp(q url.Values, watchPath bool) string {
	rv := q.Get("resourceVersion")
	switch {
	case (watchPath || queryBool(q, "watch")) && queryBool(q, "sendInitialEvents"):
		return OpStreamingList
	case watchPath || queryBool(q, "watch"):
		return OpWatch
	case q.Get("continue") != "":
		return OpListContinue
	case q.Get("resourceVersionMatch") == "Exact":
		return OpListExact
	case q.Get("resourceVersionMatch") == "NotOlderThan":
		return OpList
	case rv != "" && rv != "0" && positive(q.Get("limit")):
		return OpListExact
	}
	return OpList
}

// positive: s is a decimal integer above 0 (one past uint64 too).
func positive(s string) bool {
	n, err := strconv.ParseUint(s, 10, 64)
	return (err == nil && n > 0) || errors.Is(err, strconv.ErrRange)
}

// GoType is the Go type a client's log line names for the objects it
// watched (client-go's reflector: `watch of *v1.Secret ended with`,
// `type="*v1.ConfigMap"`): a version and a kind, not a resource (the group
// is not named). explain-error --check asks the one resource discovery
// serves with that kind at that version, when there is exactly one.
type GoType struct {
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// String is the type as a reflector's line names it: *v1.Secret.
func (g GoType) String() string { return "*" + g.Version + "." + g.Kind }

// goTypeIn finds a reflector's type name.
var goTypeIn = regexp.MustCompile(`\*(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)\.([A-Z][A-Za-z0-9]{0,62})\b`)

// typeOfText is the one Go type s names (nil: none, or several).
func typeOfText(s string) *GoType {
	var t *GoType
	for _, m := range goTypeIn.FindAllStringSubmatch(s, 8) {
		g := &GoType{Version: m[1], Kind: m[2]}
		if t != nil && *t != *g {
			return nil
		}
		t = g
	}
	return t
}
