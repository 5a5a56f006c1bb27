package render

import (
	"cmp"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// StreamingReport is the stable schema of "streaming -o json|yaml" (one
// resource or --all): a row per resource and the verdict for the cluster.
type StreamingReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost      *Cost                    `json:"cost,omitempty"`
	Resources []streaming.Result       `json:"resources"`
	Verdict   streaming.ClusterVerdict `json:"verdict"`
	// DeadlineSeconds is --deadline: how long a stream had to send the bookmark.
	DeadlineSeconds float64 `json:"deadlineSeconds"`
	Requests        int     `json:"requests"`
	// ResentByTransport: list and watch sends beyond Requests, which
	// net/http made by itself (resentByTransport).
	ResentByTransport int     `json:"resentByTransport,omitempty"`
	Millis            float64 `json:"ms"`
	// Interrupted is set when Ctrl-C or SIGTERM stopped the run: the rows
	// and the verdict are those of the resources checked before it.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// DiscoveryFailed (--all) says which group versions' discovery
	// failed, and why: their resources are not among the rows.
	DiscoveryFailed string `json:"discoveryFailed,omitempty"`
}

// NewStreamingReport sorts the rows worst first (hangs, falls back,
// retries, unknown, works), then by name, and adds the cluster's verdict.
func NewStreamingReport(rows []streaming.Result, deadline time.Duration) StreamingReport {
	rank := map[streaming.Informer]int{streaming.InformerHangs: 0, streaming.InformerFallsBack: 1, streaming.InformerRetries: 2, streaming.InformerUnknown: 3, streaming.InformerWorks: 4}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if rank[a.Informer] != rank[b.Informer] {
			return rank[a.Informer] < rank[b.Informer]
		}
		return a.Resource < b.Resource
	})
	if rows == nil {
		rows = []streaming.Result{}
	}
	r := StreamingReport{Resources: rows, Verdict: streaming.Summarize(rows), DeadlineSeconds: deadline.Seconds()}
	for _, row := range rows {
		r.Requests += row.Requests
	}
	return r
}

// RowNames are the rows' resources, top down: the order of the table, in
// which an error line counts "the first" failure (sweep.InTableOrder).
func (r StreamingReport) RowNames() []string {
	names := make([]string, len(r.Resources))
	for i, row := range r.Resources {
		names[i] = row.Resource
	}
	return names
}

// NewStreamingAllReport is the report of a check of every resource; an
// interrupted run is marked partial (it exits 130).
func NewStreamingAllReport(run *sweep.Run[streaming.Result], deadline time.Duration) StreamingReport {
	r := NewStreamingReport(run.Rows, deadline)
	r.Interrupted = interruptionOf(run)
	return r
}

// Streaming prints the checks and the verdict.
func (p *Printer) Streaming(r StreamingReport) error {
	r.Cost, r.Millis = p.cost(), p.runMillis()
	// The rows' requests, and apart the GETs net/http sent again by
	// itself (adversary tries 32 F2 and 35 F1).
	r.ResentByTransport = resentByTransport(r.Cost)
	return p.emit(oneDocument, r, func() error { return p.streamingHuman(r) })
}

func (p *Printer) streamingHuman(r StreamingReport) error {
	s := p.Style
	t := NewTable("RESOURCE", "NAMESPACE", "STREAM", "INFORMER", "OBJECTS", "LIST", "BOOKMARK RV", "TO BOOKMARK", "OBJ/S", "NOTE")
	for _, row := range r.Resources {
		list := "-"
		switch {
		case row.ListCount != nil:
			list = strconv.Itoa(*row.ListCount)
		case row.ListError != "":
			list = "failed" // the NOTE says why
		}
		toBookmark, rate := "-", "-"
		if row.BookmarkReceived {
			toBookmark = millis(row.BookmarkMillis)
			rate = fmt.Sprintf("%.0f", row.ObjectsPerSecond)
		} else if row.Status == streaming.StatusBroken && !row.StreamEnded {
			toBookmark = "none in " + millis(row.StreamMillis)
		}
		t.Row(row.Resource, namespaceCell(row.Namespace, row.Namespaced), string(row.Status), string(row.Informer), strconv.Itoa(row.InitialObjects), list,
			orDash(row.BookmarkResourceVersion), toBookmark, rate, streamingNote(row))
		t.PaintLast(2, statusPaint(s, row.Status))
		t.PaintLast(3, informerPaint(s, row.Informer))
	}
	if err := p.table(t); err != nil {
		return err
	}
	fmt.Fprintln(p.Out)
	kv := [][2]string{{"Verdict", r.Verdict.Summary}}
	if len(r.Resources) == 1 {
		kv = append(kv, [2]string{"Why", r.Resources[0].Explanation})
	}
	kv = append(kv, [2]string{"Requests", fmt.Sprintf("%d in %s (one streaming watch per resource, closed at the verdict; deadline %s)%s", r.Requests, millis(r.Millis), time.Duration(r.DeadlineSeconds*float64(time.Second)), resentWords(r.ResentByTransport))})
	if in := r.Interrupted; in != nil {
		kv = append(kv, [2]string{"Interrupted", fmt.Sprintf("%d of %s checked before the signal; the verdict is theirs only%s", in.Done, text.Count(in.Of, "resource"), in.cutText("resource"))})
	}
	return KeyValues(p.Out, kv)
}

// streamingNote is the NOTE cell: the server's refusal, or the first
// problem; and the failure of the list to compare with, whatever the
// stream did (never hidden behind a "-" in LIST; fresh user try 20 #1).
func streamingNote(r streaming.Result) string {
	note := streamNote(r)
	if r.ListError != "" && !strings.Contains(note, r.ListError) {
		if note != "" {
			note += "; "
		}
		note += "the list failed: " + r.ListError
	}
	if flag := listTimeoutFlag[r.ListTimedOut]; flag != "" && r.BookmarkReceived {
		note += " (raise " + flag + " to compare the state)"
	}
	return note
}

// listTimeoutFlag is the flag that gives a list of the check that got no
// answer in time more time, by the bound that ended it.
var listTimeoutFlag = map[streaming.ListTimeout]string{
	streaming.ListTimeoutCheck:   "--deadline",
	streaming.ListTimeoutRequest: "--request-timeout",
}

// streamNote is what the streaming watch got: the server's refusal, the
// check's failure, the first problem, or the missing bookmark.
func streamNote(r streaming.Result) string {
	switch {
	case r.Code != 0:
		return diagnose.StatusLine(r.Code, r.Reason, r.Message)
	case r.Error != "":
		return r.Error
	case len(r.Problems) > 0:
		return r.Problems[0]
	case r.StreamEnded && !r.BookmarkReceived:
		return "the server ended the stream after " + millis(r.StreamMillis) + " without the bookmark"
	case r.Status == streaming.StatusBroken:
		return cmp.Or(r.Stall(), "no initial-events-end bookmark")
	}
	return ""
}

func statusPaint(s Style, st streaming.Status) func(a ...any) string {
	switch st {
	case streaming.StatusCorrect:
		return s.Good.Sprint
	case streaming.StatusUnverified, streaming.StatusRefused:
		return s.Warn.Sprint
	}
	return s.Bad.Sprint
}

func informerPaint(s Style, in streaming.Informer) func(a ...any) string {
	switch in {
	case streaming.InformerWorks:
		return s.Good.Sprint
	case streaming.InformerFallsBack, streaming.InformerRetries:
		return s.Warn.Sprint
	}
	return s.Bad.Sprint
}
