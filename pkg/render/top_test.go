package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

func TestSparkline(t *testing.T) {
	for in, want := range map[string][]float64{
		"·▄█": {0, 5, 10},
		"▁█":  {0.1, 10},
		"··":  {0, 0},
		"":    nil,
	} {
		if got := Sparkline(want); got != in {
			t.Errorf("%v: %q, want %q", want, got, in)
		}
	}
}

// A cell never turns what top does not know into a number: a family not
// exposed is n/a, a counter that went down is reset, an interval across a
// restart is restart.
func TestTopCellsSayWhatIsNotKnown(t *testing.T) {
	one, two := 1.0, 2.0
	for want, r := range map[string]top.Rate{
		"n/a":     {Missing: "apiserver_terminated_watchers_total: the watch cache is off on this server"},
		"reset":   {First: &two, Second: &one, WentDown: true},
		"restart": {First: &one, Second: &two, Restarted: true},
		"1":       {First: &one, Second: &two, Delta: &one, PerSecond: &one},
		"?":       {Unmeasured: "apiserver_terminated_watchers_total{resource=\"pods\"} is NaN, not a number the server can mean: not measured"},
	} {
		if got := countCell(r); got != want {
			t.Errorf("count %+v: %q, want %q", r, got, want)
		}
	}
	minus := -1.0
	if got := objectsCell(top.Gauge{Value: &minus}); got != "count failed" {
		t.Errorf("objects -1: %q", got)
	}
	if got := gaugeText(top.Gauge{Unmeasured: "x"}, ""); got != notMeasured {
		t.Errorf("watchers not measured: %q", got)
	}
	if got := objectsCell(top.Gauge{Missing: "x"}); got != notAvailable {
		t.Errorf("objects missing: %q", got)
	}
}

func TestTopCostLine(t *testing.T) {
	r := TopReport{Report: &top.Report{Refresh: 1, Servers: []*top.Server{{ReadRequests: 2}}, Cost: top.Cost{Reads: 2, Read: 2, Bytes: 162374, Filtered: true, Families: 20}}}
	if got := topCost(r); !strings.Contains(got, "2 GET /metrics for this interval (2 per server: both samples), "+apiclient.Bytes(162374)+" read; filtered by name[]") {
		t.Errorf("filtered: %s", got)
	}
	// One of two answers refused: the bytes are said of the one read.
	r.Cost = top.Cost{Reads: 2, Read: 1, Bytes: 3100, Filtered: true, Families: 20}
	if got := topCost(r); !strings.Contains(got, apiclient.Bytes(3100)+" read from the 1 answer read (a refused or unreadable answer's body not counted)") {
		t.Errorf("one refused: %s", got)
	}
	r.Cost = top.Cost{Reads: 1, Read: 1, Bytes: 1300000, Unfiltered: []int{2}, Families: 20}
	r.Refresh = 4
	if got := topCost(r); !strings.Contains(got, "1 per server: the first sample is the previous refresh's second") || !strings.Contains(got, "server 2 ignores the name[] filter") {
		t.Errorf("unfiltered: %s", got)
	}
	r.Cost = top.Cost{Reads: 2}
	if got := topCost(r); !strings.Contains(got, "no server's /metrics could be read") || strings.Contains(got, "no server answered") || !strings.Contains(got, "no answer read") || strings.Contains(got, "0 answers") {
		t.Errorf("none answered: %s", got)
	}
	// No server answered the first read: no second was sent, and the
	// line counts the one (adversary try 16: "2 per server").
	r.Refresh, r.Servers, r.Cost = 1, []*top.Server{{ReadRequests: 1}, {ReadRequests: 1}}, top.Cost{Reads: 2}
	if got := topCost(r); !strings.Contains(got, "2 GET /metrics for this interval (1 per server: no second sample was asked for") {
		t.Errorf("first read unanswered: %s", got)
	}
}

// A live view starts with the one control sequence top writes besides
// colors: the cursor home and a cleared screen, through the one writer's
// sanitizer (which shows every other control escaped), colors off.
func TestTopClearsOnlyWhenLive(t *testing.T) {
	var out bytes.Buffer
	tw := NewTerminalWriter(&out)
	p := &Printer{Out: tw, ErrOut: tw, Style: NewStyle(false)}
	rep := &top.Report{Interval: "5s", Sort: "watchers", Refresh: 2, Rows: []*top.Row{}}
	if err := p.Top(TopReport{Report: rep, Live: true, Clear: true}); err != nil {
		t.Fatal(err)
	}
	_ = tw.Flush()
	if !strings.HasPrefix(out.String(), clearScreen) || !strings.Contains(out.String(), "refresh 2, every 5s, Ctrl-C to stop") {
		t.Errorf("live view: %q", out.String())
	}
	out.Reset()
	if err := p.Top(TopReport{Report: rep}); err != nil {
		t.Fatal(err)
	}
	_ = tw.Flush()
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("one interval printed with a control sequence: %q", out.String())
	}
}
