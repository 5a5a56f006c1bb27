//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// goDecoderWords are encoding/json's words for a value of another type
// than the field's, which name Go's types and fields: none may reach any
// output (adversary try 19 #4).
var goDecoderWords = []string{"!Go struct", "!Go value", "!of type", "!json:", "!Time.UnmarshalJSON", "!2006-01-02", "!where the API has a number"}

// unreadableWords: the one error line of an answer that came and cannot
// be read, named with the server and the request, with its fix.
func unreadableWords(server, what string) []string {
	return append([]string{"the API server at " + server + " answered ", "with a body that cannot be read: ", what,
		"no API server sends it; check that the kubeconfig's server is the API server and what any proxy in front of it answers"}, goDecoderWords...)
}

// TestEveryDecoderSaysItInTheAPIsWords (adversary try 19 #4 and #13): a
// value of another JSON type than the API's, in every field the plugin
// decodes, through every decoder of outside JSON (watch events and their
// ERROR Status, list pages and their items, /version, discovery
// documents, the EndpointSlices of --servers), in every command that
// reads it: one error line that names the server and the request and
// says what was wrong in the API's words (the field's JSON path, what the
// API has there), exit 1; never encoding/json's words with Go's types. A
// /version without a gitVersion string is such an answer too: exit 1, as
// one that is not JSON, never exit 0 with nothing said.
func TestEveryDecoderSaysItInTheAPIsWords(t *testing.T) {
	const within = 30 * time.Second
	type decoded struct {
		name, body, words string
	}
	meta := func(m string) string { return `{"metadata":` + m + `}` }
	objects := []decoded{
		{"name-number", meta(`{"name":5}`), `"metadata.name" is a JSON number, where the API has a string`},
		{"rv-number", meta(`{"name":"a","resourceVersion":7}`), `"metadata.resourceVersion" is a JSON number, where the API has a string`},
		{"uid-object", meta(`{"name":"a","uid":{"x":1}}`), `"metadata.uid" is a JSON object, where the API has a string`},
		{"created-number", meta(`{"name":"a","creationTimestamp":5}`), `"metadata.creationTimestamp" is a JSON number, where the API has a string`},
		{"annotation-number", meta(`{"name":"a","annotations":{"a":5}}`), `"metadata.annotations" is a JSON number, where the API has a string`},
		{"managed-time", meta(`{"name":"a","managedFields":[{"time":"yesterday"}]}`), `the time "yesterday" is not in RFC 3339`},
		{"metadata-list", meta(`[1]`), `"metadata" is a JSON array, where the API has an object`},
	}
	var cases []struct {
		on     string
		script map[string]framework.ScriptAnswer
		args   [][]string
		d      decoded
	}
	add := func(on string, paths []string, body string, args [][]string, d decoded) {
		script := map[string]framework.ScriptAnswer{}
		for _, p := range paths {
			script[p] = framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}
		}
		cases = append(cases, struct {
			on     string
			script map[string]framework.ScriptAnswer
			args   [][]string
			d      decoded
		}{on, script, args, d})
	}
	watchPaths := []string{"/api/v1/namespaces/default/configmaps?watch", "/api/v1/configmaps?watch"}
	// --follow reads the server's facts before it watches and tries the
	// watch again until its --timeout: time for both on a loaded machine
	// (make test-long: the 3 s the watch had ran out before its answer
	// was read, exit 0, nothing said).
	watches := [][]string{{"watch", "cm", "--rv", "5", "--timeout", "3s"}, {"watch", "cm", "--rv", "5", "--follow", "--timeout", "8s"}, {"streaming", "cm"}}
	listPaths := []string{"/api/v1/namespaces/default/configmaps", "/api/v1/configmaps"}
	lists := [][]string{{"list", "cm"}, {"probe", "cm"}, {"watch", "cm", "--rv", "list", "--timeout", "3s"}}
	for _, o := range objects {
		d := o
		d.words = `"object.` + strings.TrimPrefix(o.words, `"`)
		if !strings.HasPrefix(o.words, `"`) {
			d.words = o.words
		}
		add("watch", watchPaths, `{"type":"ADDED","object":`+o.body+"}\n", watches, decoded{o.name, "", "an event that does not decode: " + d.words})
		w := o.words
		add("list", listPaths, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[`+o.body+`]}`, lists, decoded{o.name, "", w})
	}
	for _, f := range []decoded{
		{"object-string", `{"type":"ADDED","object":"str"}`, `"object" is a JSON string, where the API has an object`},
		{"type-number", `{"type":5}`, `"type" is a JSON number, where the API has a string`},
		{"frame-list", `[1]`, `it is a JSON array, where the API has an object`},
		{"error-object-list", `{"type":"ERROR","object":[1,2]}`, `"object" is a JSON array, where the API has an object`},
		{"error-code-past-int32", `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","reason":"Timeout","code":99999999999}}`, `an ERROR event whose Status's "code" does not decode: it is the JSON number 99999999999, where the API has a 32-bit integer`},
		{"error-code-string", `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","reason":"Expired","code":"410"}}`, `an ERROR event whose Status's "code" does not decode: it is a JSON string, where the API has a 32-bit integer`},
	} {
		add("watch", watchPaths, f.body+"\n", watches, f)
	}
	for _, p := range []decoded{
		{"page-rv-number", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":100},"items":[]}`, `"resourceVersion" is a JSON number, where the API has a string`},
		{"page-items-string", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":["a"]}`, `it is a JSON string, where the API has an object`},
		{"page-status-code", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","reason":"Expired","code":99999999999}`, `the list answer was a Status that does not decode: "code" is the JSON number 99999999999, where the API has a 32-bit integer`},
	} {
		add("list", listPaths, p.body, lists, p)
	}
	for _, v := range []decoded{
		{"version-list", `[1]`, `it is a JSON array, where the API has an object`},
		{"version-numbers", `{"major":1,"minor":37}`, `"minor" is a JSON number, where the API has a string`},
		{"version-empty", `{}`, `/version has no gitVersion`},
		{"version-git-number", `{"gitVersion":5}`, `"gitVersion" is a JSON number, where the API has a string`},
	} {
		add("version", []string{"/version"}, v.body, [][]string{{"version"}}, v)
	}
	for _, d := range []decoded{
		{"discovery-name-number", `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":5,"namespaced":true,"kind":"ConfigMap","verbs":["list"]}]}`, "is not a discovery document"},
		{"discovery-verbs-string", `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":"list"}]}`, "is not a discovery document"},
	} {
		add("discovery", []string{"/api/v1"}, d.body, [][]string{{"list", "cm"}, {"watch", "cm", "--timeout", "3s"}, {"probe", "cm"}, {"streaming", "cm"}}, d)
	}
	// The EndpointSlices --servers reads (over TLS, which it needs).
	for _, d := range []decoded{
		{"endpoints-number", `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{"resourceVersion":"1"},"items":[{"addressType":"IPv4","endpoints":5}]}`, `"items.endpoints" is a JSON number, where the API has a list`},
		{"port-string", `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{"resourceVersion":"1"},"items":[{"addressType":"IPv4","endpoints":[],"ports":[{"port":"443"}]}]}`, `"items.ports.port" is a JSON string, where the API has a 32-bit integer`},
	} {
		s := framework.StartTLSScriptServer(map[string]framework.ScriptAnswer{framework.EndpointSlicesPath: {Code: 200, Type: "application/json", Body: d.body}})
		t.Cleanup(s.Close)
		kc, err := s.Kubeconfig(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"list", "cm", "--servers"}, {"probe", "cm", "--servers"}} {
			t.Run("servers "+d.name+" "+strings.Join(args, " "), func(t *testing.T) {
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, args...)
				checkRun(t, r, faultCase{framework.Fault("decode-" + d.name), args, 1, unreadableWords(s.URL(), d.words), within})
			})
		}
	}
	for _, c := range cases {
		s, kc := framework.ServeScript(t, c.script)
		for _, args := range c.args {
			t.Run(c.on+" "+c.d.name+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, args...)
				checkRun(t, r, faultCase{framework.Fault("decode-" + c.d.name), args, 1, unreadableWords(s.URL(), c.d.words), within})
			})
		}
		if c.on == "version" {
			// list reads /version for its server facts and goes on
			// without it: what it assumed says why, in the same words
			// (in JSON: its quotes escaped).
			args := []string{"list", "cm", "-o", "json"}
			t.Run(c.on+" "+c.d.name+" "+strings.Join(args, " "), func(t *testing.T) {
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, args...)
				checkRun(t, r, faultCase{framework.Fault("decode-" + c.d.name), args, 0, append([]string{"server version unknown (GET /version: ", strings.ReplaceAll(c.d.words, `"`, `\"`)}, goDecoderWords...), within})
			})
		}
	}
}
