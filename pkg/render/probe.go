package render

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// ProbeReport is the stable schema of "probe -o json|yaml" for one resource
// (and of each row of --all).
type ProbeReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost         *Cost  `json:"cost,omitempty"`
	Resource     string `json:"resource"`
	GroupVersion string `json:"groupVersion"`
	Namespace    string `json:"namespace"`
	// CurrentResourceVersion is absent where no current RV was read (the
	// table's "-"), and so is CurrentFrom.
	CurrentResourceVersion string `json:"currentResourceVersion,omitempty"`
	// CurrentFrom is, in an --all run, "own" (this resource's consistent
	// list) or "run" (the run's one read: probe --all's runCurrent).
	CurrentFrom string `json:"currentFrom,omitempty"`
	// OldestResourceVersion and Width are the window, known exactly when
	// WindowKnown (the bound was found; the table's "?" otherwise): absent
	// where not known, as in pkg/servers' rows, so that no unknown window
	// reads as a measured one of width 0 (adversary try 44 D).
	OldestResourceVersion string `json:"oldestResourceVersion,omitempty"`
	Width                 uint64 `json:"width,omitempty"`
	WindowKnown           bool   `json:"windowKnown"`
	// Source is who answers 410 for RVs below the window: watch-cache,
	// storage (etcd, or a shim such as kine), mixed, none (no RV has
	// expired yet) or unknown (a 410 the plugin does not recognize, or no
	// answer at all); derived from the probes, as Answer is.
	Source string       `json:"source"`
	Answer probe.Answer `json:"answer"`
	// BoundBy is why the bound is where it is (nothing-expired,
	// watch-cache-410, probes, compaction, lost-change); CompactedAt the
	// lowest RV exact lists answered (storage's compaction point as they
	// see it); LostAt the RV of the change a watch from below the bound
	// lost (PrevKv=nil).
	BoundBy     string `json:"boundBy,omitempty"`
	CompactedAt string `json:"compactedAt,omitempty"`
	LostAt      string `json:"lostAt,omitempty"`
	// Requests counts every request sent for this resource (the current-RV
	// read, the probes, --verify and --future); Probes the search's watches.
	Requests             int                 `json:"requests"`
	Probes               int                 `json:"probes"`
	Found                bool                `json:"found"`
	LowerBoundFromServer bool                `json:"lowerBoundFromServer"`
	Bracket              *ProbeBracket       `json:"bracket,omitempty"`
	Millis               float64             `json:"ms"`
	ProbeDetails         []probe.Try         `json:"probeDetails"`
	Verify               *probe.Verification `json:"verify,omitempty"`
	Future               *probe.FutureCheck  `json:"future,omitempty"`
	Reason               string              `json:"reason,omitempty"`
	Error                string              `json:"error,omitempty"`
	Metrics              *metrics.Report     `json:"metrics,omitempty"`
	// Server is what list reads of the API server (serverinfo.Read: the
	// facts cache, or /version and a filtered /metrics), read only where
	// whether it serves the resource itself decides a text and nothing
	// else told (NeedsServer).
	Server *serverinfo.Info `json:"server,omitempty"`

	namespaced bool // the resource has namespaces: "" is -A
	// outOfOrder: the run's RVs went back, or an answer broke the
	// contract, so no window, bound or answer is drawn from them
	// (untrusted).
	outOfOrder bool
	// ctx is the user's context, which the commands the report suggests
	// carry (WithContext).
	ctx suggest.Context
}

// WithContext is r suggesting its commands in the user's context ctx.
func (r ProbeReport) WithContext(ctx suggest.Context) ProbeReport {
	r.ctx = ctx
	return r
}

// ServersCommand is this probe per server ("probe RESOURCE --servers"),
// built by pkg/suggest in the report's context.
func (r ProbeReport) ServersCommand() string {
	scope := suggest.Scope{Namespace: r.Namespace, AllNamespaces: r.namespaced && r.Namespace == ""}
	l, _ := r.ctx.Command("probe", r.Resource, scope, suggest.Bool("servers")) // no --rv: no error
	return l.String()
}

// ProbeBracket is what is known when the bound was not found: the oldest RV
// is in (lastFailing, firstSucceeding].
type ProbeBracket struct {
	LastFailing     string `json:"lastFailing"`
	FirstSucceeding string `json:"firstSucceeding"`
}

