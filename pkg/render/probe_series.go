package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
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
	// IntervalSeconds is the --interval asked; RoundsEverySeconds the
	// mean time between the rounds' starts, measured (absent with fewer
	// than two rounds); IntervalKept is false when a round took longer
	// than the interval (the next one started late); LongestRoundSeconds
	// is the longest round, start to end, and LongestRoundQPSWaitSeconds
	// its waits for --qps (SetPace).
	IntervalSeconds            float64  `json:"intervalSeconds"`
	RoundsEverySeconds         *float64 `json:"roundsEverySeconds,omitempty"`
	IntervalKept               bool     `json:"intervalKept"`
	LongestRoundSeconds        float64  `json:"longestRoundSeconds"`
	LongestRoundQPSWaitSeconds float64  `json:"longestRoundQPSWaitSeconds"`
	// LongestRoundRetryWaitSeconds is the longest round's waits before
	// sending failed requests again (the plugin's backoff): what its time
	// was spent on, beside its --qps waits (RoundTime).
	LongestRoundRetryWaitSeconds float64 `json:"longestRoundRetryWaitSeconds"`
	probe.Motion                 `json:",inline"`
	Metrics                      *metrics.Report `json:"metrics,omitempty"`
	pace                         probe.Pace
}

// SetPace sets how often the rounds ran, measured.
func (s *ProbeSeries) SetPace(p probe.Pace) {
	s.pace = p
	s.IntervalSeconds, s.IntervalKept = p.Asked.Seconds(), p.IntervalKept()
	s.LongestRoundSeconds, s.LongestRoundQPSWaitSeconds = round2(p.Longest.Seconds()), round2(p.LongestPaced.Seconds())
	s.LongestRoundRetryWaitSeconds = round2(p.LongestRetried.Seconds())
	s.RoundsEverySeconds = nil
	if p.Kept > 0 {
		every := round2(p.Kept.Seconds())
		s.RoundsEverySeconds = &every
	}
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// paceText says how often the rounds ran, measured, and when they ran
// further apart than --interval asked, why and what to change (fresh user
// try 49 F2: rounds of 2.4 s at --interval 1s, said nowhere). A cut round
// is no measure of a round's time: it is said as cut (adversary try 51
// F3: "it took 2.00s" beside "how long a round takes is not known").
func paceText(s *ProbeSeries) string {
	p := s.pace
	var what string
	if p.Kept > 0 {
		what = fmt.Sprintf("%.2fs on average", p.Kept.Seconds())
	} else {
		what = "one round only"
	}
	if p.Longest == 0 && p.CutAfter > 0 {
		return fmt.Sprintf("%s, cut after %.2fs (--interval %s): how long a round takes is not known", what, p.CutAfter.Seconds(), p.Asked)
	}
	if p.IntervalKept() {
		return fmt.Sprintf("%s (--interval %s)", what, p.Asked)
	}
	took, spent, fix := RoundTime(p)
	why := "a round took up to " + took + spent
	if p.Kept == 0 {
		why = "it took " + took + spent
	}
	if fix != "" {
		why += " (" + fix + ")"
	}
	return fmt.Sprintf("%s, not the --interval %s asked: %s", what, p.Asked, why)
}

// RoundTime is the one account of the longest round's time (probe.Pace),
// "2.43s, 2.20s of it waiting for --qps", with what it was mostly spent
// on, and the change that helps: the --qps waits (raise --qps, or give a
// longer --interval), the plugin's backoff before retrying failed
// requests (no flag helps: the rows say what failed), or the server's
// answers (give a longer --interval). Fresh user try 51 F8: 0.6 s of
// retries against a dead server were "give a longer --interval".
func RoundTime(p probe.Pace) (took, spent, fix string) {
	took = fmt.Sprintf("%.2fs", p.Longest.Seconds())
	switch {
	case p.LongestPaced*2 >= p.Longest:
		return took, fmt.Sprintf(", %.2fs of it waiting for --qps", p.LongestPaced.Seconds()), "raise --qps, or give a longer --interval"
	case p.LongestRetried*2 >= p.Longest:
		return took, fmt.Sprintf(", %.2fs of it the plugin's backoff before sending failed requests again", p.LongestRetried.Seconds()), "the rows' notes say what failed"
	}
	answers := max(p.Longest-p.LongestPaced-p.LongestRetried, 0)
	return took, fmt.Sprintf(", %.2fs of it waiting for the server's answers", answers.Seconds()), "give a longer --interval"
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
	case m.DepthUnknownReason != "":
		depth = "unknown: " + m.DepthUnknownReason
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
		{"Rounds with a bound", roundsFound(s)},
		{"Rounds every", paceText(s)},
		{"Current RV advance", rateText(m, m.CurrentRate, "etcd revisions: every write in the cluster")},
		{"Oldest RV advance", rateText(m, m.OldestRate, "how fast the window forgets")},
		{"Window depth", depth},
	}, metricsKV(s.Metrics)...))
}

// roundsFound is how many rounds found the bound, of those that finished:
// a cut round is not counted (fresh user try 51 F1: "2 of 3" with the
// third cut), it is said apart.
func roundsFound(s *ProbeSeries) string {
	finished, cut := 0, 0
	for _, r := range s.Rounds {
		if r.Cut {
			cut++
		} else {
			finished++
		}
	}
	out := fmt.Sprintf("%d of %d", s.Motion.Rounds, finished)
	if cut > 0 {
		out += fmt.Sprintf(" (and %s, not counted)", text.Count(uint64(cut), "cut round"))
	}
	return out
}

// FailedRounds counts the rounds of a series that finished without
// finding the bound and failed (a cut round is neither: not counted), of
// those that finished, and gives the first one's error.
func FailedRounds(rounds []probe.Round) (failed, finished int, first string) {
	for _, r := range rounds {
		if r.Cut {
			continue
		}
		finished++
		if !r.Found && r.Error != "" {
			if failed++; first == "" {
				first = r.Error
			}
		}
	}
	return failed, finished, first
}

// FailedRoundsNote is the note on stderr of a series some of whose rounds
// failed, "" when none did: how many, the first one's error, and what the
// others measured, as measured: the rates and the depth are said the other
// rounds' only when the other rounds measured them (adversary try 52 F5:
// "the rates and the depth are the other rounds'" beside "Current RV
// advance: not measured" when only one round found the bound).
func FailedRoundsNote(s *ProbeSeries) string {
	failed, finished, first := FailedRounds(s.Rounds)
	if failed == 0 {
		return ""
	}
	m := s.Motion
	var rest string
	switch {
	case m.Rounds == 0:
		rest = "no round found the bound, so nothing was measured"
	case len(m.OutOfOrder) > 0:
		rest = "the current RV went back between rounds, so no rate and no depth were measured"
	case m.CurrentRate == nil && m.Rounds == 1:
		rest = "only one round found the bound, so no rate and no depth were measured"
	case m.CurrentRate == nil:
		rest = "no rate and no depth were measured"
	case m.DepthKnown:
		rest = "the rates and the depth are the other rounds'"
	default:
		rest = "the rates are the other rounds' (no depth is known)"
	}
	return fmt.Sprintf("Note: %d of %d rounds failed (the first: %s); %s", failed, finished, text.OneLine(first), rest)
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
		return fmt.Sprintf("at most %.1fs (no dated object is newer than the oldest RV, so no lower bound)", *m.DepthAtMost)
	case probe.DepthBoundEstimate:
		return fmt.Sprintf("about %.1fs", m.DepthSeconds)
	}
	return fmt.Sprintf("%.1fs", m.DepthSeconds)
}
