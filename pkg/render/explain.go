package render

import (
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"regexp"

	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Explanation is the stable schema of "explain-error -o json|yaml" for one
// message: the Diagnosis fields, plus what --check found.
type Explanation struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost *Cost `json:"cost,omitempty"`
	diagnose.Diagnosis
	Check *diagnose.Check `json:"check,omitempty"`
	// CheckRetryWait is the one-server check's own retries (a stopwatch
	// around its reads), said on its "Checked now" line.
	CheckRetryWait *apiclient.RetryWait `json:"-"`
}

// LogExplanation is the stable schema of "explain-error -f FILE -o
// json|yaml": the file, how much of it was read, and one group per kind.
type LogExplanation struct {
	File string `json:"file"`
	diagnose.Summary
}

// explainWidth is where text is wrapped; explainLabelWidth the label column.
const (
	explainWidth      = 100
	explainLabelWidth = 15
	explainLinesShown = 12
)

// Explanation prints the diagnosis of one message.
func (p *Printer) Explanation(e Explanation) error {
	e.Cost = p.cost()
	return p.emit(oneDocument, e, func() error { return p.explanationHuman(e) })
}

func (p *Printer) explanationHuman(e Explanation) error {
	w := &explainWriter{w: p.Out}
	p.explainVerdict(w, e.Diagnosis, "")
	p.explainDetails(w, e.Diagnosis, "", "")
	if e.Check != nil {
		checked := explainCheck(*e.Check)
		if e.Cost != nil {
			// The check's reads the retry policy sent again, said as
			// every line that ends a run says them (fresh user try 28 F6:
			// 2 s of Retry-After said only in -o json's cost).
			// Only the one-server check's own reads (CheckRetryWait): an
			// --endpoints row's are its row's (fresh user try 29 F1).
			if t := AfterRetriesText(e.CheckRetryWait); t != "" {
				checked += " (its reads: " + t + RetryCauseText(e.CheckRetryWait, nil) + ")"
			}
		}
		p.explainField(w, "", "Checked now", checked)
	}
	return w.err
}

// LogExplanation prints the findings of a whole log, once per kind.
func (p *Printer) LogExplanation(r LogExplanation) error {
	return p.emit(oneDocument, r, func() error { return p.logExplanationHuman(r) })
}

func (p *Printer) logExplanationHuman(r LogExplanation) error {
	w := &explainWriter{w: p.Out}
	s := p.Style
	read := fmt.Sprintf("Scanned %s (%s) of %s", text.Count(r.Lines, "line"), humanBytes(r.Bytes), r.File)
	if !r.Recognized() {
		w.printf("%s: %s\n", read, s.Dim.Sprint("no resourceVersion-related error found"))
		return w.err
	}
	w.printf("%s: %s of %s.\n", read, text.Count(r.Findings, "error"), text.Count(len(r.Groups), "kind"))
	for i, g := range r.Groups {
		w.printf("\n")
		times := text.Count(g.Count, "time")
		p.explainVerdict(w, g.Diagnosis, fmt.Sprintf("%d. ", i+1), s.Bold.Sprintf("%s, %s", times, explainLines(g)))
		const indent = "   "
		p.explainField(w, indent, "First seen", fmt.Sprintf("line %d: %s", g.FirstLine, g.Example))
		maxGap := ""
		if g.Count > 1 && g.MaxGap != "" && g.MaxGap != g.Gap {
			maxGap = g.MaxGap
		}
		p.explainDetails(w, g.Diagnosis, indent, maxGap)
	}
	return w.err
}

// explainVerdict is the first line: class, sub-kind, confidence; then the summary.
func (p *Printer) explainVerdict(w *explainWriter, d diagnose.Diagnosis, prefix string, extra ...string) {
	s := p.Style
	class := explainClassColor(s, d.Class).Sprint(string(d.Class))
	line := prefix + class
	if d.Kind != "" {
		line += " / " + s.Bold.Sprint(d.Kind)
	}
	line += s.Dim.Sprintf("  (confidence: %s)", d.Confidence)
	for _, e := range extra {
		line += "  " + e
	}
	w.printf("%s\n", line)
	indent := strings.Repeat(" ", len(prefix))
	w.printf("%s", explainWrap(d.Summary, indent, indent, explainWidth))
}

// explainDetails are the labelled paragraphs under a verdict; maxGap is the
// largest gap of a group, when it differs from the first one's.
func (p *Printer) explainDetails(w *explainWriter, d diagnose.Diagnosis, indent, maxGap string) {
	if !d.Recognized() {
		for _, note := range d.Notes {
			p.explainField(w, indent, "Note", note)
		}
		p.explainField(w, indent, "Fix", d.Fix)
		return
	}
	p.explainField(w, indent, "What happened", d.What)
	p.explainField(w, indent, "Why", d.Why)
	n := explainNumbers(d)
	if maxGap != "" {
		n += " (first seen; largest gap " + maxGap + ")"
	}
	if n != "" {
		p.explainField(w, indent, "Numbers", n)
	}
	for _, note := range d.Notes {
		p.explainField(w, indent, "Note", note)
	}
	if d.Operation != "" {
		p.explainField(w, indent, "Request", d.Operation)
	}
	if srv := explainServer(d); srv != "" {
		p.explainField(w, indent, "Server said", srv)
	}
	if d.Source != "" {
		p.explainField(w, indent, "Found in", d.Source)
	}
	p.explainField(w, indent, "client-go", d.ClientGo)
	p.explainField(w, indent, "Fix", p.Style.Good.Sprint(d.Fix))
}

