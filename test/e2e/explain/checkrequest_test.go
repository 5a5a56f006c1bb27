//go:build e2e

package explain

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// --check sends the request the error answered, as the text's URL or
// --operation names it, whatever the Expired kind's words: an exact list is
// retried as that exact list, a watch as a watch, a list as a list not
// older than the RV (adversary: a watch cache's "too old resource version:
// 5 (100)" from an exact list was checked with a watch, and "a watch from
// RV 5 works" lowered the text). The scripted server records every
// request: the ones at the text's RV must all be the named request.
func TestCheckSendsTheRequestTheErrorNames(t *testing.T) {
	const base = "https://127.0.0.1:18081/api/v1/namespaces/default/configmaps"
	const path = "/api/v1/namespaces/default/configmaps"
	messages := []string{
		"too old resource version: 5 (100)",                      // WatchCacheWindow
		"too old resource version: 5",                            // WatchCacheSnapshot
		"The resourceVersion for the provided list is too old.",  // EtcdCompactedExactList
		"The resourceVersion for the provided watch is too old.", // EtcdCompactedWatch
		"etcdserver: mvcc: required revision has been compacted", // EtcdCompacted
	}
	ops := []struct {
		op, url, verb string
		want          func(q url.Values) bool
		says          string
	}{
		{"list-exact", base + "?resourceVersion=5&resourceVersionMatch=Exact", "list",
			func(q url.Values) bool { return q.Get("watch") == "" && q.Get("resourceVersionMatch") == "Exact" }, "an exact list at RV 5"},
		{"watch", base + "?resourceVersion=5&watch=true", "watch",
			func(q url.Values) bool { return q.Get("watch") != "" }, "a watch from RV 5"},
		// A list refused as too old read at the exact RV (client-go's
		// pager sends a limit: the legacy rule makes it exact): no list
		// not older than an RV is ever refused as too old.
		{"list", base + "?limit=500&resourceVersion=5", "list",
			func(q url.Values) bool { return q.Get("watch") == "" && q.Get("resourceVersionMatch") == "Exact" }, "an exact list at RV 5"},
	}
	for _, m := range messages {
		for _, o := range ops {
			for _, form := range []string{"url", "operation"} {
				var args []string
				if form == "url" {
					args = []string{fmt.Sprintf("failed to %s *v1.ConfigMap: Get %q: %s", o.verb, o.url, m)}
				} else {
					args = []string{"--operation", o.op, "--rv", "5", m}
				}
				name := fmt.Sprintf("%s / %s by %s", m, o.op, form)
				s, kc := framework.ServeScript(t, nil)
				r := framework.Run(t, kc, time.Minute, append([]string{"explain-error", "--check"}, args...)...)
				var atRV, wrong []string
				for _, req := range s.AskedRequests() {
					p, raw, _ := strings.Cut(req, "?")
					q, _ := url.ParseQuery(raw)
					if p != path || q.Get("resourceVersion") != "5" {
						continue
					}
					atRV = append(atRV, req)
					if !o.want(q) {
						wrong = append(wrong, req)
					}
				}
				if len(atRV) == 0 || len(wrong) > 0 {
					t.Errorf("%s: the server got %q at RV 5 (not %s: %q)\nexit %d\n%s%s", name, atRV, o.op, wrong, r.Code, r.Stdout, r.Stderr)
					continue
				}
				out := strings.Join(strings.Fields(r.Stdout), " ")
				if !strings.Contains(out, o.says) || (o.op != "watch" && strings.Contains(out, "a watch from RV")) {
					t.Errorf("%s: the output does not say it tried %s:\n%s", name, o.says, r.Stdout)
				}
			}
		}
	}
}

