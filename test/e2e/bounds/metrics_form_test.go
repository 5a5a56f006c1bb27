//go:build e2e

package bounds

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// watchStarts answers a watch from any RV with the change of the one
// configmap (RV 99): a probe finds at once that nothing has expired.
var watchStarts = framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"99"}}}` + "\n"}

// What each family feeds: top's row fields (-o json) and --check bound,
// probe --metrics's JSON key and line.
var (
	topFields = map[string][]string{
		"apiserver_longrunning_requests":                {"watchers"},
		"apiserver_watch_events_total":                  {"events"},
		"apiserver_watch_events_sizes":                  {"eventBytes"},
		"apiserver_watch_cache_events_received_total":   {"cacheEventsReceived"},
		"apiserver_watch_cache_events_dispatched_total": {"cacheEventsDispatched"},
		"apiserver_terminated_watchers_total":           {"terminatedWatchers"},
		"watch_cache_capacity":                          {"watchCacheCapacity"},
		"apiserver_watch_cache_resource_version":        {"watchCacheRV"},
		"apiserver_storage_list_total":                  {"listsFromStorage", "listsFromWatchCache"},
		"apiserver_storage_list_fetched_objects_total":  {"storageListFetched", "watchCacheListFetched"},
		"apiserver_storage_list_returned_objects_total": {"storageListReturned", "watchCacheListReturned"},
		"apiserver_request_total":                       {"code410", "code429", "code5xx"},
		"apiserver_resource_objects":                    {"objects"},
	}
	topBound = map[string]string{
		"apiserver_longrunning_requests":                top.BoundWatchers,
		"apiserver_terminated_watchers_total":           top.BoundTerminated,
		"apiserver_storage_list_total":                  top.BoundStorageListRatio,
		"apiserver_storage_list_fetched_objects_total":  top.BoundStorageListRatio,
		"apiserver_storage_list_returned_objects_total": top.BoundStorageListRatio,
		"apiserver_flowcontrol_rejected_requests_total": top.BoundRejected,
	}
	probeKeys = map[string][2]string{ // JSON key, line of the human output
		metrics.FamilyCapacity:           {"capacity", "Watch-cache capacity:"},
		metrics.FamilyEventsReceived:     {"eventsReceived", "Events received:"},
		metrics.FamilyResourceVersion:    {"cacheResourceVersion", "Cache RV:"},
		metrics.FamilyInitializations:    {"initializations", "Initializations:"},
		metrics.FamilyTerminatedWatchers: {"terminatedWatchers", "Terminated watchers:"},
		metrics.FamilyCapacityIncreases:  {"capacityIncreases", "Capacity changes:"},
		metrics.FamilyCapacityDecreases:  {"capacityDecreases", "Capacity changes:"},
		metrics.FamilyBookmarks:          {"etcdBookmarks", ""},
		metrics.FamilyProcessStart:       {"serverStarted", ""},
	}
)

// TestMetricsOutOfFormAreNeverNumbers (adversary try 19): a /metrics out
// of a kube-apiserver's form, for every family top and probe --metrics
// read: each series of the family twice, the family declared twice, or
// declared with another TYPE. A repeated series or family is no API
// server's /metrics: "cannot be read" (top exits 1, probe --metrics says
// why it shows no counters), never summed (the try: WATCHERS 720 for 360,
// --check CROSSED). A family of another TYPE is not measured: no number
// for it (-o json), "?" and named, a --check bound that reads it NOT
// CHECKED (exit 1), never 0 and "ok". The text unbroken reads whole.
func TestMetricsOutOfFormAreNeverNumbers(t *testing.T) {
	bounds := []string{"--interval", "1s", "--check", "--max-watchers", "1000", "--max-terminated", "1000", "--max-storage-list-ratio", "1000", "--max-rejected", "1000"}
	serve := func(t *testing.T, text string) string {
		_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
			"/metrics": {Code: 200, Type: "text/plain; version=0.0.4", Body: text},
			"/api/v1/namespaces/default/configmaps?watch": watchStarts,
		})
		return kc
	}
	t.Run("unbroken", func(t *testing.T) {
		kc := serve(t, framework.KubeMetrics("", framework.BreakNone))
		r, res := framework.RunTopJSON(t, kc, bounds...)
		row := framework.TopRow(r, 1, "", "configmaps")
		if res.Code != 0 || row == nil || row.Watchers.V() != 360 || len(r.Servers[0].Unmeasured) != 0 {
			t.Fatalf("exit %d, row %+v, unmeasured %v: want 360 watchers, all measured\n%s\n%s", res.Code, row, r.Servers[0].Unmeasured, res.Stdout, res.Stderr)
		}
		m, pres := probeMetrics(t, kc)
		if pres.Code != 0 || m["capacity"] != 100.0 || m["unmeasured"] != nil {
			t.Fatalf("probe --metrics: exit %d, %v", pres.Code, m)
		}
	})
	// The families each command reads; probe shows no number of
	// apiserver_audit_event_total (it only tells an API server's
	// /metrics), so its TYPE changes nothing there.
	topReads, probeReads := map[string]bool{}, map[string]bool{}
	for _, f := range top.Families {
		topReads[f] = true
	}
	for _, f := range metrics.WatchCacheFamilies {
		probeReads[f] = true
	}
	for _, fam := range framework.KubeMetricsFamilies() {
		for _, how := range []framework.MetricsBreak{framework.BreakRepeatedSeries, framework.BreakDeclaredTwice, framework.BreakWrongType} {
			t.Run(fam+"/"+string(how), func(t *testing.T) {
				t.Parallel()
				kc := serve(t, framework.KubeMetrics(fam, how))
				unreadable := how == framework.BreakDeclaredTwice || how == framework.BreakRepeatedSeries
				switch {
				case unreadable && (topReads[fam] || how == framework.BreakDeclaredTwice):
					res := framework.Run(t, kc, time.Minute, append([]string{"top", "-o", "json"}, bounds...)...)
					if res.Code != 1 || !strings.Contains(res.Stderr, "cannot be read") || !strings.Contains(res.Stderr, fam) || strings.Contains(res.Stdout, `"watchers"`) {
						t.Errorf("top: exit %d, want 1, \"cannot be read\" naming %s, no row\n%s\n%s", res.Code, fam, res.Stdout, res.Stderr)
					}
				case how == framework.BreakWrongType && topReads[fam]:
					checkTopMistyped(t, kc, fam, bounds)
				default: // a family top does not read: read as it is
					if r, res := framework.RunTopJSON(t, kc, bounds...); res.Code != 0 || framework.TopRow(r, 1, "", "configmaps").Watchers.V() != 360 {
						t.Errorf("top: exit %d, want 0 and 360 watchers\n%s\n%s", res.Code, res.Stdout, res.Stderr)
					}
				}
				m, res := probeMetrics(t, kc)
				switch {
				case res.Code != 0:
					t.Errorf("probe --metrics: exit %d, want 0 (the counters only explain)\n%s", res.Code, res.Stderr)
				case unreadable && (probeReads[fam] || how == framework.BreakDeclaredTwice):
					if note, _ := m["note"].(string); !strings.Contains(note, fam) || !strings.Contains(note, "twice") || m["capacity"] != nil {
						t.Errorf("probe --metrics: note %q, capacity %v: want no counter and the family named", note, m["capacity"])
					}
				case how == framework.BreakWrongType && probeReads[fam] && fam != metrics.FamilyAuditEvents:
					checkProbeMistyped(t, kc, fam, m)
				case m["capacity"] != 100.0 || m["unmeasured"] != nil:
					t.Errorf("probe --metrics: %v: want the counters read (%s is not probe's)", m, fam)
				}
			})
		}
	}
}

// checkTopMistyped: fam, declared with another TYPE, is named as not
// measured, gives no number, and its bound is NOT CHECKED (exit 1).
func checkTopMistyped(t *testing.T, kc, fam string, bounds []string) {
	t.Helper()
	r, res := framework.RunTopJSON(t, kc, bounds...)
	var doc struct {
		Rows    []map[string]json.RawMessage `json:"rows"`
		Servers []struct {
			Unmeasured []map[string]string `json:"unmeasured"`
		} `json:"servers"`
	}
	_ = json.Unmarshal([]byte(res.Stdout), &doc)
	named := false
	for _, u := range doc.Servers[0].Unmeasured {
		named = named || (u["family"] == fam && strings.Contains(u["why"], "is declared a"))
	}
	for _, field := range topFields[fam] {
		for _, row := range doc.Rows {
			var cell map[string]any
			_ = json.Unmarshal(row[field], &cell)
			why, _ := cell["unmeasured"].(string)
			if cell["value"] != nil || cell["delta"] != nil || cell["perSecond"] != nil || !strings.Contains(why, fam) {
				t.Errorf("top: %s is %v: want no number, not measured naming %s", field, cell, fam)
			}
		}
	}
	want := 0
	for _, c := range r.Checks {
		switch {
		case c.Bound == topBound[fam]:
			want = 1
			if c.Checked() || !strings.Contains(c.Note, fam) {
				t.Errorf("top: --check %s: %+v: want NOT CHECKED naming %s", c.Bound, c, fam)
			}
		case !c.Checked() || c.Crossed:
			t.Errorf("top: --check %s: %+v: want ok (%s is not its family)", c.Bound, c, fam)
		}
	}
	if !named || res.Code != want {
		t.Errorf("top: exit %d, want %d; %s named not measured: %v\n%s", res.Code, want, fam, named, res.Stderr)
	}
	human := framework.Run(t, kc, time.Minute, append([]string{"top"}, bounds...)...)
	if human.Code != want || !strings.Contains(human.Stdout, "Not measured (?)") || !strings.Contains(human.Stdout, fam+" is declared a") {
		t.Errorf("top: exit %d, want %d and %s under Not measured\n%s\n%s", human.Code, want, fam, human.Stdout, human.Stderr)
	}
}

// checkProbeMistyped: fam is named as not measured, its counter is
// absent from -o json and "?" in the human output, and the counters
// explain nothing.
func checkProbeMistyped(t *testing.T, kc, fam string, m map[string]any) {
	t.Helper()
	key := probeKeys[fam]
	var named bool
	unmeasured, _ := m["unmeasured"].([]any)
	for _, u := range unmeasured {
		s, _ := u.(string)
		named = named || strings.HasPrefix(s, fam+" is declared a")
	}
	if !named || m[key[0]] != nil || m["limit"] != metrics.LimitUnknown {
		t.Errorf("probe --metrics: %s = %v, limit %v, unmeasured %v: want it absent and named, no explanation", key[0], m[key[0]], m["limit"], m["unmeasured"])
	}
	res := framework.Run(t, kc, time.Minute, "probe", "cm", "--metrics")
	out := res.Stdout
	if key[1] != "" {
		if i := strings.Index(out, key[1]); i < 0 || !strings.HasPrefix(strings.TrimSpace(out[i+len(key[1]):]), "?") {
			t.Errorf("probe --metrics: want %s ?\n%s", key[1], out)
		}
	}
	if fam == metrics.FamilyProcessStart && strings.Contains(out, "Server started") {
		t.Errorf("probe --metrics: a start read from %s, which is not measured\n%s", fam, out)
	}
	if res.Code != 0 || !strings.Contains(out, "not measured: ") || !strings.Contains(out, fam) {
		t.Errorf("probe --metrics: exit %d, want %s named not measured\n%s\n%s", res.Code, fam, out, res.Stderr)
	}
}

// probeMetrics is the metrics block of probe cm --metrics -o json.
func probeMetrics(t *testing.T, kc string) (map[string]any, framework.Result) {
	t.Helper()
	res := framework.Run(t, kc, time.Minute, "probe", "cm", "--metrics", "-o", "json")
	var doc struct {
		Metrics map[string]any `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || doc.Metrics == nil {
		t.Fatalf("probe --metrics -o json: exit %d, %v\n%s\n%s", res.Code, err, res.Stdout, res.Stderr)
	}
	if u, ok := doc.Metrics["unmeasured"].([]any); ok && slices.Contains(u, any("")) {
		t.Errorf("an empty unmeasured entry: %v", u)
	}
	return doc.Metrics, res
}

