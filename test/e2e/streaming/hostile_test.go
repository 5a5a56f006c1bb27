//go:build e2e

package streaming

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// C11 and E22 (issue 25): through a front on the real v1.37.2 API server,
// the streaming list of one namespace's configmaps (a and b) is the
// server's own, rewritten into sequences no real server sends; the list
// the plugin compares with is the server's. The plugin judges the state a
// client-go v0.37.2 informer would hold (by namespace/name, UID and RV),
// and one exit rule gives each outcome its code: ADDED a twice with b
// never sent was "correct, OBJECTS 2", ADDED a, ADDED b, DELETED b
// "correct", MODIFIED a then ADDED b "incorrect"; a 410 refusal exited 0.
func TestHostileStreamsAreJudgedByTheInformersStore(t *testing.T) {
	ctx := context.Background()
	cs, ns := framework.Namespace(t, cluster, "hostile")
	for _, name := range []string{"a", "b"} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	front := framework.StartStreamFront(t, cluster.APIServers[0])
	kubeconfig, err := cluster.WriteKubeconfigFor("hostile.kubeconfig", front.URL, front.CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	// by names the real events of one stream: "a", "b" and the bookmark.
	by := func(evs []framework.StreamEvent) map[string]framework.StreamEvent {
		m := map[string]framework.StreamEvent{}
		for _, e := range evs {
			if e.Type == "BOOKMARK" {
				m["end"] = e
			} else {
				m[e.Name()] = e
			}
		}
		if len(m) != 3 {
			t.Errorf("the real stream is not a, b and the bookmark: %d events", len(evs))
		}
		return m
	}
	seq := func(f func(m map[string]framework.StreamEvent) []framework.StreamEvent) func([]framework.StreamEvent) []framework.StreamEvent {
		return func(evs []framework.StreamEvent) []framework.StreamEvent { return f(by(evs)) }
	}
	type ev = map[string]framework.StreamEvent
	type evs = []framework.StreamEvent
	cases := []struct {
		name    string
		script  func([]framework.StreamEvent) []framework.StreamEvent
		status  streaming.Status
		objects int
		code    int
		words   string
	}{
		{"the server's own stream", seq(func(m ev) evs { return evs{m["a"], m["b"], m["end"]} }), streaming.StatusCorrect, 2, 0, ""},
		{"ADDED a twice, b never sent", seq(func(m ev) evs { return evs{m["a"], m["a"], m["end"]} }), streaming.StatusIncorrect, 1, 1, "1 missing (" + ns + "/b)"},
		{"ADDED a, ADDED b, DELETED b", seq(func(m ev) evs { return evs{m["a"], m["b"], m["b"].As("DELETED"), m["end"]} }), streaming.StatusIncorrect, 1, 1, "1 missing (" + ns + "/b)"},
		{"MODIFIED a, then ADDED b", seq(func(m ev) evs { return evs{m["a"].As("MODIFIED"), m["b"], m["end"]} }), streaming.StatusCorrect, 2, 0, ""},
		{"DELETED of an object never sent", seq(func(m ev) evs { return evs{m["a"].Renamed("gone").As("DELETED"), m["a"], m["b"], m["end"]} }), streaming.StatusCorrect, 2, 0, ""},
		{"an object the list does not hold", seq(func(m ev) evs { return evs{m["a"], m["b"], m["a"].Renamed("extra"), m["end"]} }), streaming.StatusIncorrect, 3, 1, "1 extra (" + ns + "/extra)"},
		{"the bookmark first", seq(func(m ev) evs { return evs{m["end"], m["a"], m["b"]} }), streaming.StatusIncorrect, 0, 1, "2 missing"},
		{"a progress bookmark in between", seq(func(m ev) evs {
			p := framework.StreamEvent{Type: "BOOKMARK", Object: map[string]any{"kind": "ConfigMap", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "1"}}}
			return evs{m["a"], p, m["b"], m["end"]}
		}), streaming.StatusCorrect, 2, 0, ""},
		{"an ERROR event 410", seq(func(m ev) evs {
			return evs{{Type: "ERROR", Object: map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "too old resource version: 1 (2)", "reason": "Expired", "code": 410}}}
		}), streaming.StatusRefused, 0, 1, "refused the streaming list of configmaps with 410 Expired: too old resource version: 1 (2); it is retried"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			front.Script(path, c.script)
			rep, r := check(t, kubeconfig, "configmaps", "-n", ns, "--deadline", "5s")
			row := only(t, rep)
			t.Logf("exit %d: %s objects %d (%d ADDED) %v", r.Code, row.Status, row.InitialObjects, row.AddedEvents, row.Problems)
			if row.Status != c.status || row.InitialObjects != c.objects || r.Code != c.code {
				t.Fatalf("got %s, %d objects, exit %d; want %s, %d, exit %d: %+v %s", row.Status, row.InitialObjects, r.Code, c.status, c.objects, c.code, row, r.Stderr)
			}
			if c.words != "" && !strings.Contains(r.Stderr, c.words) {
				t.Fatalf("stderr lacks %q: %s", c.words, r.Stderr)
			}
		})
	}
	// E22: a refusal with 410 (or a TooLarge 504) is retried by client-go
	// as a streaming watch: the server does not stream, exit 1 (docs). In
	// --all (the namespace also holds the aggregated gadgets, which hang:
	// exit 1 whatever else) the configmaps row is a refusal.
	for _, c := range []struct {
		code          int
		reason, words string
	}{
		{410, "Expired", "too old resource version: 1 (2)"},
		{504, "Timeout", "Timeout: Too large resource version: 99999999, current: 5"},
	} {
		front.Refuse(path, c.code, c.reason, c.words)
		rep, r := check(t, kubeconfig, "configmaps", "-n", ns)
		row := only(t, rep)
		if row.Status != streaming.StatusRefused || row.Informer != streaming.InformerRetries || r.Code != 1 || !strings.Contains(r.Stderr, "refused the streaming list") {
			t.Fatalf("%d refusal: %s/%s exit %d, want refused/retries exit 1: %s", c.code, row.Status, row.Informer, r.Code, r.Stderr)
		}
		all, ar := check(t, kubeconfig, "--all", "-n", ns, "--qps", "50", "--deadline", "3s")
		if got := rowOf(all, "configmaps"); got.Status != streaming.StatusRefused || ar.Code != 1 || !strings.Contains(ar.Stderr, "will hang on 1 resource: "+gadgets) {
			t.Fatalf("--all with configmaps refused %d: configmaps %s, exit %d: %s", c.code, got.Status, ar.Code, ar.Stderr)
		}
	}
	// An incorrect state is a verdict of its own in --all, named beside
	// the hang.
	front.Script(path, seq(func(m ev) evs { return evs{m["a"], m["a"], m["end"]} }))
	all := framework.Run(t, kubeconfig, 3*time.Minute, "streaming", "--all", "-n", ns, "--qps", "50", "--deadline", "3s")
	if all.Code != 1 || !strings.Contains(all.Stderr, "will sync a wrong state (one that does not match a list, or whose RV no watch resumes from) on 1 resource: configmaps") {
		t.Fatalf("--all with configmaps incorrect: exit %d, want 1: %s", all.Code, all.Stderr)
	}
}

// rowOf is the row of resource in an --all report.
func rowOf(rep render.StreamingReport, resource string) streaming.Result {
	for _, r := range rep.Resources {
		if r.Resource == resource {
			return r
		}
	}
	return streaming.Result{}
}
