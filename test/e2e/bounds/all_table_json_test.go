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
//
// Adversary try 44 D: a failed row's document said "width": 0 (a measured
// zero-width window, to a reader), "currentFrom": "own" with no RV, and
// runCurrent "at": "0001-01-01T00:00:00Z" where the table said CURRENT RV
// -, WIDTH ? and no row read a current RV. Every field the table shows as
// unknown is absent from the document (windowKnown false, as pkg/servers'
// rows say it), over a 500 row too.
func TestProbeAllsTableAndDocumentAgreeOnEveryRow(t *testing.T) {
	forbidden := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"secrets is forbidden: User \"u\" cannot list resource \"secrets\"","reason":"Forbidden","details":{"kind":"secrets"},"code":403}`
	script := map[string]framework.ScriptAnswer{
		"/api/v1": {Code: 200, Type: "application/json", Body: `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
			`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list","watch"]},` +
			`{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["get","list","watch"]},` +
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]}`},
		// configmaps' watch from RV 1 replays an event above the current
		// RV: a row in breach.
		"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"150"}}}` + "\n"},
	}
	for _, p := range []string{"/api/v1/namespaces/default/secrets", "/api/v1/secrets"} {
		script[p] = framework.ScriptAnswer{Code: 403, Type: "application/json", Body: forbidden}
		script[p+"?watch"] = framework.ScriptAnswer{Code: 403, Type: "application/json", Body: forbidden}
	}
	boom := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom","reason":"InternalError","code":500}`
	for _, p := range []string{"/api/v1/namespaces/default/services", "/api/v1/services"} {
		script[p] = framework.ScriptAnswer{Code: 500, Type: "application/json", Body: boom}
		script[p+"?watch"] = framework.ScriptAnswer{Code: 500, Type: "application/json", Body: boom}
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
		// The same rows, as the document has them: which fields are there.
		var raw struct {
			Resources  []map[string]any `json:"resources"`
			RunCurrent map[string]any   `json:"runCurrent"`
		}
		if err := json.Unmarshal([]byte(j.Stdout), &raw); err != nil {
			t.Fatal(err)
		}
		if _, read := raw.RunCurrent["currentResourceVersion"]; !read {
			for _, k := range []string{"at", "from"} {
				if _, ok := raw.RunCurrent[k]; ok {
					t.Errorf("%v: runCurrent read no RV, yet gives %q: %v", args, k, raw.RunCurrent)
				}
			}
		}
		table := map[string][]string{}
		for _, l := range strings.Split(r.Stdout, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[0] != "RESOURCE" {
				table[f[0]] = f
			}
		}
		failed := 0
		for i, row := range doc.Resources {
			cells, ok := table[row.Resource]
			if !ok {
				t.Errorf("%v: no table row for %s:\n%s", args, row.Resource, r.Stdout)
				continue
			}
			fields := raw.Resources[i]
			if row.Error != "" && (strings.HasPrefix(row.Resource, "secrets") || strings.HasPrefix(row.Resource, "services")) {
				failed++
			}
			if cells[1] == "-" {
				for _, k := range []string{"currentResourceVersion", "currentFrom"} {
					if v, ok := fields[k]; ok {
						t.Errorf("%v: %s: the table's CURRENT RV is -, the document's %s %v", args, row.Resource, k, v)
					}
				}
			}
			known, _ := fields["windowKnown"].(bool)
			if _, ok := fields["windowKnown"]; !ok || known != (cells[3] != "?") {
				t.Errorf("%v: %s: the table's WIDTH is %q, the document's windowKnown %v", args, row.Resource, cells[3], fields["windowKnown"])
			}
			if !known {
				for _, k := range []string{"width", "oldestResourceVersion"} {
					if v, ok := fields[k]; ok {
						t.Errorf("%v: %s: the window is not known (WIDTH %s), yet the document gives %s %v", args, row.Resource, cells[3], k, v)
					}
				}
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
			if (strings.HasPrefix(row.Resource, "secrets") || strings.HasPrefix(row.Resource, "services")) && row.Current != "" {
				t.Errorf("%v: the failed row gives the current RV %q", args, row.Current)
			}
		}
		if failed != 2 {
			t.Errorf("%v: %d of the forbidden and the 500 rows failed, want both: the test does not reach what it attacks:\n%s", args, failed, r.Stdout)
		}
	}
}
