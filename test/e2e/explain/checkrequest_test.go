//go:build e2e

package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
			// Fresh user try 50 F2: the text's URL names another address
			// (127.0.0.1:6443) than the one checked: said, never weighed
			// (adversary try 51 F10: one server has several addresses).
			if c.from == "url" && (!strings.Contains(r.Stdout, `"textServer": "127.0.0.1:6443"`) || !strings.Contains(r.Stdout, "another address")) {
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

// TestCheckNeverContradictsWhatItMeasured: the classes of adversary try 51
// and fresh user try 51 on a real server (v1.37, the watch cache off,
// etcd compacted: a watch from RV 1 is refused with storage's 410). A
// bare 410 whose request the check refuses the same way is
// confirmed, never "this server says otherwise" (F16); another address
// for the server (localhost, the in-cluster Service) is said, never
// weighed (F10); a name with ',' is asked by the API's escaped selector
// (F4: exit 2 "invalid selector"); a Go source path is no URL (F6: exit
// 9); a URL holding a control character is unread (F7/F11); a GET of one
// object is not tried as a watch (user F3); a Go type that fits two
// resources is said so, and a --resource none of its resources is
// refused as the URL's conflict is (F5, F14).
func TestCheckNeverContradictsWhatItMeasured(t *testing.T) {
	c := framework.StartCell(t, "v1.37/etcd/cache-off")
	cs, ns := framework.Namespace(t, c, "explain-measured")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("a", nil)
	ctx := context.Background()
	if cur, err := c.EtcdRevision(ctx); err != nil {
		t.Fatal(err)
	} else if err := c.Compact(ctx, cur); err != nil {
		t.Fatal(err)
	}
	role := "e2e-" + ns + ":a,b"
	if _, err := cs.RbacV1().ClusterRoles().Create(context.Background(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), role, metav1.DeleteOptions{}) })
	host := strings.TrimPrefix(c.RESTConfig(0).Host, "https://")
	_, port, _ := strings.Cut(host, ":")
	watchLine := func(server string) string {
		return "I1130 round_trippers.go:553] GET https://" + server + "/api/v1/namespaces/" + ns + "/configmaps?allowWatchBookmarks=true&resourceVersion=1&watch=true 410 Gone in 3 milliseconds"
	}
	type want struct {
		code       int
		confirmed  bool   // refused now as the text says: kept, no "otherwise"
		textServer string // said in check.textServer
		from       string // check.requestFrom
		unread     string // in requestUnread
		untried    bool   // nothing tried, check.untried says why
		stderr     string // in the human run's stderr
	}
	for _, c2 := range []struct {
		name string
		args []string
		want want
	}{
		{"a -v=6 line's 410 Gone, this server", []string{watchLine(host)}, want{confirmed: true, from: "url"}},
		{"the same line through localhost", []string{watchLine("localhost:" + port)}, want{confirmed: true, from: "url", textServer: "localhost:" + port}},
		{"the in-cluster Service's address", []string{watchLine("10.96.0.1:443")}, want{confirmed: true, from: "url", textServer: "10.96.0.1:443"}},
		{"Python's (410) Reason: Gone", []string{"--rv", "1", "-n", ns, "--resource", "configmaps", "--operation", "watch", "kubernetes.client.exceptions.ApiException: (410) Reason: Gone"}, want{confirmed: true, from: "resource-flag"}},
		{"kubectl's 410 Expired", []string{"--rv", "1", "-n", ns, "--resource", "configmaps", "--operation", "watch", "Error from server (Expired): 410 Expired"}, want{confirmed: true, from: "resource-flag"}},
		{"a ClusterRole named with a comma", []string{"I1130 round_trippers.go:553] GET https://" + host + "/apis/rbac.authorization.k8s.io/v1/watch/clusterroles/" + role + "?resourceVersion=1 410 Gone in 3 milliseconds"}, want{confirmed: true, from: "url"}},
		{"a vendored Go source path", []string{"-n", ns, "W1130 panic at vendor/k8s.io/api/core/v1/types.go:123 too old resource version: 1 (100)"}, want{from: "resource-default"}},
		{"an ESC in the URL", []string{"-n", ns, "Get \"https://" + host + "/api/v1/namespaces/x\x1b[2J/configmaps?watch=1&resourceVersion=1\": too old resource version: 1 (9)"}, want{from: "resource-default", unread: "control character"}},
		{"a GET of one object", []string{`Get "https://` + host + `/api/v1/namespaces/` + ns + `/configmaps/a?resourceVersion=1&watch=true": too old resource version: 1 (542)`}, want{from: "url", untried: true}},
		{"a Go type two resources serve", []string{"-n", ns, "W1130 reflector.go:561] watch of *v1.Event ended with: too old resource version: 1 (100)"}, want{from: "resource-default", stderr: "*v1.Event, which several resources serve (events, events.events.k8s.io)"}},
		{"--resource against the text's Go type", []string{"-n", ns, "--resource", "secrets", "W1130 reflector.go:561] watch of *v1.ConfigMap ended with: too old resource version: 1 (100)"}, want{code: 2, stderr: "names another resource than the error's Go type *v1.ConfigMap (configmaps)"}},
	} {
		t.Run(c2.name, func(t *testing.T) {
			r := framework.Run(t, c.Kubeconfig, time.Minute, append([]string{"explain-error", "--check", "-o", "json"}, c2.args...)...)
			if r.Code != c2.want.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.Code, c2.want.code, r.Stdout, r.Stderr)
			}
			if c2.want.code != 0 {
				if strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, c2.want.stderr) {
					t.Fatalf("want one line saying %q: %s", c2.want.stderr, r.Stderr)
				}
				return
			}
			var e struct {
				Confidence    string   `json:"confidence"`
				Summary       string   `json:"summary"`
				Notes         []string `json:"notes"`
				RequestUnread string   `json:"requestUnread"`
				Check         struct {
					RequestFrom string `json:"requestFrom"`
					TextServer  string `json:"textServer"`
					Untried     string `json:"untried"`
					Tried       *struct {
						Refused bool   `json:"refused"`
						Answer  string `json:"answer"`
					} `json:"tried"`
				} `json:"check"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, r.Stdout)
			}
			notes := strings.Join(e.Notes, "\n")
			if e.Check.RequestFrom != c2.want.from || e.Check.TextServer != c2.want.textServer || !strings.Contains(e.RequestUnread, c2.want.unread) {
				t.Errorf("requestFrom %q, textServer %q, requestUnread %q; want %q, %q, %q", e.Check.RequestFrom, e.Check.TextServer, e.RequestUnread, c2.want.from, c2.want.textServer, c2.want.unread)
			}
			if c2.want.confirmed {
				if e.Check.Tried == nil || !e.Check.Tried.Refused || !strings.Contains(e.Check.Tried.Answer, "The resourceVersion for the provided watch is too old.") {
					t.Fatalf("the server did not refuse the watch from RV 1 with storage's 410: %+v", e.Check.Tried)
				}
				if e.Confidence == "low" || strings.HasPrefix(e.Summary, "the text says: ") || strings.Contains(notes, "another setup") || !strings.Contains(notes, "as the text says") {
					t.Errorf("the measurement agrees, yet: confidence %s, headline %q, notes %q", e.Confidence, e.Summary, e.Notes)
				}
			}
			if c2.want.untried != (e.Check.Untried != "") || c2.want.untried && e.Check.Tried != nil {
				t.Errorf("untried %q, tried %+v; want nothing tried: %v", e.Check.Untried, e.Check.Tried, c2.want.untried)
			}
			if c2.want.stderr != "" {
				h := framework.Run(t, c.Kubeconfig, time.Minute, append([]string{"explain-error", "--check"}, c2.args...)...)
				if !strings.Contains(h.Stderr, c2.want.stderr) {
					t.Errorf("stderr does not say %q: %s", c2.want.stderr, h.Stderr)
				}
			}
		})
	}
}

// A watch --check tries whose connection breaks mid-event (its body cut
// short of its length, or reset) got no answer: tried says it in the one
// wording of a cut body, never that the watch "fails" (the RV refused),
// and the run exits 4 (adversary try 51 F1: "tried: a watch from RV 5
// fails (the stream ended before any event)"). No real server cuts a
// stream mid-event on demand: the scripted server does.
func TestCheckSaysABrokenWatchGotNoAnswer(t *testing.T) {
	ev := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"default","uid":"00000000-0000-0000-0000-000000000002","resourceVersion":"60","creationTimestamp":"2026-01-01T00:00:00Z"}}}` + "\n"
	for _, reset := range []bool{false, true} {
		s := map[string]framework.ScriptAnswer{
			"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: ev + ev, Cut: len(ev) + 40, Reset: reset},
		}
		_, kc := framework.ServeScript(t, s)
		r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "-o", "json", "too old resource version: 5 (100)")
		var e struct {
			Check struct {
				Verdict string `json:"verdict"`
				Tried   *struct {
					Works, Refused, Broken bool
					Answer                 string
				} `json:"tried"`
			} `json:"check"`
		}
		_ = json.Unmarshal([]byte(r.Stdout), &e)
		tr := e.Check.Tried
		if r.Code != 4 || tr == nil || !tr.Broken || tr.Works || tr.Refused || !strings.Contains(tr.Answer, "broke off after") ||
			!strings.Contains(e.Check.Verdict, "got no answer: ") || strings.Contains(e.Check.Verdict, "fails") || strings.Contains(r.Stdout, "ended before any event") {
			t.Errorf("reset %v: exit %d, tried %+v, verdict %q: want exit 4 and no answer, said as a cut body\n%s", reset, r.Code, tr, e.Check.Verdict, r.Stderr)
		}
	}
}