// TestListServerFactsOutOfForm: list's server facts (the feature gates and
// the watch cache, read from the two families a v1.37 server sends by
// name[]) are held to the same form (metrics.Form) as far as list reads:
// a family of another TYPE is not read, the facts are said to be assumed
// and the family named; a family repeated or declared twice is not read
// either, where list reads that far (it stops once its facts are known,
// each a first match, never a sum), or the facts are the server's.
func TestListServerFactsOutOfForm(t *testing.T) {
	families := []struct{ name, typ, lines string }{
		{"kubernetes_feature_enabled", "gauge", `kubernetes_feature_enabled{name="WatchList",stage="BETA"} 1` + "\n"},
		{"watch_cache_capacity", "gauge", `watch_cache_capacity{group="",resource="configmaps"} 100` + "\n"},
	}
	for _, broken := range families {
		for _, how := range []framework.MetricsBreak{framework.BreakNone, framework.BreakRepeatedSeries, framework.BreakDeclaredTwice, framework.BreakWrongType} {
			t.Run(broken.name+"/"+string(how), func(t *testing.T) {
				var text, again string
				for _, f := range families {
					typ, lines := f.typ, f.lines
					if f.name == broken.name {
						switch how {
						case framework.BreakRepeatedSeries:
							lines += lines
						case framework.BreakDeclaredTwice:
							again = "# TYPE " + f.name + " " + typ + "\n" + lines
						case framework.BreakWrongType:
							typ = "counter"
						}
					}
					text += "# TYPE " + f.name + " " + typ + "\n" + lines
				}
				_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": {Code: 200, Type: "text/plain; version=0.0.4", Body: text + again}})
				r := framework.Run(t, kc, time.Minute, "list", "cm")
				out := r.Stdout + r.Stderr
				read := strings.Contains(r.Stdout, "v1.37.2; watch cache for configmaps: on; gates read from /metrics")
				notRead := strings.Contains(out, "taken as the version's defaults, the watch cache as unknown") && strings.Contains(out, broken.name)
				want := read && !notRead
				switch how {
				case framework.BreakWrongType:
					want = !read && notRead
				case framework.BreakRepeatedSeries, framework.BreakDeclaredTwice:
					want = read != notRead
				}
				if r.Code != 0 || !want {
					t.Errorf("exit %d, facts read %v, not read naming %s %v\n%s", r.Code, read, broken.name, notRead, out)
				}
			})
		}
	}
}
