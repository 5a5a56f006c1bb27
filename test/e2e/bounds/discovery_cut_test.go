//go:build e2e

package bounds

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A discovery document whose body broke off names that document and the
// bytes that came, in words (adversary try 16: a cut /api/v1 was "cannot
// read discovery (/api and /apis) ...: unexpected EOF"), in the one
// wording of a cut body (apiclient.BodyCutError); one that is no
// JSON says so, never the YAML decoder's grammar ("yaml: mapping values
// are not allowed in this context").
func TestDiscoveryCutsAndNonJSONNameTheDocument(t *testing.T) {
	core := framework.ScriptDefaults()["/api/v1"]
	apps := framework.ScriptDefaults()["/apis/apps/v1"]
	cut := func(a framework.ScriptAnswer) framework.ScriptAnswer { a.Cut = 40; return a }
	body := func(b string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: b}
	}
	raw := []string{"!unexpected EOF", "!yaml: ", "!/api and /apis", "!GET GET"}
	for _, c := range []struct {
		name   string
		path   string
		answer framework.ScriptAnswer
		args   []string
		code   int
		words  []string
	}{
		{"v1 cut", "/api/v1", cut(core), []string{"list", "cm"}, 4, []string{"cannot read the discovery of v1", "the answer to GET /api/v1 broke off after 40 bytes: the connection closed before the answer's end"}},
		{"v1 cut, watch", "/api/v1", cut(core), []string{"watch", "cm", "--timeout", "3s"}, 4, []string{"cannot read the discovery of v1", "broke off after 40 bytes"}},
		{"v1 cut, probe", "/api/v1", cut(core), []string{"probe", "cm"}, 4, []string{"cannot read the discovery of v1", "broke off after 40 bytes"}},
		{"apps cut", "/apis/apps/v1", cut(apps), []string{"list", "deployments"}, 4, []string{"apps/v1", "the answer to GET /apis/apps/v1 broke off after 40 bytes: the connection closed before the answer's end"}},
		{"apps yaml", "/apis/apps/v1", body("ok: fine: x"), []string{"list", "deployments"}, 1, []string{"apps/v1", "is not a discovery document of apps/v1 (its body is not the JSON of one)"}},
		{"apps tab", "/apis/apps/v1", body("\tx"), []string{"list", "deployments"}, 1, []string{"apps/v1", "is not a discovery document of apps/v1 (its body is not the JSON of one)"}},
		{"apis not JSON", "/apis", framework.ScriptAnswer{Code: 200, Type: "text/plain", Body: "groups:\n- name: apps\n  versions: []\n"}, []string{"list", "deployments"}, 1, []string{"the answer to GET /apis is not a discovery document"}},
		{"apps another kind", "/apis/apps/v1", body(`{"kind":"Pod","apiVersion":"v1"}`), []string{"list", "deployments"}, 1, []string{"apps/v1", "it is another kind of object than an APIResourceList", "!conversion", "!scheme"}},
		{"apps unknown kind", "/apis/apps/v1", body("kind: x\n"), []string{"list", "deployments"}, 1, []string{"apps/v1", "it is another kind of object than an APIResourceList", "!scheme.go"}},
		{"apps control byte", "/apis/apps/v1", body("<html>\x1b</html>"), []string{"probe", "--all"}, 12, []string{"apps/v1", "its body is not the JSON of one"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{c.path: c.answer})
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, append(c.args, "--request-timeout", "5s")...)
			checkRun(t, r, faultCase{framework.Fault("script " + c.name), c.args, c.code, append(c.words, raw...), 30 * time.Second})
		})
	}
}

// A typo's suggestion reads discovery again with another Accept: a server
// without aggregated discovery answers it with the one plain document,
// sent once (adversary try 17: /api and /apis were sent twice).
func TestATypoSendsEachDiscoveryDocumentOnce(t *testing.T) {
	s, kc := framework.ServeScript(t, nil)
	r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "list", "configmapz")
	checkRun(t, r, faultCase{framework.Fault("script"), []string{"list", "configmapz"}, 9, []string{`did you mean "configmaps"`}, 30 * time.Second})
	for _, p := range []string{"/api", "/apis", "/api/v1", "/apis/apps/v1"} {
		if n := s.Asked(p); n > 1 {
			t.Errorf("GET %s was sent %d times in one run, want at most once", p, n)
		}
	}
}