// TestCheckSaysAWatchEndedAtOnceWasAnswered: adversary try 52 F9. A
// watch the server answers and ends before any event (kine without a
// watch cache does so) is an answer: neither a start nor a refusal, never
// "fails", and not the request's failure (it was "error: --check: the
// stream ended before any event", exit 1, naming no server or request).
func TestCheckSaysAWatchEndedAtOnceWasAnswered(t *testing.T) {
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: ""},
	})
	for _, out := range []string{"", "json"} {
		args := []string{"explain-error", "--check", "too old resource version: 5 (100)"}
		if out != "" {
			args = append(args, "-o", out)
		}
		r := framework.Run(t, kc, time.Minute, args...)
		if r.Code != 0 || strings.Contains(r.Stderr, "error:") || strings.Contains(r.Stdout, " fails (") ||
			!strings.Contains(r.Stdout, "was answered, and the server ended its stream before any event") {
			t.Errorf("-o %q: exit %d: want exit 0 and the answer said as one, no failure:\n%s\n%s", out, r.Code, r.Stdout, r.Stderr)
		}
		if out == "json" && !strings.Contains(r.Stdout, `"endedAtOnce": true`) {
			t.Errorf("-o json: no endedAtOnce:\n%s", r.Stdout)
		}
	}
}

// TestCheckSaysWhyAURLWasLeftUnread: adversary try 52 F4. A text whose URL
// names no request (here an object name no object can have) is checked
// on --resource's default, and the run says why, whether or not a request
// was tried (nothing was: no RV to compare with), not only in -o json.
func TestCheckSaysWhyAURLWasLeftUnread(t *testing.T) {
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{})
	r := framework.Run(t, kc, time.Minute, "explain-error", "--check",
		"I1130 round_trippers.go:553] GET https://127.0.0.1:1/apis/rbac.authorization.k8s.io/v1/watch/clusterroles/nope%1b%5b31mx?resourceVersion=5 410 Gone in 3 milliseconds")
	if !strings.Contains(r.Stderr, "Note: the text's URL names no request to ask again: ") || strings.Contains(r.Stderr+r.Stdout, "\x1b") {
		t.Errorf("exit %d: want the note saying why the URL was left unread (no raw escape):\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
