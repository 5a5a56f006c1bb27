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

// zeroRVServer answers every list with resourceVersion "0", which no
// storage gives (etcd's and kine's revisions count from 1): a shim in
// front of the API server. Its watches are refused as the defaults do.
func zeroRVServer(t *testing.T) (*framework.ScriptServer, string) {
	t.Helper()
	script := framework.ScriptDefaults()
	list := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"0"},"items":[]}`
	script["/api/v1/namespaces/default/configmaps"] = framework.ScriptAnswer{Code: 200, Type: "application/json", Body: list}
	return framework.ServeScript(t, script)
}

// TestAnRVNoStorageGivesIsNeverAMeasuredNumber (adversary): a server that
// answers its lists at RV "0" was measured as CURRENT RV 0, CACHE RV 0,
// LAG 0, a window [0, 0] and "a reconnect from any RV in [0, 100] is
// served at once by it", by list, probe and explain-error --check over
// servers and by a one-server probe, with currentKnown true in JSON
// beside no currentResourceVersion. The class: every reader of a current
// or cache RV takes it through the one rule of a storage's RV
// (rv.OfStorage): "0" is an answer in breach of the List contract, its
// row shows no number, no lag, window or verdict is drawn from it, JSON
// agrees with the table, and the run exits non-zero.
func TestAnRVNoStorageGivesIsNeverAMeasuredNumber(t *testing.T) {
	zero, _ := zeroRVServer(t)
	good, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50})
	bad := zero.Host()
	// A row of the zero server that shows a number: its endpoint then 0.
	zeroCell := regexp.MustCompile(regexp.QuoteMeta(bad) + `\s+(\S+\s+)*?0\b`)
	cases := [][]string{
		{"list", "cm", "--endpoints", good.Host() + "," + bad},
		{"list", "cm", "--endpoints", bad},
		{"probe", "cm", "--endpoints", good.Host() + "," + bad},
		{"probe", "cm", "--endpoints", bad},
		{"explain-error", "--check", "--resource", "configmaps", "-n", "default", "--endpoints", good.Host() + "," + bad, "Timeout: Too large resource version: 5000, current: 100"},
	}
	for _, args := range cases {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, args...)
			out := r.Stdout
			if r.Code == 0 {
				t.Errorf("exit 0 over a server whose lists are at RV \"0\":\n%s%s", out, r.Stderr)
			}
			if !strings.Contains(out+r.Stderr, "which no storage gives") {
				t.Errorf("nothing says the RV \"0\" is no storage's:\n%s%s", out, r.Stderr)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), bad) && zeroCell.MatchString(line) {
					t.Errorf("the row of %s shows a 0 as a measured RV, lag or width: %q", bad, line)
				}
			}
			for _, verdict := range []string{"[0,", "up to 0", "from RV 0", "is served at once by " + bad, "Largest lag: 0"} {
				if strings.Contains(out, verdict) {
					t.Errorf("a verdict drawn from RV 0 (%q):\n%s", verdict, out)
				}
			}
			if args[0] == "explain-error" {
				return // its JSON is not the rows of list and probe
			}
			j := framework.Run(t, kc, time.Minute, append(append([]string{}, args...), "-o", "json")...)
			if j.Code == 0 {
				t.Errorf("-o json: exit 0:\n%s%s", j.Stdout, j.Stderr)
			}
			var doc struct {
				Servers []map[string]any `json:"servers"`
			}
			if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || len(doc.Servers) == 0 {
				t.Fatalf("-o json: exit %d, %v:\n%s%s", j.Code, err, j.Stdout, j.Stderr)
			}
			for _, row := range doc.Servers {
				if row["endpoint"] != bad {
					continue
				}
				for _, k := range []string{"currentKnown", "cacheKnown", "lagKnown", "windowKnown"} {
					if row[k] == true {
						t.Errorf("-o json: %s true for %s, whose lists are at RV \"0\": %v", k, bad, row)
					}
				}
				if row["reason"] != "ContractBreach" {
					t.Errorf("-o json: reason %v, want ContractBreach: %v", row["reason"], row)
				}
			}
		})
	}
	t.Run("a cache RV of 0 beside a current RV", func(t *testing.T) {
		// The rv=0 list alone answers at RV "0": no CACHE RV 0 nor LAG
		// 100 is drawn from it.
		body := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"0"},"items":[]}`
		s, _ := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50, Narrowed: &framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}})
		j := framework.Run(t, kc, time.Minute, "list", "cm", "--endpoints", s.Host(), "-o", "json")
		var doc struct {
			Servers []map[string]any `json:"servers"`
		}
		if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || len(doc.Servers) != 1 {
			t.Fatalf("-o json: exit %d, %v:\n%s%s", j.Code, err, j.Stdout, j.Stderr)
		}
		if row := doc.Servers[0]; j.Code == 0 || row["cacheKnown"] == true || row["lagKnown"] == true || row["reason"] != "ContractBreach" {
			t.Errorf("-o json: exit %d, a cache RV or lag from an rv=0 list at RV \"0\": %v", j.Code, row)
		}
	})
	t.Run("probe cm (one server)", func(t *testing.T) {
		_, zkc := zeroRVServer(t)
		for _, out := range [][]string{nil, {"-o", "json"}} {
			r := framework.Run(t, zkc, time.Minute, append([]string{"probe", "cm"}, out...)...)
			if r.Code == 0 {
				t.Errorf("probe %v: exit 0 on a server whose lists are at RV \"0\":\n%s%s", out, r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stdout+r.Stderr, "which no storage gives") {
				t.Errorf("probe %v: nothing says the RV \"0\" is no storage's:\n%s%s", out, r.Stdout, r.Stderr)
			}
			if strings.Contains(r.Stdout, "a watch from RV") || regexp.MustCompile(`(?m)(CURRENT RV|OLDEST|WIDTH)\s.*\b0\b`).MatchString(r.Stdout) {
				t.Errorf("probe %v: a number or verdict drawn from RV 0:\n%s", out, r.Stdout)
			}
			if out != nil {
				var doc map[string]any
				if err := json.Unmarshal([]byte(r.Stdout), &doc); err == nil {
					if doc["windowKnown"] == true || doc["found"] == true {
						t.Errorf("-o json: a window drawn from RV 0: %v", doc)
					}
					for _, k := range []string{"currentResourceVersion", "oldestResourceVersion", "width"} {
						if v, ok := doc[k]; ok && v != nil && v != "" {
							t.Errorf("-o json: %s %v from RV 0", k, v)
						}
					}
				}
			}
		}
	})
}
