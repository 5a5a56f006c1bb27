package diagnose

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Request is the API request a text's URL names (client-go's `Get
// "https://..."`, its round_trippers lines, an audit log's requestURI,
// curl): the collection it read, its scope and selectors, and how it read
// it. explain-error --check asks that request again, and only then calls
// what it tried "the same request" (adversary try 48 F1: a pods watch in
// namespace foo was checked as a configmaps watch in default).
type Request struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version"`
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	// Name is the one object the URL names (a watch of one object reads
	// its collection with metadata.name).
	Name          string `json:"name,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	// Operation is how the request read, by the API's rules (requestOp);
	// "" when the URL carries no query (a path named in passing).
	Operation       string `json:"operation,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// GroupResource is the request's resource as kubectl names it with its
// version: RESOURCE.VERSION.GROUP ("configmaps.v1." in the core group).
func (r Request) GroupResource() string {
	return r.Resource + "." + r.Version + "." + r.Group
}

// maxURLBytes bounds the URL read from a text.
const maxURLBytes = 8 << 10

// urlStart finds where a URL or an API path may begin.
var urlStart = regexp.MustCompile(`https?://|/apis?/`)

// apiSegment is one segment of an API path the plugin would build itself:
// lowercase DNS words (resource, group, version, namespace, name).
var apiSegment = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// requestOfText is the first API request a URL in s names (nil: none).
func requestOfText(s string) *Request {
	for _, loc := range urlStart.FindAllStringIndex(s, 16) {
		tok := s[loc[0]:]
		if end := strings.IndexAny(tok, " \t\r\n\"'`<>"); end >= 0 {
			tok = tok[:end]
		}
		tok = strings.TrimRight(tok, ".,;:)]}")
		if len(tok) > maxURLBytes {
			continue
		}
		// An audit log's JSON escapes & (Go's encoder writes \u0026).
		tok = strings.ReplaceAll(tok, `\u0026`, "&")
		u, err := url.Parse(tok)
		if err != nil {
			continue
		}
		if r := requestOfURL(u); r != nil {
			return r
		}
	}
	return nil
}

// requestOfURL reads an API collection request from u (nil: u is no such
// request: another path, a subresource, a segment no API server names).
func requestOfURL(u *url.URL) *Request {
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	r := &Request{}
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		r.Version, segs = segs[1], segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		r.Group, r.Version, segs = segs[1], segs[2], segs[3:]
	default:
		return nil
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
	default:
		return nil // none, or a subresource
	}
	for _, s := range []string{r.Version, r.Resource, r.Group, r.Namespace, r.Name} {
		if s != "" && !apiSegment.MatchString(s) {
			return nil
		}
	}
	if r.Group != "" && !strings.Contains(r.Group, ".") && !builtInGroups[r.Group] {
		// A CRD's group has a dot; a word after /apis/ that has none and
		// is no built-in group is no group a server serves (guessing one
		// would ask another resource).
		return nil
	}
	q := u.Query()
	r.LabelSelector, r.FieldSelector = q.Get("labelSelector"), q.Get("fieldSelector")
	r.ResourceVersion = q.Get("resourceVersion")
	if u.RawQuery != "" || watchPath {
		r.Operation = requestOp(q, watchPath)
	}
	return r
}

// builtInGroups are the API groups without a dot that kube-apiserver
// serves.
var builtInGroups = map[string]bool{"apps": true, "batch": true, "policy": true, "autoscaling": true, "extensions": true}

// requestOp is how a request with query q read, by the API's rules: a
// watch (a streaming list with sendInitialEvents=true), a continue (at its
// token's exact RV), resourceVersionMatch when given, else the legacy
// rule (an RV other than 0 with a limit is exact), else a list (not older
// than its RV, or any with 0).
func requestOp(q url.Values, watchPath bool) string {
	rv := q.Get("resourceVersion")
	limit, _ := strconv.ParseInt(q.Get("limit"), 10, 64)
	switch w := q.Get("watch"); {
	case (watchPath || w == "true" || w == "1") && q.Get("sendInitialEvents") == "true":
		return OpStreamingList
	case watchPath || w == "true" || w == "1":
		return OpWatch
	case q.Get("continue") != "":
		return OpListContinue
	case q.Get("resourceVersionMatch") == "Exact":
		return OpListExact
	case q.Get("resourceVersionMatch") == "NotOlderThan":
		return OpList
	case rv != "" && rv != "0" && limit > 0:
		return OpListExact
	}
	return OpList
}
