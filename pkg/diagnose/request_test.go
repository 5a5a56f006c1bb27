package diagnose

import (
	"strings"
	"testing"
)

// TestTheURLNamesTheRequest: the request a text's URL names, read by the
// API's rules from every form a URL reaches a user in (client-go's Get
// "...", its round_trippers lines, an audit log's escaped requestURI,
// curl), never guessed from words found anywhere in the text (adversary
// try 48 F1, F2).
func TestTheURLNamesTheRequest(t *testing.T) {
	for _, c := range []struct {
		text string
		want *Request
	}{
		{`failed to watch *v1.Pod: Get "https://127.0.0.1:6443/api/v1/namespaces/foo/pods?allowWatchBookmarks=true&resourceVersion=5&watch=true": too old resource version: 5 (100)`,
			&Request{Version: "v1", Resource: "pods", Namespace: "foo", Operation: OpWatch, ResourceVersion: "5"}},
		{`GET https://x/apis/apps/v1/namespaces/bar/deployments?limit=500&resourceVersion=5000&resourceVersionMatch=NotOlderThan 504: Timeout: Too large resource version: 5000, current: 1200`,
			&Request{Group: "apps", Version: "v1", Resource: "deployments", Namespace: "bar", Operation: OpList, ResourceVersion: "5000"}},
		{`GET https://x/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersion=5000&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true 504`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", Operation: OpStreamingList, ResourceVersion: "5000"}},
		// The legacy rule: an RV other than 0 with a limit is exact; 0 is any.
		{`I1207 round_trippers.go:553] GET https://x/api/v1/pods?limit=500&resourceVersion=7 410 Gone in 3 milliseconds`,
			&Request{Version: "v1", Resource: "pods", Operation: OpListExact, ResourceVersion: "7"}},
		{`GET https://x/api/v1/pods?limit=500&resourceVersion=0 200 OK`,
			&Request{Version: "v1", Resource: "pods", Operation: OpList, ResourceVersion: "0"}},
		{`GET https://x/api/v1/pods?continue=abc&limit=500 410 Gone`,
			&Request{Version: "v1", Resource: "pods", Operation: OpListContinue}},
		// An audit log's JSON escapes &.
		{`{"requestURI":"/apis/example.com/v1/namespaces/n1/widgets?resourceVersion=9\u0026resourceVersionMatch=Exact","verb":"list"}`,
			&Request{Group: "example.com", Version: "v1", Resource: "widgets", Namespace: "n1", Operation: OpListExact, ResourceVersion: "9"}},
		// The legacy watch path, one object, selectors.
		{`GET https://x/api/v1/watch/namespaces/default/configmaps/a?resourceVersion=3 410`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", Name: "a", Operation: OpWatch, ResourceVersion: "3"}},
		// A GET of one object, whatever its query: only /watch/ watches one.
		{`GET https://x/api/v1/namespaces/default/configmaps/a?resourceVersion=3&watch=true 504`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", Name: "a", ResourceVersion: "3"}},
		// An object name is one path segment: a colon is fine.
		{`Get "https://x/apis/rbac.authorization.k8s.io/v1/watch/clusterroles/system:admin?resourceVersion=5": too old resource version: 5 (100)`,
			&Request{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Name: "system:admin", Operation: OpWatch, ResourceVersion: "5"}},
		// watch and sendInitialEvents read as the API server reads a
		// boolean: anything but 0 or false, in any case, even empty.
		{`Get "https://x/api/v1/namespaces/default/configmaps?resourceVersion=5&watch=TRUE": too old resource version: 5 (100)`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", Operation: OpWatch, ResourceVersion: "5"}},
		{`Get "https://x/api/v1/namespaces/default/configmaps?resourceVersion=5&watch=": too old resource version: 5 (100)`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", Operation: OpWatch, ResourceVersion: "5"}},
		{`Get "https://x/api/v1/namespaces/default/configmaps?resourceVersion=5&watch=false&limit=500": too old resource version: 5`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", Operation: OpListExact, ResourceVersion: "5"}},
		{`GET https://x/api/v1/configmaps?watch=1&sendInitialEvents=True&resourceVersion=9&resourceVersionMatch=NotOlderThan 504`,
			&Request{Version: "v1", Resource: "configmaps", Operation: OpStreamingList, ResourceVersion: "9"}},
		// A structured log's escaped quotes end the URL.
		{`E1207 reflector.go:200] "Failed to watch" err="Get \"https://x/api/v1/namespaces/demo/secrets?allowWatchBookmarks=true&resourceVersion=300&watch=true\": The resourceVersion for the provided watch is too old."`,
			&Request{Version: "v1", Resource: "secrets", Namespace: "demo", Operation: OpWatch, ResourceVersion: "300"}},
		// One collection named twice is one request; the URL with a
		// query says how it read.
		{`list /api/v1/namespaces/a/pods failed: Get "https://x/api/v1/namespaces/a/pods?limit=500&resourceVersion=7": 410`,
			&Request{Version: "v1", Resource: "pods", Namespace: "a", Operation: OpListExact, ResourceVersion: "7"}},
		{`curl 'https://x/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb&fieldSelector=metadata.name%3Da&watch=1&resourceVersion=3'`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default", LabelSelector: "app=web", FieldSelector: "metadata.name=a", Operation: OpWatch, ResourceVersion: "3"}},
		// The namespace object itself is no namespace scope (a GET of it).
		{`GET https://x/api/v1/namespaces/foo?watch=1`,
			&Request{Version: "v1", Resource: "namespaces", Name: "foo"}},
		// A path without a query is named in passing: how it read is not known.
		{`the list of /api/v1/namespaces/default/configmaps failed: too old resource version: 5 (100)`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "default"}},
		// No request: a subresource, a word no server serves as a group,
		// a segment no API server names, no URL at all.
		{`GET https://x/api/v1/namespaces/default/pods/a/log?follow=true`, nil},
		{`GET https://x/apis/notagroup/v1/things?watch=1`, nil},
		{`GET https://x/api/v1/namespaces/Bad_NS/pods?watch=1`, nil},
		{`too old resource version: 5 (100)`, nil},
		{`see https://kubernetes.io/docs/reference/using-api/api-concepts/`, nil},
		// Two collections: no request is the failed one.
		{`see https://h/api/v1/namespaces/default/configmaps ; failed: Get "https://h/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=5": too old resource version: 5 (100)`, nil},
		{`GET https://x/api/v1/namespaces/default/configmaps/..?watch=1`, nil},
		{`GET https://x/api/v1/namespaces/default/configmaps/a%2Fb?watch=1`, nil},
		{"GET https://x/api/v1/namespaces/default/configmaps?watch=1&x=" + strings.Repeat("a", 9000), nil},
	} {
		got, _ := requestOfText(c.text)
		if got != nil {
			if strings.Contains(c.text, "://x/") && got.Host != "x" {
				t.Errorf("%s: host %q, want x", c.text, got.Host)
			}
			got.Host = "" // the tables below name the collection
		}
		switch {
		case (got == nil) != (c.want == nil):
			t.Errorf("%s:\n got %+v, want %+v", c.text, got, c.want)
		case got != nil && *got != *c.want:
			t.Errorf("%s:\n got %+v\nwant %+v", c.text, *got, *c.want)
		}
		// The diagnosis takes the request's operation over the words.
		if d := FromText(c.text); d.Recognized() && c.want != nil && c.want.Operation != "" && d.Operation != c.want.Operation {
			t.Errorf("%s: operation %q, want %q", c.text, d.Operation, c.want.Operation)
		}
	}
}

// TestAnUnreadURLSaysWhy: a text whose URL names no request says why, and
// and no request is read from it (adversary try 49 F2, F3).
func TestAnUnreadURLSaysWhy(t *testing.T) {
	for text, want := range map[string]string{
		`see https://h/api/v1/namespaces/default/configmaps ; failed: Get "https://h/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=5": too old resource version: 5 (100)`: "several requests",
		`GET https://x/api/v1/namespaces/default/pods/a/log?follow=true too old resource version: 5 (100)`:                                                                                         "subresource",
		"GET https://x/api/v1/namespaces/default/configmaps?watch=1&x=" + strings.Repeat("a", 9000) + " too old resource version: 5 (100)":                                                         "longer than 8 KiB",
	} {
		d := FromText(text)
		if d.Request != nil || !strings.Contains(d.RequestUnread, want) {
			t.Errorf("%.120s: request %+v, unread %q, want %q", text, d.Request, d.RequestUnread, want)
		}
	}
}

// TestTheTypeALogLineNames: a reflector's type, one per text.
func TestTheTypeALogLineNames(t *testing.T) {
	for text, want := range map[string]*GoType{
		`watch of *v1.Secret ended with: too old resource version: 100 (519)`:                                              {Version: "v1", Kind: "Secret"},
		`"Warning: watch ended with error" reflector="pkg/mod/x.go:1" type="*v1.ConfigMap" err="too old resource version"`: {Version: "v1", Kind: "ConfigMap"},
		`watch of *v1beta2.FlowSchema ended with: too old resource version: 1 (2)`:                                         {Version: "v1beta2", Kind: "FlowSchema"},
		`*v1.Pod and *v1.Secret: too old resource version: 1 (2)`:                                                          nil,
		`too old resource version: 1 (2)`:                                                                                  nil,
	} {
		got := typeOfText(text)
		if (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Errorf("%s: got %+v, want %+v", text, got, want)
		}
	}
}

// TestAQueryWithoutAURLIsReadByTheSameRule: a text that carries a request's
// query but no API path (a path cut from its host and prefix, a log's
// "?watch=...") is read by the rule a URL's query is (requestOp), never by
// words found anywhere in the text: watch=TRUE watches, limit=0 is no
// limit, "nowatch=true" is no watch.
func TestAQueryWithoutAURLIsReadByTheSameRule(t *testing.T) {
	for _, c := range []struct {
		query, want string
	}{
		{"watch=TRUE&resourceVersion=5", OpWatch},
		{"watch=&resourceVersion=5", OpWatch},
		{"watch=false&resourceVersion=5&limit=500", OpListExact},
		{"resourceVersion=5&limit=0", OpList},
		{"resourceVersion=5&limit=500", OpListExact},
		{"resourceVersion=5&nowatch=true", OpList},
		{"resourceVersion=5&resourceVersionMatch=NotOlderThan&limit=500", OpList},
		{"watch=1&sendInitialEvents=True&resourceVersion=5", OpStreamingList},
		{"continue=abc&limit=500", OpListContinue},
	} {
		text := "request configmaps?" + c.query + " failed: too old resource version: 5 (100)"
		d := FromText(text)
		if d.Operation != c.want {
			t.Errorf("%s: operation %q, want %q", text, d.Operation, c.want)
		}
		// The same query in a URL reads the same.
		if r, _ := requestOfText("GET https://x/api/v1/configmaps?" + c.query); r == nil || r.Operation != c.want {
			t.Errorf("the URL with ?%s: %+v, want %q", c.query, r, c.want)
		}
	}
}

// TestOnlyWhatTheServerServesNamesARequest: the class of adversary try 51
// F6, F8, F11 and fresh user try 51 F7: a text's URL names a request only
// as the API server would serve it, read whole. A path inside a file path
// (a vendored k8s.io/api source) is no request; a URL holding a control
// character (C0, DEL, C1: cut there it names another collection) is
// unread, said as such; past the URLs read, which one failed is not known
// and none is taken (not the first one's).
func TestOnlyWhatTheServerServesNamesARequest(t *testing.T) {
	// The URLs on one line: a text of several lines is read line by line,
	// each line's error with its own request (ReadText).
	url := func(ns, res string) string {
		return "GET https://127.0.0.1:1/api/v1/namespaces/" + ns + "/" + res + "?watch=1&resourceVersion=5 410 Gone; "
	}
	for _, c := range []struct {
		name, text string
		want       *Request
		unread     string // in RequestUnread
	}{
		{"a vendored Go source path", "W1130 panic at vendor/k8s.io/api/core/v1/types.go:123 too old resource version: 5 (100)", nil, ""},
		{"a module path", "E1130 k8s.io/apimachinery@v0.30.0/pkg/apis/meta/v1/types.go:99 too old resource version: 5 (100)", nil, ""},
		{"a path after a key", `requestURI=/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=5 too old resource version: 5 (100)`,
			&Request{Version: "v1", Resource: "configmaps", Namespace: "demo", Operation: OpWatch, ResourceVersion: "5"}, ""},
		{"an ESC in the namespace", "Get \"https://127.0.0.1:1/api/v1/namespaces/x\x1b[2J/configmaps?watch=1&resourceVersion=5\": too old resource version: 5 (9)", nil, "control character"},
		{"a NEL (C1) in the host", "Get \"https://a\u0085b.com:443/api/v1/namespaces/demo/configmaps?resourceVersion=5&watch=true\": too old resource version: 5 (100)", nil, "control character"},
		{"a DEL in the query", "Get \"https://h/api/v1/namespaces/demo/configmaps?resourceVersion=5\x7f&watch=true\": too old resource version: 5 (100)", nil, "control character"},
		// A colour reset right after the URL (a coloured console log)
		// ends it; the URL is read whole.
		{"a colour reset after it", "\x1b[31mE1130\x1b[0m GET https://h/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=5\x1b[0m 410 Gone",
			&Request{Version: "v1", Resource: "configmaps", Namespace: "demo", Operation: OpWatch, ResourceVersion: "5", Host: "h"}, ""},
		{"a colour reset at the end", "too old resource version: 5 (100) url=https://h/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=5\x1b[0m",
			&Request{Version: "v1", Resource: "configmaps", Namespace: "demo", Operation: OpWatch, ResourceVersion: "5", Host: "h"}, ""},
		{"a colour inside it", "Get \"https://h/api/v1/namespaces/demo\x1b[1m/configmaps?watch=1&resourceVersion=5\": too old resource version: 5 (9)", nil, "control character"},
		{"a tab ends it", "GET https://h/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=5\t410 Gone",
			&Request{Version: "v1", Resource: "configmaps", Namespace: "demo", Operation: OpWatch, ResourceVersion: "5", Host: "h"}, ""},
		{"64 URLs of one collection", strings.Repeat(url("demo", "configmaps"), 64),
			&Request{Version: "v1", Resource: "configmaps", Namespace: "demo", Operation: OpWatch, ResourceVersion: "5", Host: "127.0.0.1:1"}, ""},
		{"a 65th of another collection", strings.Repeat(url("demo", "configmaps"), 64) + url("kube-system", "secrets"), nil, "more than 64 URLs"},
		{"a 17th of another collection", strings.Repeat(url("demo", "configmaps"), 16) + url("kube-system", "secrets"), nil, "several requests"},
	} {
		d := FromText(c.text)
		switch {
		case (d.Request == nil) != (c.want == nil), d.Request != nil && *d.Request != *c.want:
			t.Errorf("%s: request %+v, want %+v", c.name, d.Request, c.want)
		case c.unread != "" && !strings.Contains(d.RequestUnread, c.unread), c.unread == "" && d.RequestUnread != "":
			t.Errorf("%s: unread %q, want %q", c.name, d.RequestUnread, c.unread)
		}
	}
}

// TestAGetOfOneObjectIsNoWatch: the API server watches one object only on
// its /watch/ path; a URL naming one object elsewhere is a GET of it,
// whatever its query, and is not asked again as a watch (fresh user try
// 51 F3: ".../configmaps/a?resourceVersion=100&watch=true" was tried as a
// watch of a).
func TestAGetOfOneObjectIsNoWatch(t *testing.T) {
	for text, get := range map[string]bool{
		`Get "https://h/api/v1/namespaces/demo/configmaps/a?resourceVersion=100&watch=true": too old resource version: 100 (542)`: true,
		`GET https://h/apis/rbac.authorization.k8s.io/v1/clusterroles/a,b?resourceVersion=5 410 Gone`:                             true,
		`GET https://h/api/v1/watch/namespaces/demo/configmaps/a?resourceVersion=100 410 Gone`:                                    false,
		`Get "https://h/api/v1/namespaces/demo/configmaps?resourceVersion=100&watch=true": too old resource version: 100 (542)`:   false,
		`too old resource version: 100 (542)`: false,
	} {
		d := FromText(text)
		if d.Request.GetOfOne() != get || get && !strings.Contains(d.Request.UntriedGet(), "/watch/ path") {
			t.Errorf("%s: a GET of one object: %v, want %v (%+v)", text, d.Request.GetOfOne(), get, d.Request)
		}
	}
}
