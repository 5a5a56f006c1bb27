package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// ProbeSeries is the stable schema of "probe --interval -o json|yaml".
type ProbeSeries struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost         *Cost         `json:"cost,omitempty"`
	Resource     string        `json:"resource"`
	GroupVersion string        `json:"groupVersion"`
	Namespace    string        `json:"namespace"`
	Rounds       []probe.Round `json:"rounds"`
	probe.Motion `json:",inline"`
	Metrics      *metrics.Report `json:"metrics,omitempty"`
}

// NewProbeSeries starts an empty series for t.
func NewProbeSeries(t apiclient.Target) *ProbeSeries {
	return &ProbeSeries{Resource: t.Resource.Name(), GroupVersion: t.Resource.GVR.GroupVersion().String(), Namespace: t.Namespace, Rounds: []probe.Round{}}
}

var seriesHeaders = []string{"TIME", "CURRENT RV", "OLDEST RV", "WIDTH", "SOURCE", "REQUESTS", "PROBE TIME", "NOTE"}

// ProbeSeriesHeader prints the column headers of the rounds (human output).
func (p *Printer) ProbeSeriesHeader(s *ProbeSeries) error {
	return p.emit(noDocument, nil, func() error { return p.probeSeriesHeaderHuman(s) })
}

func (p *Printer) probeSeriesHeaderHuman(s *ProbeSeries) error {
	fmt.Fprintf(p.Out, "Probing %s%s; one row per round.\n", s.Resource, inNamespace(s.Namespace))
	return p.table(p.roundTable(nil))
}

// ProbeRound prints one round as it happens (human output only: JSON and
// YAML get the whole series at the end).
func (p *Printer) ProbeRound(r probe.Round) error {
	return p.emit(noDocument, nil, func() error { return p.probeRoundHuman(r) })
}

func (p *Printer) probeRoundHuman(r probe.Round) error {
	t := p.roundTable(&r)
	// Only the row: the header was printed once; fixed widths keep columns aligned.
	var b []byte
	w := &byteWriter{&b}
	if err := t.Write(w, nil); err != nil {
		return err
	}
	_, err := p.Out.Write(b[indexAfterFirstLine(b):])
	return err
}

func (p *Printer) roundTable(r *probe.Round) *Table {
	t := NewTable(padAll(seriesHeaders)...)
	if r == nil {
		return t
	}
	// An RV the round did not read is "-" (the current RV) or "?" (the
	// window), as in the one-shot row: the round gives its RVs only with
	// whether they were read.
	current, oldest, width := "-", "?", "?"
	if cur, ok := r.CurrentRV(); ok {
		current = strconv.FormatUint(cur, 10)
	}
	if o, w, ok := r.Window(); ok {
		oldest, width = strconv.FormatUint(o, 10), strconv.FormatUint(w, 10)
	}
	note := ""
	if r.Error != "" {
		note = r.Error
	}
	t.Row(r.At.UTC().Format("15:04:05.000"), current, oldest, width, r.Source, strconv.Itoa(r.Requests), millis(r.Millis), note)
	t.PaintLast(4, sourcePaint(p.Style, r.Source))
	if note != "" {
		t.PaintLast(7, p.Style.Bad.Sprint)
	}
	return t
}

// ProbeSeriesSummary prints how the window moved.
func (p *Printer) ProbeSeriesSummary(s *ProbeSeries) error {
	s.Cost = p.cost()
	return p.emit(oneDocument, s, func() error { return p.probeSeriesSummaryHuman(s) })
}

func (p *Printer) probeSeriesSummaryHuman(s *ProbeSeries) error {
	m := s.Motion
	var depth string
	switch {
	case len(m.OutOfOrder) > 0:
		depth = "not measured: the current RV went back between rounds"
	case m.CurrentRate == nil:
		depth = "not measured: fewer than two rounds found the bound"
	case *m.CurrentRate == 0:
		depth = "unknown: nothing was written during the series, so the window did not age"
	default:
		depth = "unknown"
	}
	if m.DepthKnown {
		how := "extrapolated from the write rate: the oldest RV predates the series"
		switch m.DepthMethod {
		case probe.DepthMethodObserved:
			how = "observed: the oldest RV was current during the series"
		case probe.DepthMethodObjectTimestamp, probe.DepthMethodEventRate:
			how = m.DepthMethod + ": " + m.DepthEvidence
		}
		depth = fmt.Sprintf("%s (%s)", depthValue(m), how)
	}
	fmt.Fprintln(p.Out)
	return KeyValues(p.Out, append([][2]string{
		{"Rounds with a bound", fmt.Sprintf("%d of %d", m.Rounds, len(s.Rounds))},
		{"Current RV advance", rateText(m, m.CurrentRate, "etcd revisions: every write in the cluster")},
		{"Oldest RV advance", rateText(m, m.OldestRate, "how fast the window forgets")},
		{"Window depth", depth},
	}, metricsKV(s.Metrics)...))
}

// rateText is one rate of the series, or why there is none: never a rate
// of RVs that went back (adversary try 19: "-699.8 RV/s").
func rateText(m probe.Motion, rate *float64, what string) string {
	switch {
	case len(m.OutOfOrder) > 0:
		return "not measured: the current RV went back between rounds (" + strings.Join(m.OutOfOrder, "; ") + "): no rate"
	case rate == nil:
		return "not measured: fewer than two rounds found the bound"
	}
	return fmt.Sprintf("%.1f RV/s (%s)", *rate, what)
}

// padAll pads headers to the widths the rows use, so that rows printed one
// at a time line up under a header printed once.
func padAll(h []string) []string {
	widths := []int{12, 10, 10, 8, 11, 8, 10, 0}
	out := make([]string, len(h))
	for i, s := range h {
		for len(s) < widths[i] {
			s += " "
		}
		out[i] = s
	}
	return out
}

type byteWriter struct{ b *[]byte }

func (w *byteWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

func indexAfterFirstLine(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i + 1
		}
	}
	return len(b)
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// depthValue says what kind of number the depth is: object timestamps bound
// it, they do not measure it.
func depthValue(m probe.Motion) string {
	switch m.DepthBound {
	case probe.DepthBoundBetween:
		return fmt.Sprintf("at least %.1fs and at most %.1fs", *m.DepthAtLeast, *m.DepthAtMost)
	case probe.DepthBoundAtLeast:
		return fmt.Sprintf("at least %.1fs (no dated object is older than the oldest RV, so no upper bound)", m.DepthSeconds)
	case probe.DepthBoundAtMost:
		return fmt.Sprintf("at most %.1fs (no dated object is newer than the oldest RV, so no lower bound)", m.DepthSeconds)
	case probe.DepthBoundEstimate:
		return fmt.Sprintf("about %.1fs", m.DepthSeconds)
	}
	return fmt.Sprintf("%.1fs", m.DepthSeconds)
}
