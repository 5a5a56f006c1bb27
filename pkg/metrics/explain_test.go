package metrics

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The class of issue 25 items 6 and 40: a sentence derived from the
// counters that contradicts the window the probe measured ("nothing was
// evicted" when the capacity had grown over an eviction; "holds the last
// 800 events" when the capacity had shrunk). This walks every combination
// of what the probe measured and what the counters say (the rule's
// inputs, not a server's answers: those are in the e2e tests
// TestProbeMetricsAfterEvictionBeforeGrowth and the matrix oracle) and
// checks that no explanation contradicts the measurement or claims what
// the counters do not prove.
func TestExplanationNeverContradictsTheMeasuredWindow(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	type facts struct {
		source            string
		found             bool
		oldest, width     uint64
		series            bool
		capacity, events  float64
		inits             float64
		grew, shrank      *float64
		restarted         bool
		initsDuringProbe  float64
		processStartKnown bool
		// versionKnown: the server says its version (v1.37.2), which
		// registers the capacity's change counters: no series is 0. An
		// unknown version's missing counters are not exposed.
		versionKnown bool
	}
	var all []facts
	for _, source := range []string{"none", "watch-cache", "storage", "mixed", "unknown"} {
		for _, found := range []bool{true, false} {
			for _, oldest := range []uint64{1, 20940} {
				// What a probe can measure: none is a found window from
				// RV 1, and a watch cache names an oldest RV above 1.
				if source == "none" && (!found || oldest != 1) || source == "watch-cache" && oldest == 1 {
					continue
				}
				for _, width := range []uint64{50, 10000} {
					for _, series := range []bool{true, false} {
						for _, c := range []float64{100, 400} {
							for _, e := range []float64{1, 100, 301, 7006} {
								for _, inits := range []float64{1, 2} {
									for _, grew := range []*float64{nil, f(2)} {
										for _, shrank := range []*float64{nil, f(3)} {
											for _, restarted := range []bool{false, true} {
												for _, during := range []float64{0, 1} {
													for _, known := range []bool{true, false} {
														all = append(all, facts{source, found, oldest, width, series, c, e, inits, grew, shrank, restarted, during, true, known})
													}
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	holds := regexp.MustCompile(`(?i)\bholds?\b[^;:]*\d+ events|last \d+ events`)
	rvRef := regexp.MustCompile(`\bRV (\d+)`)
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	checked := 0
	for _, x := range all {
		current := x.oldest + x.width
		end := WatchCache{Resource: "limitranges"}
		if x.series {
			end.Capacity, end.EventsReceived, end.Initializations = f(x.capacity), f(x.events), f(x.inits+x.initsDuringProbe)
			end.CapacityIncreases, end.CapacityDecreases = x.grew, x.shrank
		}
		start := end
		if x.series {
			start.Initializations = f(x.inits)
		}
		r := explainFrom(start, end, t0, x.restarted, x.processStartKnown, x.versionKnown, ProbeFacts{Found: x.found, Oldest: x.oldest, Current: current, Source: x.source})
		text, name := r.LimitText, fmt.Sprintf("%+v", x)
		checked++
		grewN, shrankN := orZero(x.grew), orZero(x.shrank)
		if holds.MatchString(text) {
			t.Errorf("%s: states a window size of its own: %q", name, text)
		}
		for _, m := range rvRef.FindAllStringSubmatch(text, -1) {
			if n, _ := strconv.ParseUint(m[1], 10, 64); n != x.oldest {
				t.Errorf("%s: names RV %d, the probe measured %d: %q", name, n, x.oldest, text)
			}
		}
		changesKnown := x.versionKnown || (x.grew != nil && x.shrank != nil)
		noEvictionProven := changesKnown && grewN == 0 && shrankN == 0 && x.events <= x.capacity
		if strings.Contains(text, "no event was evicted") || strings.Contains(text, "nothing was evicted") || strings.Contains(text, "agree: no eviction") {
			if !noEvictionProven || x.restarted || x.initsDuringProbe > 0 || !x.series {
				t.Errorf("%s: claims no eviction the counters do not prove: %q", name, text)
			}
		}
		switch r.Limit {
		case LimitEviction:
			if !(shrankN > 0 || (x.inits <= 1 && x.events > x.capacity)) || x.source != "watch-cache" || !x.found {
				t.Errorf("%s: claims an eviction the counters do not prove: %q", name, text)
			}
		case LimitInitialization:
			if !noEvictionProven || x.source != "watch-cache" || !strings.Contains(text, fmt.Sprintf("RV %d", x.oldest)) {
				t.Errorf("%s: initialization without proof or without the measured bound: %q", name, text)
			}
			if x.inits <= 1 && x.events > float64(x.width) {
				t.Errorf("%s: %v events since one initialization cannot fit a window of %d RVs: %q", name, x.events, x.width, text)
			}
		case LimitNothingExpired:
			if x.source != "none" || !x.found {
				t.Errorf("%s: nothing-expired without the probe measuring it: %q", name, text)
			}
		}
		if x.restarted && r.Limit != LimitRestarted {
			t.Errorf("%s: an API server restart during the probe explained as %s: %q", name, r.Limit, text)
		}
		if x.series && x.source == "storage" && !x.restarted && r.Limit != LimitInconsistent {
			t.Errorf("%s: storage answered, yet the counters of a watch cache explain it: %q", name, text)
		}
		if !x.series && (x.source == "watch-cache" || x.source == "mixed") && !x.restarted && r.Limit != LimitInconsistent {
			t.Errorf("%s: a watch cache answered, and no series: %s %q", name, r.Limit, text)
		}
		if x.source == "none" && x.found && (shrankN > 0 || x.inits <= 1 && x.events > x.capacity) && x.series && !x.restarted && x.initsDuringProbe == 0 && r.Limit != LimitInconsistent {
			t.Errorf("%s: RV 1 starts and the counters show an eviction, explained as %s: %q", name, r.Limit, text)
		}
		if r.Limit != LimitRestarted && r.Limit != LimitNoWatchCache && r.Limit != LimitInconsistent && r.Limit != LimitUnknown && len(r.Evidence) == 0 {
			t.Errorf("%s: an explanation (%s) that names no counter", name, r.Limit)
		}
	}
	t.Logf("%d combinations checked", checked)
}

// explainFrom runs Explain on two snapshots whose only series are the
// resource's, as given.
func explainFrom(start, end WatchCache, t0 time.Time, restarted, startKnown, versionKnown bool, p ProbeFacts) Report {
	s0 := &Snapshot{At: t0, Families: familiesOf(start, t0.Add(-time.Hour), startKnown, versionKnown)}
	started := t0.Add(-time.Hour)
	if restarted {
		started = t0.Add(time.Second * 5)
	}
	s1 := &Snapshot{At: t0.Add(10 * time.Second), Families: familiesOf(end, started, startKnown, versionKnown)}
	return Explain(s0, s1, "", end.Resource, p)
}

// familiesOf writes w as the Prometheus text a v1.37.2 server exposes
// (the label set and family names of testdata/v1.37.2.metrics.txt) and
// parses it.
func familiesOf(w WatchCache, started time.Time, startKnown, versionKnown bool) Families {
	var b strings.Builder
	line := func(name string, v *float64) {
		if v != nil {
			fmt.Fprintf(&b, "%s{group=\"\",resource=%q} %v\n", name, w.Resource, *v)
		}
	}
	line(FamilyCapacity, w.Capacity)
	line(FamilyEventsReceived, w.EventsReceived)
	line(FamilyInitializations, w.Initializations)
	line(FamilyCapacityIncreases, w.CapacityIncreases)
	line(FamilyCapacityDecreases, w.CapacityDecreases)
	if startKnown {
		fmt.Fprintf(&b, "%s %d\n", FamilyProcessStart, started.Unix())
	}
	if versionKnown {
		b.WriteString(buildInfoOf("v1.37.2"))
	}
	f, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		panic(err)
	}
	return f
}

// One read per statement: a series' last round is measured just before
// the end read of /metrics, so its explanation rests on the end read's
// count, the one printed as "Events received" (fresh user try 51 F10:
// "Events received: 77" beside "(4 received, within a capacity of 100
// ...)", the start read's); a one-shot probe's rests on the start read,
// taken before it found its bound.
func TestExplanationCountsAreTheReadItIsAbout(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	t0 := time.Date(2026, 12, 7, 21, 0, 0, 0, time.UTC)
	start := WatchCache{Resource: "configmaps", Capacity: f(100), EventsReceived: f(4), Initializations: f(1), CapacityIncreases: f(0), CapacityDecreases: f(0)}
	end := start
	end.EventsReceived = f(77)
	for _, tc := range []struct {
		atEnd bool
		want  string
	}{{true, "(77 received, within a capacity of 100"}, {false, "(4 received, within a capacity of 100"}} {
		r := explainFrom(start, end, t0, false, true, true, ProbeFacts{Found: true, Oldest: 518, Current: 700, Source: "watch-cache", AtEnd: tc.atEnd})
		if !strings.Contains(r.LimitText, tc.want) || *r.EventsReceived != 77 {
			t.Errorf("AtEnd %v: %q (events received %v), want %q", tc.atEnd, r.LimitText, *r.EventsReceived, tc.want)
		}
	}
}
