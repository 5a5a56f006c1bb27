package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// TestASeriesRoundPrintsNoUnreadRV (adversary: probe cm --interval 1s
// --duration 3s against a server whose configmaps list hung, answered
// 500, or answered at RV "abc" or "0" printed CURRENT RV 0 for those
// rounds and, in JSON, "currentResourceVersion": 0,
// "oldestResourceVersion": 0, "width": 0). Each round whose current-RV
// read failed, as probe.Run leaves it and the series reduces it
// (probe.RoundOf, probe.CutRound), is printed as a row and as the series'
// JSON: no RV cell of the row is a number, and the JSON has none of the
// three keys and windowKnown false. A round that read them shows them.
func TestASeriesRoundPrintsNoUnreadRV(t *testing.T) {
	target := configmapsIn("default")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	readFailed := func(raw string) *probe.Result {
		_, err := probe.StorageRV(raw) // the one rule ReadCurrent reads a list's RV by
		if err == nil {
			t.Fatalf("StorageRV(%q) read a number", raw)
		}
		return &probe.Result{Target: target, CurrentRaw: raw, Err: err, Started: at, Requests: 1}
	}
	failed := map[string]probe.Round{
		// The list hung: the round was cut by the series' end.
		"hang": probe.CutRound(probe.RoundOf(&probe.Result{Target: target, Err: context.DeadlineExceeded, Started: at, Requests: 1}), 3*time.Second, time.Second, 4*time.Second, true),
		"500":  probe.RoundOf(&probe.Result{Target: target, Err: errors.New("the server answered 500 Internal Server Error"), Started: at, Requests: 1}),
		"abc":  probe.RoundOf(readFailed("abc")),
		"0":    probe.RoundOf(readFailed("0")),
	}
	found := probe.RoundOf(&probe.Result{Target: target, Current: 100, CurrentRaw: "100", Started: at, Requests: 7,
		Search: &probe.SearchResult{Current: 100, Oldest: 50, Found: true, Source: probe.SourceWatchCache}})
	for name, r := range failed {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			p := NewPrinter(&out, &bytes.Buffer{}, FormatTable, true)
			if err := p.ProbeRound(r); err != nil {
				t.Fatal(err)
			}
			cells := strings.Fields(out.String())
			if len(cells) < 4 {
				t.Fatalf("no row: %q", out.String())
			}
			if cells[1] != "-" || cells[2] != "?" || cells[3] != "?" {
				t.Errorf("CURRENT RV %q, OLDEST RV %q, WIDTH %q for a round that read none, want -, ?, ?: %q", cells[1], cells[2], cells[3], out.String())
			}
			var doc bytes.Buffer
			s := NewProbeSeries(target)
			s.Rounds = []probe.Round{r, found}
			if err := NewPrinter(&doc, &bytes.Buffer{}, FormatJSON, true).ProbeSeriesSummary(s); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Rounds []map[string]any `json:"rounds"`
			}
			if err := json.Unmarshal(doc.Bytes(), &got); err != nil || len(got.Rounds) != 2 {
				t.Fatalf("-o json: %v:\n%s", err, doc.String())
			}
			for _, k := range []string{"currentResourceVersion", "oldestResourceVersion", "width"} {
				if v, ok := got.Rounds[0][k]; ok {
					t.Errorf("-o json: %s %v for a round that read none", k, v)
				}
			}
			if got.Rounds[0]["windowKnown"] != false || got.Rounds[0]["found"] != false {
				t.Errorf("-o json: a window for a round that read none: %v", got.Rounds[0])
			}
			ok := got.Rounds[1]
			if ok["currentResourceVersion"] != "100" || ok["oldestResourceVersion"] != "50" || ok["width"] != 50.0 || ok["windowKnown"] != true {
				t.Errorf("-o json: the round that read its RVs: %v", ok)
			}
		})
	}
	var out bytes.Buffer
	if err := NewPrinter(&out, &bytes.Buffer{}, FormatTable, true).ProbeRound(found); err != nil {
		t.Fatal(err)
	}
	if cells := strings.Fields(out.String()); len(cells) < 4 || cells[1] != "100" || cells[2] != "50" || cells[3] != "50" {
		t.Errorf("the round that read its RVs: %q", out.String())
	}
}
