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
	for _, w := range []string{"error: 1 of 3 resources answered in breach of the List or Watch contract (the first, namespaces: this API server broke the Watch contract: ", ", and 2 more failed"} {
		if !strings.Contains(all.Stderr, w) {
			t.Errorf("the error line lacks %q:\n%s", w, all.Stderr)
		}
	}
	if strings.Contains(all.Stderr, "Other:") {
		t.Errorf("the error line says a class word, \"Other:\":\n%s", all.Stderr)
	}
	if strings.Contains(all.Stdout, "are unknown (the check failed) on namespaces") || !strings.Contains(all.Stdout, "broke the List or Watch contract (see the NOTE) on namespaces") {
		t.Errorf("the verdict does not say the measured break:\n%s", all.Stdout)
	}
}
