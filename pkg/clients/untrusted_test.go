package clients_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// events are the recorded real lines as generic JSON, to be mutated.
func events(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile("../audit/testdata/e2e-audit.log")
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func lines(t *testing.T, evs []map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// field is a path into an event: "stageTimestamp", "user.username".
func set(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	if v == deleted {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

type del struct{}

var deleted = del{}

func clone(evs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		b, _ := json.Marshal(e)
		var m map[string]any
		json.Unmarshal(b, &m)
		out = append(out, m)
	}
	return out
}

// analyzeAll runs the whole path a person sees: read, analyze, -o json,
// and the human report.
func analyzeAll(t *testing.T, data []byte, o clients.Options) (clients.Report, string) {
	t.Helper()
	a := clients.New(o)
	st, err := audit.Read(context.Background(), []audit.Source{{Name: "a", R: bytes.NewReader(data)}}, audit.Options{}, func(e *audit.Event) error {
		a.Add(e)
		return nil
	})
	if err != nil {
		t.Fatalf("a read error (one bad line must never be fatal): %v", err)
	}
	r := a.Report([]string{"a"}, st)
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("-o json fails: %v", err)
	}
	var human bytes.Buffer
	p := &render.Printer{Out: &human, ErrOut: &human, Style: render.NewStyle(false)}
	if err := p.Clients(r, 100); err != nil {
		t.Fatalf("the human report fails: %v", err)
	}
	return r, human.String()
}

var negativeDuration = regexp.MustCompile(`(lived|every|within|spread) -|-[0-9]+h[0-9]+m|-[0-9.]+m?s\b`)

// sane checks what every report must be, whatever the input.
func sane(t *testing.T, what string, r clients.Report, human string) {
	t.Helper()
	if r.Events > 0 && (r.From.After(r.To) || r.From.Year() < 1970 || r.To.Year() > 2262 || r.To.Sub(r.From) == time.Duration(math.MaxInt64)) {
		t.Errorf("%s: from %s to %s", what, r.From, r.To)
	}
	if m := negativeDuration.FindString(human); m != "" {
		t.Errorf("%s: a negative duration in the report: %q", what, m)
	}
	var req int64
	check := func(name string, tt clients.Totals) {
		w := tt.Watches
		for _, v := range []float64{w.MinSeconds, w.MeanSeconds, w.MaxSeconds} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: %s: a watch lifetime of %v s", what, name, v)
			}
		}
		for _, v := range []int64{tt.Requests, tt.Lists.Total, tt.Watches.Total, tt.Gets, tt.Other, tt.Codes.Expired, w.Timed, w.Open} {
			if v < 0 {
				t.Errorf("%s: %s: a negative count %d", what, name, v)
			}
		}
		if w.Timed > w.Total {
			t.Errorf("%s: %s: %d timed watches of %d", what, name, w.Timed, w.Total)
		}
	}
	for _, c := range r.Clients {
		check(c.Name(), c.Totals)
		req += c.Requests
		for _, p := range c.Patterns {
			if p.PeriodSeconds < 0 || p.Count <= 0 || p.Last.Before(p.First) {
				t.Errorf("%s: %s: pattern %+v", what, c.Name(), p)
			}
		}
	}
	if req != r.Requests {
		t.Errorf("%s: the clients' requests add up to %d, the report says %d", what, req, r.Requests)
	}
	for _, c := range r.Timeline.Clients {
		for i := range c.Lists {
			if c.Lists[i] < 0 || c.Watches[i] < 0 || c.Expired[i] < 0 || c.Expired[i] > c.Watches[i]+c.Lists[i] {
				t.Errorf("%s: timeline %s bucket %d: %d lists %d watches %d 410s", what, c.Client, i, c.Lists[i], c.Watches[i], c.Expired[i])
			}
		}
	}
}

