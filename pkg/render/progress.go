package render

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// Progress shows what slow work is doing now, on one line of stderr that the
// next progress line replaces, only when stderr is a terminal: scripts and
// logs never see it. ProgressDone clears it before the result is printed.
// It is the one output that draws (a carriage return, an erase): its own
// path through the sanitizer, which writes those two and the line escaped.
func (p *Printer) Progress(format string, args ...any) {
	if !p.progress {
		return
	}
	NewTerminalWriter(p.ErrOut).progressLine(fmt.Sprintf(format, args...))
}

// ProgressDone clears the progress line.
func (p *Printer) ProgressDone() {
	if !p.progress {
		return
	}
	NewTerminalWriter(p.ErrOut).progressLine("")
}

// Tracef writes one "-v" line to stderr: a request sent, its answer, a retry.
func (p *Printer) Tracef(format string, args ...any) {
	fmt.Fprintf(p.ErrOut, "%s %s\n", p.Style.Dim.Sprint("-v"), fmt.Sprintf(format, args...))
}

// Interruption marks a multi-target report cut short by Ctrl-C or SIGTERM:
// it holds the Done targets measured before the signal, of Of planned. The
// target being measured when the signal came is not a row: its measure was
// cut, not made.
type Interruption struct {
	Done int `json:"done"`
	Of   int `json:"of"`
	// CutRequests counts the requests of the target the signal cut: in
	// no count of the rows (the report's requests, per resource), said
	// here apart (user try 22 F13).
	CutRequests int `json:"cutRequests"`
	// CutTargets is how many of the targets the signal cut had the
	// requests of CutRequests answered, when more than the one being
	// measured can be (the servers of a fleet, measured side by side:
	// servers.CutShare, from the ledger's fates); 0 says the one (a
	// sweep's). Adversary try 25 F4: "of the one the signal cut" when it
	// cut three servers; fresh user try 27 F2: "of the 2 servers" when one
	// of them was never sent a request.
	CutTargets int `json:"-"`
}

// interruptionOf is the Interruption of run, nil when it was not
// interrupted: the one place a report of a sweep says what the signal cut.
func interruptionOf[T any](run *sweep.Run[T]) *Interruption {
	if !run.Interrupted {
		return nil
	}
	return &Interruption{Done: len(run.Rows), Of: run.Of, CutRequests: run.Cut}
}

// tableOfRun is the table of a run's rows, none when the signal came
// before any row: a header over nothing, then the Interrupted line, read
// as an empty result (fresh user try 29 F7).
func (p *Printer) tableOfRun(t *Table, in *Interruption) error {
	if in != nil && t.Len() == 0 {
		return nil
	}
	return p.table(t)
}

// interruptedLine is the line under an interrupted table, on stdout with
// the table, so a saved output says it is partial.
func (p *Printer) interruptedLine(in *Interruption, what string) error {
	if in == nil {
		return nil
	}
	_, err := fmt.Fprintf(p.Out, "Interrupted: %d of %s measured before the signal; %s%s\n", in.Done, text.Count(in.Of, what), in.notMeasured(), in.cutText(what))
	return err
}

// notMeasured says the targets the signal left unmeasured as many as they
// are, said whole (fresh user try 28 F5: "0 of 1 servers ...; the others
// were not"; fresh user try 29 F7: "; none was" read unfinished).
func (in *Interruption) notMeasured() string {
	switch left := in.Of - in.Done; {
	case left <= 0:
		return "none was left unmeasured"
	case in.Done == 0 && left == 1:
		return "it was not measured"
	case in.Done == 0:
		return "none of them was measured"
	case left == 1:
		return "the other was not measured"
	}
	return "the others were not measured"
}

// cutText says the requests of the targets (what, a singular noun) the
// signal cut ("" for none).
func (in *Interruption) cutText(what string) string {
	if in == nil || in.CutRequests == 0 {
		return ""
	}
	whom := "the one"
	if in.CutTargets > 1 {
		whom = "the " + text.Count(in.CutTargets, what)
	}
	return fmt.Sprintf(" (%s of %s the signal cut: in no count of the rows)", text.Count(in.CutRequests, "request"), whom)
}
