package render

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// recordedSnapshot is a recording of pkg/metrics testdata (the watch
// cache's families of a real kube-apiserver), with that server's
// kubernetes_build_info line when version is set (the recordings were
// made before the read asked for it).
func recordedSnapshot(t *testing.T, file, version string) *metrics.Snapshot {
	t.Helper()
	body, err := os.ReadFile("../metrics/testdata/" + file + ".metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	if version != "" {
		minor := strings.Split(version, ".")[1]
		body = append(body, "# TYPE kubernetes_build_info gauge\nkubernetes_build_info{git_version=\""+version+"\",major=\"1\",minor=\""+minor+"\"} 1\n"...)
	}
	sel, err := metrics.ParseSelected(strings.NewReader(string(body)), metrics.WatchCacheFamilies, true)
	if err != nil {
		t.Fatal(err)
	}
	return &metrics.Snapshot{At: time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC), Families: sel.Families, Mistyped: sel.Mistyped}
}

// Fresh user try 20 #10, as a class: probe --metrics -o json carries
// every family its human block shows, alike. A line that shows a number
// has that number in JSON; one that says "no sample" has the family in
// noSample (read as 0); one that says "not exposed" has it in
// notExposed, and no number. Over the real /metrics of v1.37.2 and
// v1.33.5, for resources with and without series of their own, with the
// server's version (which registers every counter of the block) and
// without it (an unknown version: a family with no series at all is not
// exposed).
func TestProbeMetricsJSONCarriesEveryFamilyShown(t *testing.T) {
	type family struct {
		label  string
		name   string
		value  func(*metrics.Report) *float64
		inLine string // how the line shows this family's value
	}
	families := []family{
		{"Watch-cache capacity", metrics.FamilyCapacity, func(m *metrics.Report) *float64 { return m.Capacity }, ""},
		{"Capacity changes", metrics.FamilyCapacityIncreases, func(m *metrics.Report) *float64 { return m.CapacityIncreases }, " up"},
		{"Capacity changes", metrics.FamilyCapacityDecreases, func(m *metrics.Report) *float64 { return m.CapacityDecreases }, " down"},
		{"Events received", metrics.FamilyEventsReceived, func(m *metrics.Report) *float64 { return m.EventsReceived }, ""},
		{"Cache RV", metrics.FamilyResourceVersion, func(m *metrics.Report) *float64 { return m.ResourceVersion }, ""},
		{"Initializations", metrics.FamilyInitializations, func(m *metrics.Report) *float64 { return m.Initializations }, ""},
		{"Terminated watchers", metrics.FamilyTerminatedWatchers, func(m *metrics.Report) *float64 { return m.TerminatedWatchers }, ""},
	}
	checked := map[string]bool{}
	for _, rec := range []struct{ file, version string }{{"v1.37.2", "v1.37.2"}, {"v1.37.2", ""}, {"v1.33.5", "v1.33.5"}, {"v1.33.5", ""}} {
		snap := recordedSnapshot(t, rec.file, rec.version)
		for _, res := range []string{"configmaps", "secrets"} {
			r := metrics.Explain(snap, snap, "", res, metrics.ProbeFacts{Found: true, Oldest: 200, Current: 211, Source: "watch-cache"})
			if !r.Found() {
				continue
			}
			raw, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var back metrics.Report
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			lines := map[string]string{}
			for _, kv := range metricsKV(&r) {
				lines[kv[0]] = kv[1]
			}
			for _, f := range families {
				line, name := lines[f.label], rec.file+"/"+rec.version+" "+res+" "+f.name
				v := f.value(&back)
				noSample, notExposed := slices.Contains(back.NoSample, f.name), slices.Contains(back.NotExposed, f.name)
				switch {
				case line == "":
					t.Errorf("%s: no %q line", name, f.label)
				case strings.Contains(line, "no sample") && (!noSample || v == nil || *v != 0):
					t.Errorf("%s: %q says no sample; JSON value %v, noSample %v", name, line, v, back.NoSample)
				case strings.Contains(line, "not exposed") && (!notExposed || v != nil):
					t.Errorf("%s: %q says not exposed; JSON value %v, notExposed %v", name, line, v, back.NotExposed)
				case v == nil && !notExposed:
					t.Errorf("%s: %q shown, and JSON has neither a value nor the family in notExposed (%s)", name, line, raw)
				case v != nil && notExposed, noSample && notExposed:
					t.Errorf("%s: JSON value %v, noSample %v, notExposed %v: both", name, v, back.NoSample, back.NotExposed)
				}
				if noSample {
					checked["no sample"] = true
				}
				if notExposed {
					checked["not exposed"] = true
				}
			}
		}
	}
	if !checked["no sample"] || !checked["not exposed"] {
		t.Errorf("the recordings tested only %v: want both a family read as 0 and one not exposed", checked)
	}
}