// explainField writes "Label  text", the text wrapped under itself.
func (p *Printer) explainField(w *explainWriter, indent, label, text string) {
	if text == "" {
		return
	}
	head := indent + p.Style.Header.Sprint(label) + strings.Repeat(" ", max(1, explainLabelWidth-len(label)))
	w.printf("%s", explainWrap(text, head, indent+strings.Repeat(" ", explainLabelWidth), explainWidth))
}

// explainNumbers renders the RVs and the gap with its direction.
func explainNumbers(d diagnose.Diagnosis) string {
	var parts []string
	add := func(label, v string) {
		if v != "" {
			parts = append(parts, label+" "+v)
		}
	}
	add("requested", d.RequestedResourceVersion)
	if d.Kind == diagnose.KindWatchEventLostAtCompaction {
		// The revision of the lost event is also where a watch can start.
		if d.OldestResourceVersion != "" {
			parts = append(parts, "event lost at "+d.OldestResourceVersion, "a watch from "+d.OldestResourceVersion+" or later gets past it")
		}
	} else {
		add("oldest servable", d.OldestResourceVersion)
	}
	add("current", d.CurrentResourceVersion)
	if d.Gap != "" {
		switch {
		case d.Kind == diagnose.KindConsistentReadCacheLagging:
			parts = append(parts, "the watch cache is "+d.Gap+" behind storage")
		case d.Class == diagnose.ClassTooLarge:
			parts = append(parts, "requested is "+d.Gap+" ahead")
		case d.Class == diagnose.ClassExpired:
			parts = append(parts, "requested is "+d.Gap+" behind the oldest")
		default:
			parts = append(parts, "gap "+d.Gap)
		}
	}
	return strings.Join(parts, " · ")
}

// explainServer is "410 Expired: message" from what is known. A message
// that starts with its reason (kubectl's "Error from server (Timeout):
// Timeout: Too large ...") shows the reason once.
func explainServer(d diagnose.Diagnosis) string {
	var b strings.Builder
	if d.Code != 0 {
		b.WriteString(strconv.Itoa(int(d.Code)))
	}
	if d.Reason != "" && d.Message != d.Reason && !strings.HasPrefix(d.Message, d.Reason+":") {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(d.Reason)
	}
	if d.Message != "" {
		switch {
		case b.Len() > 0 && strings.HasPrefix(d.Message, d.Reason+":") && d.Reason != "":
			b.WriteString(" ")
		case b.Len() > 0:
			b.WriteString(": ")
		}
		msg := d.Message
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		b.WriteString(msg)
	}
	return b.String()
}

func explainCheck(c diagnose.Check) string {
	where := c.Resource
	if c.Namespace != "" {
		where += " in namespace " + c.Namespace
	}
	return fmt.Sprintf("%s: %s", where, c.Verdict)
}

func explainClassColor(s Style, c diagnose.Class) *Paint {
	switch c {
	case diagnose.ClassExpired, diagnose.ClassTooLarge:
		return s.Bad
	case diagnose.ClassOther:
		return s.Warn
	}
	return s.Dim
}

// explainLines is "line 4" or "lines 2, 5, 9, … (+40 more)".
func explainLines(g diagnose.Group) string {
	if len(g.Lines) == 1 {
		return "line " + strconv.Itoa(g.Lines[0])
	}
	shown := g.Lines
	if len(shown) > explainLinesShown {
		shown = shown[:explainLinesShown]
	}
	parts := make([]string, len(shown))
	for i, l := range shown {
		parts[i] = strconv.Itoa(l)
	}
	text := "lines " + strings.Join(parts, ", ")
	if more := g.Count - len(shown); more > 0 {
		text += fmt.Sprintf(", … (+%d more, last at line %d)", more, g.LastLine)
	}
	return text
}

// explainWrap fills text into lines of at most width columns: the first starts
// with head, the others with indent. Color codes in head are not counted.
func explainWrap(s, head, indent string, width int) string {
	var b strings.Builder
	b.WriteString(head)
	col := explainVisibleLen(head)
	start := col
	// Every word bounded as any outside value is (text.Echo): a word is
	// never a 300,000-byte resource name (adversary try 51 F15).
	words := text.Fields(s)
	for i := 0; i < len(words); i++ {
		word := words[i]
		if i+1 < len(words) && echoHead.MatchString(word) && strings.HasPrefix(words[i+1], "bytes]") {
			// A value echoed before ("hhh…[3016 bytes]") is one word:
			// split at its space, its head was shortened again and its
			// length said wrong (adversary try 52 F3: "…[136 bytes]").
			word += " " + words[i+1]
			i++
		}
		if len(word) > text.MaxEcho+len("…[18446744073709551615 bytes],") {
			word = text.Echo(word)
		}
		n := explainVisibleLen(word)
		if col > start && col+1+n > width {
			b.WriteString("\n")
			b.WriteString(indent)
			col = len(indent)
			start = col
		} else if col > start {
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += n
	}
	b.WriteString("\n")
	return b.String()
}

// echoHead ends the head of a value text.Echo shortened, before the space
// of its "…[N bytes]".
var echoHead = regexp.MustCompile(`…\[[0-9]{1,20}$`)

// explainVisibleLen is the columns s takes, palette marks not counted.
func explainVisibleLen(s string) int { return displayWidth(s) }

// explainCount renders n with thousands separators.
func explainCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// explainWriter keeps the first write error.
type explainWriter struct {
	w   io.Writer
	err error
}

func (e *explainWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
