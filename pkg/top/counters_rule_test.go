package top

import (
	"bytes"
	"os"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// Fresh user try 19 #6: probe --metrics said "the server exposes the
// capacity or the events received, not both" of secrets, whose watch
// cache had received no event (apiserver_watch_cache_events_received_total
// exposed, with no series for it), where top read the same as 0. One rule
// for a counter with no series for one resource: on the real /metrics of
// v1.37.2 and v1.33.5 (every watch-cache family, every resource), for
// every resource with a watch cache, probe --metrics (metrics.Pick) and
// top (Extract, availability) read every watch-cache counter alike: the
// same number, or both not exposed.
func TestCountersWithoutASeriesReadAlikeInProbeAndTop(t *testing.T) {
	for _, rec := range []struct{ version, minor string }{{"v1.37.2", "37"}, {"v1.33.5", "33"}} {
		body, err := os.ReadFile("../metrics/testdata/" + rec.version + ".metrics.txt")
		if err != nil {
			t.Fatal(err)
		}
		// top reads the server's version too (these recordings hold the
		// watch cache's families only): the recorded server's own.
		body = append(body, "# TYPE kubernetes_build_info gauge\nkubernetes_build_info{git_version=\""+rec.version+"\",minor=\""+rec.minor+"\"} 1\n"...)
		sel, err := metrics.ParseSelected(bytes.NewReader(body), append(append([]string{}, Families...), metrics.WatchCacheFamilies...), true)
		if err != nil {
			t.Fatal(err)
		}
		v := Extract(sel, nil)
		noSeries := 0
		for gr := range v.Resources {
			if !v.Cached(gr) {
				continue
			}
			w := (&metrics.Snapshot{Families: sel.Families, Mistyped: sel.Mistyped}).Pick(gr.Group, gr.Resource)
			// One rule, metrics.Registered (fresh user try 20 #10: probe
			// read a family absent altogether as 0 and named it in no
			// noSample, by a rule of its own).
			for _, c := range []struct {
				family string
				field  Field
				probe  *float64
			}{
				{metrics.FamilyEventsReceived, CacheReceived, w.EventsReceived},
				{metrics.FamilyTerminatedWatchers, Terminated, w.TerminatedWatchers},
			} {
				topValue, topKnown := v.Resources[gr][c.field], v.availability(gr, c.field) == ""
				probeValue, probeKnown := 0.0, c.probe != nil
				if c.probe != nil {
					probeValue = *c.probe
				}
				if topKnown != probeKnown || topValue != probeValue {
					t.Errorf("%s %s %s: probe --metrics reads %v (known %v), top %v (known %v)", rec.version, gr, c.family, probeValue, probeKnown, topValue, topKnown)
				}
				if w.ReadAsZero(c.family) {
					noSeries++
				}
			}
			if w.EventsReceived == nil {
				t.Errorf("%s %s: a watch cache whose events-received family is exposed reads no count", rec.version, gr)
			}
		}
		if noSeries == 0 {
			t.Fatalf("%s: no resource without a series of its own: the recording tests nothing", rec.version)
		}
	}
}
