package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Cost is what a run took from the API server(s), as every report carries
// it (-o json|yaml: "cost"): the request ledger's account
// (apiclient.Ledger), whatever command sent the requests.
type Cost = apiclient.Cost

// WithCost gives the printer the run's account: every report it prints
// carries it (cost), and CostLine can say it.
func (p *Printer) WithCost(f func() Cost) *Printer {
	p.costOf = f
	return p
}

// WithRunClock gives the printer the run's wall clock (the ledger's
// Elapsed): every run summary it prints says that time (runMillis).
func (p *Printer) WithRunClock(f func() time.Duration) *Printer {
	p.runClock = f
	return p
}

// runMillis is the run's wall time so far, in ms: what every summary line
// of a run says after "in" and its report's "ms" holds (0 without a
// clock).
func (p *Printer) runMillis() float64 {
	if p.runClock == nil {
		return 0
	}
	return float64(p.runClock().Microseconds()) / 1000
}

// cost is the run's account so far for a report's "cost" field; nil
// (no field) when the printer has no ledger.
func (p *Printer) cost() *Cost {
	if p.costOf == nil {
		return nil
	}
	c := p.costOf()
	return &c
}

// CostLine is the one line a run ends with, on a terminal, when it sent
// more than one request: "N requests, X read from the API server". Like
// the progress lines, it is for a person at a terminal: stderr piped to a
// file or a script never sees it, and -o json|yaml carries the same
// account in "cost".
func (p *Printer) CostLine(c Cost) {
	if !p.progress || c.Requests <= 1 {
		return
	}
	fmt.Fprintln(p.ErrOut, p.Style.Dim.Sprint(costText(c)))
}

func costText(c Cost) string {
	cut := ""
	if c.Cut > 0 {
		// Sent, so counted; cut, so no answer of the run's.
		cut = fmt.Sprintf(" (%d cut by the signal)", c.Cut)
	}
	waited := ""
	if w := AfterRetriesText(c.RetryWait); w != "" {
		// The plugin's own waits before requests sent again, said on
		// the run's last line as on its error line (adversary try 26 F3).
		waited = " (" + w + RetryCauseText(c.RetryWait, nil) + ")"
	}
	return fmt.Sprintf("%s%s, %s read from the API server%s", text.Count(c.Requests, "request"), cut, apiclient.Bytes(c.Bytes), waited)
}

// RequestLine is one -v line of the request ledger, as kubectl's -v=6
// shows a request: the method, the URL (redacted), the status and the
// time, and here the bytes read. A watch has two: when its answer begins,
// and when it ends. A request net/http sent more than once by itself
// says how many times and why (apiclient.Sent).
func (p *Printer) RequestLine(e apiclient.Entry) {
	p.Tracef("%s", requestText(e))
}

func requestText(e apiclient.Entry) string {
	line := requestWords(e)
	if again := e.Sent.Again(); again != "" && !strings.Contains(line, again) {
		// (An error of the request may say it already.)
		line += " (" + again + ")"
	}
	return line
}

func requestWords(e apiclient.Entry) string {
	head := e.Method + " " + e.URL
	switch {
	case e.Status == 0 && e.Cancelled:
		// Never "no answer": the server may have answered at once.
		return fmt.Sprintf("%s after %s: %s", head, ms(e.Duration), e.CancelledWords())
	case e.Status == 0 && e.Err == nil && e.Unfinished:
		return fmt.Sprintf("%s still waiting for its answer when the run ended, after %s", head, ms(e.Duration))
	case e.Status == 0:
		return fmt.Sprintf("%s failed after %s: %s", head, ms(e.Duration), text.OneLine(errText(e.Err)))
	}
	status := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	switch {
	case e.Unfinished && e.Kind == apiclient.KindWatch && e.Status < 300:
		return fmt.Sprintf("%s still open when the run ended, after %s, %s read", head, ms(e.Duration), apiclient.Bytes(e.Bytes))
	case e.Unfinished:
		return fmt.Sprintf("%s %s in %s, %s read; its body was not read to its end when the run ended", head, status, ms(e.Headers), apiclient.Bytes(e.Bytes))
	case e.Open:
		return fmt.Sprintf("%s %s in %s (a watch: its bytes are counted as they stream)", head, status, ms(e.Headers))
	case e.Kind == apiclient.KindWatch && e.Status < 300 && e.EOF:
		return fmt.Sprintf("%s ended by the server after %s, %s read", head, ms(e.Duration), apiclient.Bytes(e.Bytes))
	case e.Kind == apiclient.KindWatch && e.Status < 300 && closedByPlugin(e.Err):
		return fmt.Sprintf("%s closed by the plugin after %s, %s read", head, ms(e.Duration), apiclient.Bytes(e.Bytes))
	case e.Kind == apiclient.KindWatch && e.Status < 300:
		return fmt.Sprintf("%s broke after %s, %s read%s", head, ms(e.Duration), apiclient.Bytes(e.Bytes), brokeText(e.Err))
	}
	if e.Cancelled {
		return fmt.Sprintf("%s %s in %s, %s read: %s", head, status, ms(e.Duration), apiclient.Bytes(e.Bytes), e.CancelledWords())
	}
	return fmt.Sprintf("%s %s in %s, %s read%s", head, status, ms(e.Duration), apiclient.Bytes(e.Bytes), brokeText(e.Err))
}

// closedByPlugin: a watch whose read ended with the plugin's own context
// (its --timeout, a verdict reached, Ctrl-C), or that it closed.
func closedByPlugin(err error) bool {
	return err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func brokeText(err error) string {
	if err == nil {
		return ""
	}
	var cut *apiclient.BodyCutError
	if errors.As(err, &cut) {
		// The line names the request and the bytes read: the break's
		// cause says the rest, in the one wording of a cut body.
		return ": " + cut.Cause
	}
	return ": " + strings.TrimSpace(text.OneLine(errText(err)))
}

func errText(err error) string {
	if err == nil {
		return "no answer"
	}
	return err.Error()
}

// ms is a duration as -v prints it: 5ms, 1.234s (412µs under a
// millisecond).
func ms(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// resentByTransport is how many list and watch sends net/http made by
// itself, below the plugin, after a reset before any answer or a refused
// HTTP/2 stream (apiclient.Sent; the ledger's KindCost.Resent). One rule
// for every run over resources: its rows and total count the plugin's
// requests, and these are said apart, never in one count and out of
// another (adversary try 35 F1: streaming's total 9 over rows of 2+2+2,
// probe --all's 7 beside a cost of 9).
func resentByTransport(c *Cost) int {
	if c == nil {
		return 0
	}
	return c.ByKind[apiclient.KindList].Resent + c.ByKind[apiclient.KindWatch].Resent
}

// resentWords says resentByTransport's count after a request count ("" for
// none).
func resentWords(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", and %s that net/http sent again by itself on another connection (in cost, not in the rows)", text.Count(n, "more send"))
}
