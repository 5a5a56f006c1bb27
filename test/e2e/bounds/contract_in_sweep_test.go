//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAContractBreakInASweepIsMeasured (adversary try 34 F3): in
// streaming --all, a stream that broke the Watch contract is a measured
// answer: the verdict does not call it "unknown (the check failed)", the
// error line leads with it in the plugin's words (no class word such as
// "Other:"), and the run exits 1, as `streaming RESOURCE` does for the
// same answer, whatever else failed. The list to compare with, answered
// 429 first, is said as its answer in the NOTE.
func TestAContractBreakInASweepIsMeasured(t *testing.T) {
	j := func(code int, body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: code, Type: "application/json", Body: body}
	}
	script := map[string]framework.ScriptAnswer{
		"/api/v1": j(200, `{"kind":"APIResourceList","groupVersion":"v1","resources":[`+
			`{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list","watch"],"shortNames":["ns"]},`+
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]}`),
		"/api/v1/namespaces": j(200, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[{"metadata":{"name":"a","resourceVersion":"99"}}]}`),
		// A cluster-scoped object sent with a namespace: outside the request.
		"/api/v1/namespaces?watch": j(200, `{"type":"ADDED","object":{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"99"}}}`+"\n"+
			`{"type":"BOOKMARK","object":{"kind":"Namespace","apiVersion":"v1","metadata":{"resourceVersion":"100","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n"),
	}
	_, kc := framework.ServeScript(t, script)
	all := framework.Run(t, kc, time.Minute, "streaming", "--all", "--deadline", "5s")
	one := framework.Run(t, kc, time.Minute, "streaming", "namespaces", "--deadline", "5s")
	if one.Code != 1 || !strings.Contains(one.Stderr, "broke the Watch contract") {
		t.Fatalf("streaming namespaces: exit %d, want 1 for the broken Watch contract (the case does not reach what it attacks):\n%s%s", one.Code, one.Stdout, one.Stderr)
	}
	if all.Code != 1 {
		t.Errorf("streaming --all: exit %d, want 1 as streaming namespaces gives the same answer:\n%s%s", all.Code, all.Stdout, all.Stderr)
	}
	for _, w := range []string{"error: 1 of 3 resources answered in breach of the List or Watch contract (namespaces: this API server broke the Watch contract: ", ", and 2 more failed"} {
		if !strings.Contains(all.Stderr, w) {
			t.Errorf("the error line lacks %q:\n%s", w, all.Stderr)
		}
	}
	if strings.Contains(all.Stderr, "Other:") {
		t.Errorf("the error line says a class word, \"Other:\":\n%s", all.Stderr)
	}
	if strings.Contains(all.Stdout, "cannot be judged (the check failed) on namespaces") || !strings.Contains(all.Stdout, "broke the List or Watch contract (see the NOTE) on namespaces") {
		t.Errorf("the verdict does not say the measured break:\n%s", all.Stdout)
	}
}

// TestAProbesConfirmingListInBreachIsTheAnswer (adversary try 38 F1, F2):
// a silent watch from RV 1 is confirmed by an exact list at RV 2, which
// this server answers at RV 100: a List contract breach. It is the row's
// answer, in its own words (never "got request failed"), the run exits 1
// as `probe RESOURCE` does, and the breaching rows show no current RV,
// which the summary line says as the table shows it.
func TestAProbesConfirmingListInBreachIsTheAnswer(t *testing.T) {
	j := func(code int, body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: code, Type: "application/json", Body: body}
	}
	script := map[string]framework.ScriptAnswer{
		"/api/v1": j(200, `{"kind":"APIResourceList","groupVersion":"v1","resources":[`+
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]},`+
			`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list","watch"]}]}`),
		// Every list, the exact one at RV 2 too, is answered at RV 100.
		"/api/v1/configmaps":       j(200, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`),
		"/api/v1/secrets":          j(200, `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`),
		"/api/v1/configmaps?watch": {StartsFrom: 1},
		"/api/v1/secrets?watch":    {StartsFrom: 1},
	}
	_, kc := framework.ServeScript(t, script)
	one := framework.Run(t, kc, time.Minute, "probe", "configmaps", "-A", "--request-timeout", "5s", "-v")
	all := framework.Run(t, kc, time.Minute, "probe", "--all", "--request-timeout", "5s")
	if !strings.Contains(all.Stdout+all.Stderr, "an exact list at RV 2 was answered at RV 100") {
		t.Fatalf("probe --all does not say the exact list's breach (the case does not reach what it attacks):\n%s%s", all.Stdout, all.Stderr)
	}
	if all.Code != 1 || one.Code != 1 {
		t.Errorf("exit %d (--all) and %d (one), want 1 for an answer in breach of the List contract:\n%s%s\n%s%s", all.Code, one.Code, all.Stdout, all.Stderr, one.Stdout, one.Stderr)
	}
	for _, bad := range []string{"request failed", "Other:", "could not be measured"} {
		if strings.Contains(all.Stdout+all.Stderr, bad) {
			t.Errorf("probe --all says %q of an answer in breach:\n%s%s", bad, all.Stdout, all.Stderr)
		}
	}
	// The script serves deployments.apps too, whose row is measured.
	// The probe's row says the list it was, answered (adversary try 39 F5).
	if strings.Contains(one.Stdout+one.Stderr, "request failed") || !strings.Contains(one.Stdout+one.Stderr, "the exact list at RV 2 that would have confirmed a silent watch from RV 1") {
		t.Errorf("probe -v does not say the exact list it was:\n%s%s", one.Stdout, one.Stderr)
	}
	if !strings.Contains(all.Stderr, "error: 2 of 3 resources answered in breach of the List or Watch contract") {
		t.Errorf("the error line does not lead with the breach:\n%s", all.Stderr)
	}
	for _, line := range strings.Split(all.Stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == "configmaps" || f[0] == "secrets") && f[1] != "-" {
			t.Errorf("a breaching row shows a current RV: %q", line)
		}
	}
	if !strings.Contains(all.Stderr+all.Stdout, "shared by 1 of the 3 rows; 2 failed rows give none") {
		t.Errorf("the summary does not say what the table shows:\n%s%s", all.Stdout, all.Stderr)
	}
}
