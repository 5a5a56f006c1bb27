package render

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// metricsKV is the watch-cache block under a probe (--metrics): the
// server's own series for the resource and what limits the window.
func metricsKV(m *metrics.Report) [][2]string {
	if m == nil {
		return nil
	}
	if m.Note != "" {
		return [][2]string{{"Watch-cache metrics", m.Note}}
	}
	if !m.Found() {
		return [][2]string{{"Watch-cache metrics", m.LimitText}}
	}
	events := metricNum(m, metrics.FamilyEventsReceived, m.EventsReceived)
	if m.ReadAsZero(metrics.FamilyEventsReceived) {
		events += " (no sample: none received since the server started)"
	}
	switch {
	case m.EventsDuringProbe != nil && m.EventRate != nil && m.Seconds >= 1:
		events += fmt.Sprintf(" (%s during the probe's %s: %.1f/s)", fmtNum(*m.EventsDuringProbe), millis(m.Seconds*1000), *m.EventRate)
	case m.EventsDuringProbe != nil:
		// A rate over less than a second says little (fresh user try 44
		// F6: "during the probe's 0.0s: 0.0/s" beside TIME 13ms).
		events += fmt.Sprintf(" (%s during the probe's %s)", fmtNum(*m.EventsDuringProbe), millis(m.Seconds*1000))
	}
	cacheRV := metricNum(m, metrics.FamilyResourceVersion, m.ResourceVersion)
	switch {
	case m.CacheLag == nil:
	case *m.CacheLag < 0:
		// Read after the current RV, the cache had moved past it (fresh
		// user try 36 F2: "-1 behind").
		cacheRV += fmt.Sprintf(" (%d ahead of the current RV, which was read before it)", -*m.CacheLag)
	default:
		cacheRV += fmt.Sprintf(" (%d behind the current RV)", *m.CacheLag)
	}
	terminated := metricNum(m, metrics.FamilyTerminatedWatchers, m.TerminatedWatchers)
	if m.ReadAsZero(metrics.FamilyTerminatedWatchers) {
		terminated = "0 (no sample: none terminated since the server started)"
	}
	changes := fmt.Sprintf("%s up, %s down", metricNum(m, metrics.FamilyCapacityIncreases, m.CapacityIncreases), metricNum(m, metrics.FamilyCapacityDecreases, m.CapacityDecreases))
	switch {
	case m.NotMeasured(metrics.FamilyCapacityIncreases) || m.NotMeasured(metrics.FamilyCapacityDecreases):
		changes = notMeasured
	case m.ReadAsZero(metrics.FamilyCapacityIncreases) && m.ReadAsZero(metrics.FamilyCapacityDecreases):
		changes = "none (no sample: the capacity never changed since the server started)"
	}
	kv := [][2]string{
		{"Watch-cache capacity", metricNum(m, metrics.FamilyCapacity, m.Capacity)},
		{"Capacity changes", changes},
		{"Events received", events},
		{"Cache RV", cacheRV},
		{"Initializations", metricNum(m, metrics.FamilyInitializations, m.Initializations)},
		{"Terminated watchers", terminated},
	}
	if m.ServerStarted != nil {
		kv = append(kv, [2]string{"Server started", metrics.ClockTime(*m.ServerStarted) + " (process_start_time_seconds: every counter counts from then)"})
	}
	return append(kv, [2]string{"Counters say", m.LimitText})
}

// ProbeAllMetrics prints one watch-cache row per resource after the --all
// table (human output; JSON and YAML carry it in each row).
func (p *Printer) ProbeAllMetrics(r ProbeAllReport) error {
	rows := make([]metricsRow, 0, len(r.Resources))
	for _, row := range r.Resources {
		rows = append(rows, metricsRow{row.Resource, row.Metrics})
	}
	return p.metricsTable("RESOURCE", rows)
}

// metricsRow is one labelled watch-cache report: a resource of --all, or a
// server of --servers.
type metricsRow struct {
	label string
	m     *metrics.Report
}

// metricsTable prints the watch-cache rows (human output only; JSON and
// YAML carry each report in its row). A row whose metrics were not read
// (a forbidden /metrics, a server that did not answer) is shown without
// numbers and its note follows the table, labelled; a note that every row
// shares (one server's /metrics, read once for every resource of --all)
// replaces the table, said once (fresh user try 16: one server that did
// not answer hid the rows of the others).
func (p *Printer) metricsTable(first string, rows []metricsRow) error {
	return p.emit(noDocument, nil, func() error { return p.metricsTableHuman(first, rows) })
}

func (p *Printer) metricsTableHuman(first string, rows []metricsRow) error {
	t := NewTable(first, "CAPACITY", "EVENTS", "EVENTS/S", "CACHE RV", "INITS", "LIMIT")
	var notes []metricsRow
	read := 0
	for _, row := range rows {
		m := row.m
		switch {
		case m == nil:
			continue
		case m.Note != "":
			notes = append(notes, row)
			t.Row(row.label, "-", "-", "-", "-", "-", "not read (below)")
			continue
		}
		read++
		rate := "-"
		if m.EventRate != nil {
			rate = fmt.Sprintf("%.1f", *m.EventRate)
		}
		t.Row(row.label, metricNum(m, metrics.FamilyCapacity, m.Capacity), metricNum(m, metrics.FamilyEventsReceived, m.EventsReceived), rate,
			metricNum(m, metrics.FamilyResourceVersion, m.ResourceVersion), metricNum(m, metrics.FamilyInitializations, m.Initializations), m.Limit)
	}
	if read == 0 && len(notes) > 0 && sameNote(notes) {
		p.Notef("%s", notes[0].m.Note)
		return nil
	}
	if t.Len() == 0 {
		return nil
	}
	fmt.Fprintln(p.Out)
	if err := p.table(t); err != nil {
		return err
	}
	for _, row := range notes {
		p.Notef("%s: %s", row.label, row.m.Note)
	}
	return nil
}

// sameNote: every row of rows has the one note.
func sameNote(rows []metricsRow) bool {
	for _, row := range rows {
		if row.m.Note != rows[0].m.Note {
			return false
		}
	}
	return true
}

// metricNum is the value of family in m: "?" (notMeasured) when the
// server gave it and it could not be measured ("Counters say" names it),
// never "-" (no series) nor 0; "not exposed" where the server has no
// series of it and no reason to read it as 0 (m.NotExposed, the same
// family as -o json's "notExposed").
func metricNum(m *metrics.Report, family string, f *float64) string {
	switch {
	case m.NotMeasured(family):
		return notMeasured
	case f == nil && slices.Contains(m.NotExposed, family):
		return "not exposed"
	}
	return optNum(f)
}

func optNum(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmtNum(*f)
}

func fmtNum(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}
