//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestProbeAllsTableAndDocumentAgreeOnEveryRow (adversary try 41 F7):
// probe --all's table and its -o json are one model: each row's CURRENT
// RV is the document's currentResourceVersion ("-" where it has none),
// its OLDEST RV "?" where the document found none; a failed row whose
// own requests measured nothing gives no current RV and no bracket in
// either (the run's RV and the search's starting bracket "(0, current]"
// are no measure of it). Over a forbidden resource, an answer in breach
// (an event above the current RV) and rows that answered.
func TestProbeAllsTableAndDocumentAgreeOnEveryRow(t *testing.T) {
	forbidden := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"secrets is forbidden: User \"u\" cannot list resource \"secrets\"","reason":"Forbidden","details":{"kind":"secrets"},"code":403}`
	script := map[string]framework.ScriptAnswer{
		"/api/v1": {Code: 200, Type: "application/json", Body: `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
			`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list","watch"]},` +
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]}`},
		// configmaps' watch from RV 1 replays an event above the current
		// RV: a row in breach.
		"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"150"}}}` + "\n"},
	}
	for _, p := range []string{"/api/v1/namespaces/default/secrets", "/api/v1/secrets"} {
		script[p] = framework.ScriptAnswer{Code: 403, Type: "application/json", Body: forbidden}
		script[p+"?watch"] = framework.ScriptAnswer{Code: 403, Type: "application/json", Body: forbidden}
	}
	_, kc := framework.ServeScript(t, script)
	for _, ns := range [][]string{{"-n", "default"}, {"-A"}} {
		args := append([]string{"probe", "--all"}, ns...)
		r := framework.Run(t, kc, time.Minute, args...)
		j := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
		var doc struct {
			Resources []struct {
				Resource string         `json:"resource"`
				Current  string         `json:"currentResourceVersion"`
				Oldest   string         `json:"oldestResourceVersion"`
				Found    bool           `json:"found"`
				Bracket  map[string]any `json:"bracket"`
				Error    string         `json:"error"`
				Details  []struct {
					Outcome string `json:"outcome"`
				} `json:"probeDetails"`
			} `json:"resources"`
		}
		if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || len(doc.Resources) < 3 || r.Code != j.Code {
			t.Fatalf("%v: exit %d and %d, %v: want the rows in both forms:\n%s\n%s%s", args, r.Code, j.Code, err, r.Stdout, j.Stdout, j.Stderr)
		}
		table := map[string][]string{}
		for _, l := range strings.Split(r.Stdout, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[0] != "RESOURCE" {
				table[f[0]] = f
			}
		}
		for _, row := range doc.Resources {
			cells, ok := table[row.Resource]
			if !ok {
				t.Errorf("%v: no table row for %s:\n%s", args, row.Resource, r.Stdout)
				continue
			}
			current := row.Current
			if current == "" {
				current = "-"
			}
			if cells[1] != current {
				t.Errorf("%v: %s: the table's CURRENT RV is %q, the document's %q", args, row.Resource, cells[1], row.Current)
			}
			if !row.Found && cells[2] != "?" || row.Found && cells[2] != row.Oldest {
				t.Errorf("%v: %s: the table's OLDEST RV is %q, the document's %q (found %v)", args, row.Resource, cells[2], row.Oldest, row.Found)
			}
			answered := false
			for _, d := range row.Details {
				answered = answered || d.Outcome == "ok" || d.Outcome == "expired"
			}
			if row.Error != "" && row.Bracket != nil && !answered {
				t.Errorf("%v: %s failed with no watch answered, yet the document gives a bracket %v", args, row.Resource, row.Bracket)
			}
			if strings.HasPrefix(row.Resource, "secrets") && row.Current != "" {
				t.Errorf("%v: the forbidden row gives the current RV %q", args, row.Current)
			}
		}
	}
}