// NewProbeReport summarizes one probed window; reason is a short word for
// a failed row (Forbidden, OpaqueRV, Budget, ...).
func NewProbeReport(w *probe.Result, reason string) ProbeReport {
	t := w.Target
	r := ProbeReport{
		Resource:     t.Resource.Name(),
		GroupVersion: t.Resource.GVR.GroupVersion().String(),
		Namespace:    t.Namespace,
		namespaced:   t.Resource.Namespaced,
		Source:       probe.SourceUnknown,
		Requests:     w.Requests,
		Millis:       float64(w.Duration.Microseconds()) / 1000,
		ProbeDetails: []probe.Try{},
		Verify:       w.Verify,
		Future:       w.Future,
		Reason:       reason,
	}
	r.CurrentResourceVersion, r.CurrentFrom = w.CurrentRaw, w.CurrentFrom
	if s := w.Search; s != nil {
		r.CurrentResourceVersion = strconv.FormatUint(s.Current, 10)
		r.Found, r.LowerBoundFromServer, r.BoundBy = s.Found, s.LowerBoundFromServer, s.BoundBy
		if s.ListBound > 0 {
			r.CompactedAt = strconv.FormatUint(s.ListBound+1, 10)
		}
		if s.LostAt > 0 {
			r.LostAt = strconv.FormatUint(s.LostAt, 10)
		}
		r.Probes = len(s.Probes)
		r.ProbeDetails = append(r.ProbeDetails, s.Probes...)
		if s.Found {
			r.OldestResourceVersion = strconv.FormatUint(s.Oldest, 10)
			r.Width = s.Width()
		} else {
			r.Bracket = &ProbeBracket{LastFailing: strconv.FormatUint(s.LastFailing, 10), FirstSucceeding: strconv.FormatUint(s.FirstSucceeding, 10)}
		}
	}
	if w.Err != nil {
		r.Error = w.Err.Error()
	}
	r.Answer = probe.AnswerOf(r.allSteps(), w.Search != nil && w.Search.Found && w.Search.Current <= 1)
	r.Source = r.Answer.Source
	return r.untrusted(w.Err).saidAsKnown()
}

// saidAsKnown keeps in r, of the values the table shows as unknown ("-",
// "?"), none: where a current RV came from only beside one, and the
// window only when it was found (WindowKnown). The one rule of every
// row, a failed one included (failedRowGivesNone).
func (r ProbeReport) saidAsKnown() ProbeReport {
	if r.CurrentResourceVersion == "" {
		r.CurrentFrom = ""
	}
	r.WindowKnown = r.Found
	if !r.WindowKnown {
		r.OldestResourceVersion, r.Width = "", 0
	}
	return r
}

// untrusted drops from r everything drawn from answers that cannot be
// one API server's: RVs that went back (probe.OutOfOrderError), or an
// answer that broke the List or Watch contract (diagnose.ContractError).
// The bracket, the bound, the verification and who answered are then
// numbers no one API server gave, and the failure alone is the answer (adversary try 20 #9:
// "(0, 1]" and "nothing has expired" above an error that says no window
// is given; an --all row gave a window beside "broke the List contract").
// The probes themselves stay in probeDetails and -v: they are what came.
func (r ProbeReport) untrusted(err error) ProbeReport {
	if !probe.NotOneServers(err) {
		return r
	}
	r.outOfOrder = true
	r.Found, r.Bracket, r.OldestResourceVersion, r.Width = false, nil, "", 0
	// No verification verdict either (adversary try 21 F5: "Verified: yes"
	// above the error): its watches stay, among the probes, as what came.
	r.ProbeDetails, r.Verify = r.allSteps(), nil
	r.BoundBy, r.CompactedAt, r.LostAt = "", "", ""
	// No current RV: the answers it came with are not one server's
	// (adversary try 38 F2: "100" in every row under "no row read a
	// current RV").
	r.CurrentResourceVersion = ""
	r.Answer = probe.Answer{Source: probe.SourceUnknown}
	r.Source = r.Answer.Source
	return r
}

// allSteps is every probe of the report: the search's, then the
// verification's.
func (r ProbeReport) allSteps() []probe.Try {
	steps := append([]probe.Try{}, r.ProbeDetails...)
	if v := r.Verify; v != nil {
		steps = append(steps, v.AtOldest)
		if v.BelowOldest != nil {
			steps = append(steps, *v.BelowOldest)
		}
	}
	return steps
}

// Probe prints one resource's window.
func (p *Printer) Probe(r ProbeReport, verbose bool) error {
	r.Cost = p.cost()
	return p.emit(oneDocument, r, func() error { return p.probeHuman(r, verbose) })
}

