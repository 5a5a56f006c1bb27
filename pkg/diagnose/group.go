package diagnose

import (
	"io"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// DefaultMaxLinesPerGroup caps the line numbers a Group keeps.
const DefaultMaxLinesPerGroup = 1000

// Group is every finding of one kind in a log: the first one's diagnosis,
// how many there were, and where.
type Group struct {
	Diagnosis
	Count          int    `json:"count"`
	FirstLine      int    `json:"firstLine"`
	LastLine       int    `json:"lastLine"`
	Lines          []int  `json:"lines"`
	LinesTruncated bool   `json:"linesTruncated,omitempty"`
	Example        string `json:"example"`
	// MaxGap is the largest gap among the findings (how far behind, for
	// Expired; how far ahead, for TooLarge), when any had one.
	MaxGap string `json:"maxGap,omitempty"`
}

// Summary is the result of scanning a whole log.
type Summary struct {
	Lines    int     `json:"lines"`
	Bytes    int64   `json:"bytes"`
	Findings int     `json:"findings"`
	Groups   []Group `json:"groups"`
}

// Recognized reports whether the log held any error this package knows.
func (s Summary) Recognized() bool { return s.Findings > 0 }

// Collector groups findings by class and kind, in order of first appearance.
type Collector struct {
	MaxLinesPerGroup int // 0 means DefaultMaxLinesPerGroup
	groups           []Group
	index            map[string]int
	findings         int
}

// Add records one finding.
func (c *Collector) Add(f Finding) {
	if c.index == nil {
		c.index = map[string]int{}
	}
	max := c.MaxLinesPerGroup
	if max <= 0 {
		max = DefaultMaxLinesPerGroup
	}
	c.findings++
	key := string(f.Class) + "/" + f.Kind
	i, ok := c.index[key]
	if !ok {
		c.index[key] = len(c.groups)
		c.groups = append(c.groups, Group{Diagnosis: f.Diagnosis, FirstLine: f.Line, Example: f.Text, Lines: []int{}})
		i = len(c.groups) - 1
	}
	g := &c.groups[i]
	g.Count++
	g.LastLine = f.Line
	if len(g.Lines) < max {
		g.Lines = append(g.Lines, f.Line)
	} else {
		g.LinesTruncated = true
	}
	if rv.Less(g.MaxGap, f.Gap) || (g.MaxGap == "" && f.Gap != "") {
		g.MaxGap = f.Gap
	}
}

// Summary returns the groups so far.
func (c *Collector) Summary() Summary {
	groups := c.groups
	if groups == nil {
		groups = []Group{}
	}
	return Summary{Findings: c.findings, Groups: groups}
}

// Summarize scans a whole log and groups what it finds.
func Summarize(r io.Reader, maxLinesPerGroup int) (Summary, error) {
	c := &Collector{MaxLinesPerGroup: maxLinesPerGroup}
	cr := &countio.Reader{R: r}
	n, err := scanLog(cr, c.Add)
	s := c.Summary()
	s.Lines, s.Bytes = n, cr.N
	return s, err
}