// --check asks the collection the error's URL names (its resource,
// namespace, name and selectors), by the API's rules of its query, and
// calls what it tried the error's own request only then (adversary try 48
// F1: a pods watch in namespace foo was checked as a configmaps watch in
// default and called "the same request"; F2: a NotOlderThan list with a
// limit was tried as an exact one). A --resource or -n that names another
// collection is refused; a text without a URL is tried on --resource,
// said as such, never as the error's own.
func TestCheckAsksTheCollectionTheURLNames(t *testing.T) {
	const deploys = "/apis/apps/v1/namespaces/bar/deployments"
	j := func(body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}
	}
	script := map[string]framework.ScriptAnswer{
		deploys:            j(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"100"},"items":[]}`),
		deploys + "?watch": framework.ScriptDefaults()["/apis/apps/v1/deployments?watch"],
	}
	type asked struct {
		path  string
		match func(q url.Values) bool
	}
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		want     asked  // every request at the text's RV is this
		says     string // in the JSON: the check's collection
		from     string // its requestFrom
		notWords []string
	}{
		{name: "a deployments watch in bar",
			args: []string{`failed to watch *v1.Deployment: Get "https://127.0.0.1:6443` + deploys + `?allowWatchBookmarks=true&resourceVersion=5&watch=true": too old resource version: 5 (100)`},
			want: asked{deploys, func(q url.Values) bool { return q.Get("watch") != "" && q.Get("resourceVersion") == "5" }},
			says: `"resource": "deployments.apps"`, from: "url"},
		{name: "a NotOlderThan list with a limit in bar",
			args: []string{`GET https://127.0.0.1:6443` + deploys + `?limit=500&resourceVersion=5000&resourceVersionMatch=NotOlderThan 504: Timeout: Too large resource version: 5000, current: 1200`},
			want: asked{deploys, func(q url.Values) bool {
				return q.Get("watch") == "" && q.Get("resourceVersionMatch") == "NotOlderThan" && q.Get("resourceVersion") == "5000"
			}},
			says: `"resource": "deployments.apps"`, from: "url"},
		{name: "a configmaps watch across namespaces",
			args: []string{`Get "https://127.0.0.1:6443/api/v1/configmaps?resourceVersion=5&watch=true": too old resource version: 5 (100)`},
			want: asked{"/api/v1/configmaps", func(q url.Values) bool { return q.Get("watch") != "" && q.Get("resourceVersion") == "5" }},
			says: `"resource": "configmaps"`, from: "url"},
		{name: "one configmap's watch, by the legacy path",
			args: []string{`GET https://127.0.0.1:6443/api/v1/watch/namespaces/default/configmaps/a?resourceVersion=5 410: too old resource version: 5 (100)`},
			want: asked{"/api/v1/namespaces/default/configmaps", func(q url.Values) bool {
				return q.Get("watch") != "" && q.Get("resourceVersion") == "5" && q.Get("fieldSelector") == "metadata.name=a"
			}},
			says: `"namespace": "default"`, from: "url"},
		// Fresh user try 49 F1: a structured log's \" ended the URL
		// after watch=true\, read as a list.
		{name: "a watch in a structured log's escaped quotes",
			args: []string{`E1207 reflector.go:200] "Failed to watch" err="Get \"https://127.0.0.1:6443` + deploys + `?allowWatchBookmarks=true&resourceVersion=5&watch=true\": too old resource version: 5 (100)"`},
			want: asked{deploys, func(q url.Values) bool { return q.Get("watch") != "" && q.Get("resourceVersion") == "5" }},
			says: `"resource": "deployments.apps"`, from: "url"},
		// Adversary try 49 F1: watch=TRUE is a watch to the API server.
		{name: "watch=TRUE",
			args: []string{`Get "https://127.0.0.1:6443` + deploys + `?resourceVersion=5&watch=TRUE": too old resource version: 5 (100)`},
			want: asked{deploys, func(q url.Values) bool { return q.Get("watch") != "" && q.Get("resourceVersion") == "5" }},
			says: `"resource": "deployments.apps"`, from: "url"},
		// Adversary try 49 F2: two collections named, neither is taken
		// for the failed request.
		{name: "two URLs of two collections",
			args: []string{`see https://127.0.0.1:6443/api/v1/namespaces/default/configmaps ; failed: Get "https://127.0.0.1:6443` + deploys + `?watch=true&resourceVersion=5": too old resource version: 5 (100)`},
			want: asked{"/api/v1/namespaces/default/configmaps", func(q url.Values) bool { return q.Get("resourceVersion") == "5" }},
			says: `"resource": "configmaps"`, from: "resource-default",
			notWords: []string{"the same request"}},
		// Fresh user try 49 F4, 50 F5: a reflector's line names its
		// type, not its resource: the one resource of that kind and
		// version is the error's.
		{name: "a reflector's type, no URL",
			args: []string{`k8s.io/client-go/informers/factory.go:160: watch of *v1.Deployment ended with: too old resource version: 5 (100)`},
			want: asked{"/apis/apps/v1/namespaces/default/deployments", func(q url.Values) bool { return q.Get("watch") != "" && q.Get("resourceVersion") == "5" }},
			says: `"resource": "deployments.apps"`, from: "type"},
		{name: "no URL: --resource's default, not the error's request",
			args: []string{"too old resource version: 5 (100)"},
			want: asked{"/api/v1/namespaces/default/configmaps", func(q url.Values) bool { return q.Get("watch") != "" }},
			says: `"resource": "configmaps"`, from: "resource-default",
			notWords: []string{"the same request"}},
		{name: "--resource names another resource than the URL",
			args: []string{"--resource", "configmaps", `Get "https://127.0.0.1:6443` + deploys + `?resourceVersion=5&watch=true": too old resource version: 5 (100)`},
			code: 2},
		// Fresh user try 49 F3: a -v=6 watch line (200 OK: the 410
		// comes in the stream) names its request too.
		{name: "--resource names another resource than a -v=6 watch line",
			args: []string{"--resource", "configmaps", `I1207 18:21:37.690641   11278 round_trippers.go:560] GET https://127.0.0.1:6443` + deploys + `?resourceVersion=5&watch=1 200 OK in 2 milliseconds`},
			code: 2},
		{name: "-n names another namespace than the URL",
			args: []string{"-n", "default", `Get "https://127.0.0.1:6443` + deploys + `?resourceVersion=5&watch=true": too old resource version: 5 (100)`},
			code: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, kc := framework.ServeScript(t, script)
			r := framework.Run(t, kc, time.Minute, append([]string{"explain-error", "--check", "-o", "json"}, c.args...)...)
			if c.code != 0 {
				if r.Code != c.code || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "names another") {
					t.Fatalf("exit %d, want %d and one line naming the conflict: %s", r.Code, c.code, r.Stderr)
				}
				return
			}
			var got, wrong []string
			for _, req := range s.AskedRequests() {
				p, raw, _ := strings.Cut(req, "?")
				q, _ := url.ParseQuery(raw)
				if q.Get("resourceVersion") != "5" && q.Get("resourceVersion") != "5000" {
					continue
				}
				got = append(got, req)
				if p != c.want.path || !c.want.match(q) {
					wrong = append(wrong, req)
				}
			}
			if len(got) == 0 || len(wrong) > 0 {
				t.Fatalf("the server got %q at the text's RV (not the named request: %q)\nexit %d\n%s%s", got, wrong, r.Code, r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stdout, c.says) || !strings.Contains(r.Stdout, `"requestFrom": "`+c.from+`"`) {
				t.Errorf("the check does not say it asked %s (from %s):\n%s", c.says, c.from, r.Stdout)
			}
			// Fresh user try 50 F2: the text's URL names another server
			// (127.0.0.1:6443) than the one checked: said, and weighed.
			if c.from == "url" && (!strings.Contains(r.Stdout, `"textServer": "127.0.0.1:6443"`) || !strings.Contains(r.Stdout, `"confidence": "low"`)) {
				t.Errorf("the check does not say the text's request went to another server:\n%s", r.Stdout)
			}
			for _, w := range c.notWords {
				if strings.Contains(r.Stdout+r.Stderr, w) {
					t.Errorf("the output says %q:\n%s%s", w, r.Stdout, r.Stderr)
				}
			}
		})
	}
}
