//go:build e2e

package bounds

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestRVsThatGoBackAreNeverNumbers (adversary try 19 #9, #18): RVs that
// go back, as one API server's never do (different servers behind one
// address, or an etcd restored from a backup), are said as such, never
// reported as numbers: a current RV lower each --interval round is no
// write rate ("-699.8 RV/s") and no "nothing was written"; a watch
// cache's 410 naming an oldest RV above the current RV the lists read is
// no CURRENT RV of its own (5000, which no request returned) and no width,
// with probe, --verify and --all. Exit 1, never 0. The same RVs in order
// (the cluster wrote between the list and the watch) are measured.
func TestRVsThatGoBackAreNeverNumbers(t *testing.T) {
	rate := regexp.MustCompile(`-?\d+\.\d RV/s`)
	t.Run("current RV back between rounds", func(t *testing.T) {
		_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{4300, 3600, 2900, 2200, 1500, 800}, Oldest: 50})
		r := framework.Run(t, kc, time.Minute, "probe", "cm", "--interval", "1s", "--duration", "3s")
		out := r.Stdout + r.Stderr
		if r.Code != 1 || rate.MatchString(out) || strings.Contains(out, "nothing was written") ||
			!strings.Contains(r.Stdout, "not measured: the current RV went back between rounds") || !strings.Contains(r.Stderr, "read the current RV 3600, below the current RV 4300") {
			t.Errorf("exit %d, want 1, the RVs that went back named, no rate:\n%s", r.Code, out)
		}
		var doc map[string]any
		j := framework.Run(t, kc, time.Minute, "probe", "cm", "--interval", "1s", "--duration", "2s", "-o", "json")
		if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || j.Code != 1 || doc["currentRVPerSecond"] != nil || doc["oldestRVPerSecond"] != nil || doc["rvsOutOfOrder"] == nil {
			t.Errorf("-o json: exit %d, %v: want 1, no rate, rvsOutOfOrder\n%s", j.Code, err, j.Stdout)
		}
	})
	t.Run("current RV forward between rounds", func(t *testing.T) {
		_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000, 1100, 1200, 1300, 1400, 1500, 1600}, Oldest: 50})
		r := framework.Run(t, kc, time.Minute, "probe", "cm", "--interval", "1s", "--duration", "2s")
		if r.Code != 0 || !rate.MatchString(r.Stdout) || strings.Contains(r.Stdout, "not measured") {
			t.Errorf("exit %d, want 0 and a rate:\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
	})
	for _, args := range [][]string{{"probe", "cm"}, {"probe", "cm", "--verify"}, {"probe", "--all", "-n", "default"}} {
		t.Run("oldest above the current RV: "+strings.Join(args, " "), func(t *testing.T) {
			_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000}, Oldest: 5000})
			r := framework.Run(t, kc, time.Minute, args...)
			if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "read the current RV 1000, below RV 500") || regexp.MustCompile(`\b5000\s+5000\b|\b5000\s+0\s`).MatchString(r.Stdout) {
				t.Errorf("exit %d, want 1, the RVs that went back named, no CURRENT RV 5000 nor width 0:\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			j := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
			rows := []map[string]any{}
			var one map[string]any
			var all struct {
				Resources []map[string]any `json:"resources"`
			}
			if json.Unmarshal([]byte(j.Stdout), &all) == nil && len(all.Resources) > 0 {
				rows = all.Resources
			} else if json.Unmarshal([]byte(j.Stdout), &one) == nil {
				rows = append(rows, one)
			}
			if j.Code != 1 || len(rows) == 0 {
				t.Fatalf("-o json: exit %d, want 1 and the rows:\n%s\n%s", j.Code, j.Stdout, j.Stderr)
			}
			for _, row := range rows {
				// A row in breach gives no current RV: which of the RVs
				// that went back is current is not known (the table's
				// CURRENT RV "-", the summary's "given for no row"), and no
				// width: JSON omits what the table shows unknown.
				if cur, _ := row["currentResourceVersion"].(string); cur != "" || row["found"] != false || row["width"] != nil || row["reason"] != "RVsOutOfOrder" {
					t.Errorf("-o json: %s: current %v, found %v, width %v, reason %v: want no current RV, no bound", row["resource"], row["currentResourceVersion"], row["found"], row["width"], row["reason"])
				}
			}
		})
	}
	// Adversary try 20 #9: a watch from RV 1 that replays an event above
	// the current RV (150 over 100): the human output gave a window "(0,
	// 1]" and "nothing has expired" above the error that says no window is
	// given. No form gives a window, a bound or who answered then.
	for _, args := range [][]string{{"probe", "cm"}, {"probe", "--all", "-n", "default"}} {
		t.Run("an event above the current RV: "+strings.Join(args, " "), func(t *testing.T) {
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
				"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"150"}}}` + "\n"},
			})
			r := framework.Run(t, kc, time.Minute, args...)
			row := ""
			for _, l := range strings.Split(r.Stdout, "\n") {
				if strings.HasPrefix(l, "configmaps ") {
					row = l
				}
			}
			// Exit 1 with probe --all too, though deployments answered:
			// an answer in breach of the contract leads a sweep's exit
			// (docs/exit-codes.md).
			code := 1
			if r.Code != code || !strings.Contains(r.Stdout+r.Stderr, "below RV 150") || strings.Contains(r.Stdout, "nothing has expired") ||
				strings.Contains(r.Stdout, "Answered by") || strings.Contains(row, "(0, 1]") || strings.Contains(row, " none ") || len(strings.Fields(row)) < 4 {
				t.Errorf("exit %d, want %d, the RVs that went back named, and no window nor verdict:\n%s%s", r.Code, code, r.Stdout, r.Stderr)
			}
			j := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
			var one map[string]any
			var all struct {
				Resources []map[string]any `json:"resources"`
			}
			rows := []map[string]any{}
			if json.Unmarshal([]byte(j.Stdout), &all) == nil && len(all.Resources) > 0 {
				rows = all.Resources
			} else if json.Unmarshal([]byte(j.Stdout), &one) == nil {
				rows = append(rows, one)
			}
			seen := false
			for _, row := range rows {
				if row["resource"] != "configmaps" {
					continue
				}
				seen = true
				answer, _ := row["answer"].(map[string]any)
				if row["found"] != false || row["bracket"] != nil || row["boundBy"] != nil || answer["source"] != "unknown" || answer["startedAt1"] != nil {
					t.Errorf("-o json: exit %d: a window or a verdict from RVs that went back: %v", j.Code, row)
				}
			}
			if !seen {
				t.Errorf("-o json: exit %d, no configmaps row:\n%s", j.Code, j.Stdout)
			}
		})
	}
	t.Run("oldest above the current RV, the cluster wrote since", func(t *testing.T) {
		_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000, 6000}, Oldest: 5000})
		r := framework.Run(t, kc, time.Minute, "probe", "cm", "-o", "json")
		var row map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &row); err != nil || r.Code != 0 || row["currentResourceVersion"] != "6000" || row["width"] != 1000.0 {
			t.Errorf("exit %d, %v: want the current RV read again (6000), width 1000\n%s%s", r.Code, err, r.Stdout, r.Stderr)
		}
	})
}