func (p *Printer) probeHuman(r ProbeReport, verbose bool) error {
	s := p.Style
	t := NewTable("RESOURCE", "NAMESPACE", "CURRENT RV", "OLDEST RV", "WIDTH", "SOURCE", "REQUESTS", "TIME")
	oldest, width := r.OldestResourceVersion, strconv.FormatUint(r.Width, 10)
	if !r.Found {
		oldest, width = "?", "?"
		if r.Bracket != nil {
			oldest = fmt.Sprintf("(%s, %s]", r.Bracket.LastFailing, r.Bracket.FirstSucceeding)
		}
	}
	t.Row(r.Resource, namespaceCell(r.Namespace, r.namespaced), orDash(r.CurrentResourceVersion), oldest, width, sourceCell(r), strconv.Itoa(r.Requests), millis(r.Millis))
	t.PaintLast(5, sourcePaint(s, r.Source))
	if err := p.table(t); err != nil {
		return err
	}
	var kv [][2]string
	if (r.Found || len(r.ProbeDetails) > 0) && !r.outOfOrder {
		kv = append(kv, [2]string{"Answered by", answeredBy(r)})
	}
	if r.Found {
		kv = append(kv, [2]string{"Bound", boundText(r)})
	}
	if r.Verify != nil {
		kv = append(kv, [2]string{"Verified", verifyText(s, r.Verify)})
	}
	if f := r.Future; f != nil {
		kv = append(kv, [2]string{"Future RV " + f.ResourceVersion, futureText(f)})
	}
	kv = append(kv, metricsKV(r.Metrics)...)
	if len(kv) > 0 {
		fmt.Fprintln(p.Out)
		if err := KeyValues(p.Out, kv); err != nil {
			return err
		}
	}
	if verbose {
		return p.probeSteps(r)
	}
	return nil
}

// probeSteps lists every request of the search (-v).
func (p *Printer) probeSteps(r ProbeReport) error {
	fmt.Fprintln(p.Out)
	t := NewTable("#", "WATCH FROM RV", "OUTCOME", "LATENCY", "EVIDENCE")
	for i, st := range r.allSteps() {
		ev := st.Evidence
		if st.Message != "" {
			ev += ": " + st.Message
		}
		if i >= len(r.ProbeDetails) {
			ev = "verify: " + ev
		}
		t.Row(strconv.Itoa(i+1), strconv.FormatUint(st.ResourceVersion, 10), string(st.Outcome), millis(st.LatencyMillis), ev)
		t.PaintLast(2, outcomePaint(p.Style, st.Outcome))
	}
	return p.table(t)
}

func verifyText(s Style, v *probe.Verification) string {
	if !v.Holds {
		return s.Bad.Sprint("NO: ") + v.FailureReason
	}
	msg := fmt.Sprintf("yes: from %d %s", v.AtOldest.ResourceVersion, v.AtOldest.Evidence)
	if v.BelowOldest != nil {
		msg += fmt.Sprintf("; from %d %s", v.BelowOldest.ResourceVersion, v.BelowOldest.Evidence)
	}
	if v.NothingBelow {
		msg += " (RV 0 means any: nothing below RV 1 to test)"
	}
	return s.Good.Sprint(msg)
}

func futureText(f *probe.FutureCheck) string {
	list := fmt.Sprintf("list -> %s after %s", f.ListOutcome, millis(f.ListMillis))
	switch {
	case f.ListCode != 0:
		list = fmt.Sprintf("list -> %d %s after %s (%s)", f.ListCode, f.ListOutcome, millis(f.ListMillis), f.ListMessage)
	case f.ListMessage != "":
		// A failure of its own (a broken answer): said with its words,
		// never only "Other".
		list = fmt.Sprintf("list -> %s after %s (%s)", f.ListOutcome, millis(f.ListMillis), f.ListMessage)
	}
	if f.WatchOutcome == "" {
		return list // the run was cut before the watch was answered
	}
	return list + "; watch -> " + f.WatchEvidence
}

func sourcePaint(s Style, source string) func(a ...any) string {
	switch source {
	case probe.SourceWatchCache:
		return s.Good.Sprint
	case probe.SourceStorage:
		return s.Warn.Sprint
	}
	return s.Dim.Sprint
}

func outcomePaint(s Style, o probe.Outcome) func(a ...any) string {
	switch o {
	case probe.OutcomeOK:
		return s.Good.Sprint
	case probe.OutcomeExpired:
		return s.Warn.Sprint
	}
	return s.Bad.Sprint
}

func millis(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond))
	if d >= time.Second {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return fmt.Sprintf("%.0fms", ms)
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