// values are what a hostile or broken log puts in a field.
var values = []any{
	deleted, nil, "", 0, -1, 1e300, -410, 99999, true, []any{}, map[string]any{}, []any{"x", 1},
	"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "9999-12-31T23:59:59.999999Z",
	"2026-12-01T10:44:35+14:00", "2026-12-01T10:44:35.1Z", "not a time",
	"\x1b[2J\x1b]0;PWNED\x07\u009b31m", strings.Repeat("x", 20000), "/api/v1/namespaces/default/%1b%5b2Jcm?watch=true&timeoutSeconds=9223372036854775807",
	"?resourceVersion=18446744073709551616&limit=-5&timeoutSeconds=-3&watch=1&sendInitialEvents=t",
}

// fields are every field the analysis reads, top level and nested.
var fields = []string{
	"level", "auditID", "stage", "requestURI", "verb", "user.username", "sourceIPs", "userAgent",
	"objectRef", "objectRef.resource", "objectRef.apiGroup", "objectRef.subresource", "objectRef.name",
	"responseStatus", "responseStatus.code", "responseObject", "responseObject.items", "responseObject.metadata.resourceVersion",
	"requestReceivedTimestamp", "stageTimestamp",
}

// Every field the analysis reads, in every event of a real recorded log
// (and in every third event, so that good and broken events meet), set to
// each hostile value: no panic, no fatal line, no negative duration, JSON
// that encodes, counts that add up (issue 25 item 15: a ResponseComplete
// without stageTimestamp lived -2562047h47m16.854775808s and counted as a
// 410; a year outside 0-9999 made -o json fail; year 0 gave a "to" of
// year 1).
func TestEveryFieldUntrusted(t *testing.T) {
	base := events(t)
	n := 0
	for _, f := range fields {
		for vi, v := range values {
			// Every event, or one in three (good and broken events meet).
			every := 1 + 2*((vi+len(f))%2)
			evs := clone(base)
			for i, e := range evs {
				if i%every == 0 {
					set(e, f, v)
				}
			}
			what := fmt.Sprintf("%s = value %d, every %d", f, vi, every)
			r, human := analyzeAll(t, lines(t, evs), clients.Options{BySourceIP: vi%2 == 0, ServerVersion: "v1.37.2"})
			sane(t, what, r, human)
			n++
		}
	}
	t.Logf("%d mutated logs", n)
}

// The instances: a ResponseComplete without stageTimestamp is not counted
// as a request (it cannot be placed in time) nor as a 410; one without a
// valid requestReceivedTimestamp counts with its lifetime not known.
func TestMissingTimes(t *testing.T) {
	base := events(t)
	clean, _ := analyzeAll(t, lines(t, base), clients.Options{})
	evs := clone(base)
	for _, e := range evs {
		if e["stage"] == "ResponseComplete" && e["verb"] == "watch" {
			delete(e, "stageTimestamp")
		}
	}
	r, human := analyzeAll(t, lines(t, evs), clients.Options{})
	sane(t, "no stageTimestamp", r, human)
	if r.Unreadable[audit.ReasonBadTime] == 0 || strings.Contains(human, "lived -") {
		t.Errorf("unreadable %v; human:\n%s", r.Unreadable, human)
	}
	evs = clone(base)
	for _, e := range evs {
		delete(e, "requestReceivedTimestamp")
	}
	r, human = analyzeAll(t, lines(t, evs), clients.Options{})
	sane(t, "no requestReceivedTimestamp", r, human)
	var unknown, expired int64
	for _, c := range r.Clients {
		unknown += c.Watches.LifetimeUnknown
		expired += c.Codes.Expired
	}
	if r.Requests != clean.Requests || unknown == 0 {
		t.Errorf("requests %d (want %d), watches of unknown lifetime %d", r.Requests, clean.Requests, unknown)
	}
	for _, c := range r.Timeline.Clients {
		for _, x := range c.Expired {
			if x != 0 {
				t.Errorf("%s: a 410 in the chart from a watch whose lifetime is not known", c.Client)
			}
		}
	}
	_ = expired
}
