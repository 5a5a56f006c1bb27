package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Every document a command prints to the API server's account carries the
// run's cost in one field of one shape, "cost", in JSON and in YAML.
func TestEveryReportCarriesTheCost(t *testing.T) {
	want := Cost{Requests: 3, Bytes: 4096, ByKind: map[apiclient.BodyKind]apiclient.KindCost{
		apiclient.KindList: {Requests: 2, Bytes: 4000}, apiclient.KindDiscovery: {Requests: 1, Bytes: 96},
	}}
	prints := map[string]func(p *Printer) error{
		"list":                            func(p *Printer) error { return p.List(ListReport{}) },
		"probe":                           func(p *Printer) error { return p.Probe(ProbeReport{}, false) },
		"probe --all":                     func(p *Printer) error { return p.ProbeAll(ProbeAllReport{}, false) },
		"probe --interval":                func(p *Printer) error { return p.ProbeSeriesSummary(&ProbeSeries{}) },
		"--servers":                       func(p *Printer) error { return p.Servers(ServersReport{}) },
		"--all --servers":                 func(p *Printer) error { return p.ServersAll(ServersAllReport{}) },
		"explain-error --check --servers": func(p *Printer) error { return p.ExplanationServers(ServersExplanation{}) },
		"explain-error":                   func(p *Printer) error { return p.Explanation(Explanation{}) },
		"streaming":                       func(p *Printer) error { return p.Streaming(StreamingReport{}) },
		"watch (summary)":                 func(p *Printer) error { return p.WatchSummary(&WatchSummary{}) },
		"version":                         func(p *Printer) error { return p.Version(VersionInfo{}) },
	}
	for name, print := range prints {
		for _, format := range []string{FormatJSON, FormatYAML} {
			var out bytes.Buffer
			p := NewPrinter(&out, &out, format, true).WithCost(func() Cost { return want })
			if err := print(p); err != nil {
				t.Fatalf("%s -o %s: %v", name, format, err)
			}
			doc := out.Bytes()
			if format == FormatYAML {
				if !strings.Contains(out.String(), "cost:\n  byKind:\n") {
					t.Errorf("%s -o yaml: no cost:\n%s", name, out.String())
				}
				continue
			}
			var got struct {
				Cost *Cost `json:"cost"`
			}
			if err := json.Unmarshal(doc, &got); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got.Cost == nil || !reflect.DeepEqual(*got.Cost, want) {
				t.Errorf("%s -o json: cost %+v, want %+v", name, got.Cost, want)
			}
		}
	}
}

// The cost line is for a person at a terminal, and only when the run sent
// more than one request.
func TestCostLine(t *testing.T) {
	var b bytes.Buffer
	p := &Printer{Out: &b, ErrOut: &b, Style: NewStyle(false)}
	p.CostLine(Cost{Requests: 5, Bytes: 3 << 10})
	if b.Len() != 0 {
		t.Fatalf("a cost line off a terminal: %q", b.String())
	}
	p.progress = true
	p.CostLine(Cost{Requests: 1, Bytes: 3 << 10})
	if b.Len() != 0 {
		t.Fatalf("a cost line for one request: %q", b.String())
	}
	p.CostLine(Cost{Requests: 5, Bytes: 3 << 10})
	if got := b.String(); got != "5 requests, 3 KiB read from the API server\n" {
		t.Fatalf("cost line %q", got)
	}
}

func TestRequestText(t *testing.T) {
	for _, c := range []struct {
		e    apiclient.Entry
		want string
	}{
		{apiclient.Entry{Method: "GET", URL: "https://h/api/v1/configmaps?limit=500", Kind: apiclient.KindList, Status: 200, Bytes: 2048, Duration: 5 * time.Millisecond},
			"GET https://h/api/v1/configmaps?limit=500 200 OK in 5ms, 2 KiB read"},
		{apiclient.Entry{Method: "GET", URL: "https://h/api/v1/configmaps?watch=1", Kind: apiclient.KindWatch, Status: 200, Headers: 3 * time.Millisecond, Open: true},
			"GET https://h/api/v1/configmaps?watch=1 200 OK in 3ms (a watch: its bytes are counted as they stream)"},
		{apiclient.Entry{Method: "GET", URL: "https://h/api/v1/configmaps?watch=1", Kind: apiclient.KindWatch, Status: 200, Bytes: 100, Duration: 1500 * time.Millisecond, Err: &apiclient.BodyCutError{Request: "GET /api/v1/configmaps?watch=1", Watch: true, Bytes: 100, Cause: "the connection closed before the answer's end", Err: io.ErrUnexpectedEOF}},
			"GET https://h/api/v1/configmaps?watch=1 broke after 1.5s, 100 B read: the connection closed before the answer's end"},
		{apiclient.Entry{Method: "GET", URL: "https://h/api/v1/configmaps?limit=500", Kind: apiclient.KindList, Status: 200, Bytes: 2000, Duration: 5 * time.Millisecond, Err: &apiclient.BodyCutError{Request: "GET /api/v1/configmaps?limit=500", Bytes: 2000, Cause: "the connection was reset", Err: syscall.ECONNRESET}},
			"GET https://h/api/v1/configmaps?limit=500 200 OK in 5ms, 2.0 KiB read: the connection was reset"},
		{apiclient.Entry{Method: "GET", URL: "https://h/api/v1/configmaps?watch=1", Kind: apiclient.KindWatch, Status: 200, Bytes: 100, Duration: 5 * time.Second, EOF: true},
			"GET https://h/api/v1/configmaps?watch=1 ended by the server after 5s, 100 B read"},
		{apiclient.Entry{Method: "GET", URL: "https://h/api/v1/configmaps?watch=1", Kind: apiclient.KindWatch, Status: 200, Bytes: 0, Duration: 4958 * time.Millisecond, Err: context.DeadlineExceeded},
			"GET https://h/api/v1/configmaps?watch=1 closed by the plugin after 4.958s, 0 B read"},
		{apiclient.Entry{Method: "GET", URL: "https://h/version", Kind: apiclient.KindVersion, Duration: 2 * time.Millisecond, Err: errors.New("dial tcp: connection refused")},
			"GET https://h/version failed after 2ms: dial tcp: connection refused"},
		{apiclient.Entry{Method: "GET", URL: "https://h/api", Kind: apiclient.KindDiscovery, Status: 503, Bytes: 60, Duration: 800 * time.Microsecond},
			"GET https://h/api 503 Service Unavailable in 800µs, 60 B read"},
		// The plugin cancelled it (adversary try 16, A7): never "no
		// answer", whether net/http returned or the run ended first.
		{apiclient.Entry{Method: "GET", URL: "http://h/version", Kind: apiclient.KindVersion, Duration: 2 * time.Millisecond, Unfinished: true, Cancelled: true},
			"GET http://h/version after 2ms: cancelled by the plugin (the run stopped) before it was sent"},
		{apiclient.Entry{Method: "GET", URL: "http://h/metrics", Kind: apiclient.KindMetrics, Duration: 2 * time.Millisecond, Sent: apiclient.Sent{Times: 1}, Cancelled: true, Err: context.Canceled},
			"GET http://h/metrics after 2ms: cancelled by the plugin (the run stopped) before its answer came"},
		{apiclient.Entry{Method: "GET", URL: "http://h/metrics", Kind: apiclient.KindMetrics, Status: 200, Bytes: 10, Duration: 2 * time.Millisecond, Sent: apiclient.Sent{Times: 1}, Cancelled: true, Err: context.Canceled},
			"GET http://h/metrics 200 OK in 2ms, 10 B read: cancelled by the plugin (the run stopped) before its body ended"},
		{apiclient.Entry{Method: "GET", URL: "http://h/version", Kind: apiclient.KindVersion, Duration: 2 * time.Millisecond, Sent: apiclient.Sent{Times: 1}, Unfinished: true},
			"GET http://h/version still waiting for its answer when the run ended, after 2ms"},
		// net/http sent it again by itself (adversary try 16, A2): the line
		// says so, once, whether or not its error does too.
		{apiclient.Entry{Method: "GET", URL: "http://h/version", Kind: apiclient.KindVersion, Status: 200, Bytes: 74, Duration: 3 * time.Millisecond, Sent: apiclient.Sent{Times: 2}},
			"GET http://h/version 200 OK in 3ms, 74 B read (" + apiclient.Sent{Times: 2}.Again() + ")"},
		{apiclient.Entry{Method: "GET", URL: "http://h/version", Kind: apiclient.KindVersion, Duration: 2 * time.Millisecond, Sent: apiclient.Sent{Times: 3}, Err: &apiclient.ConnectionLostError{What: "the server reset the connection before its answer came", Sent: apiclient.Sent{Times: 3}}},
			"GET http://h/version failed after 2ms: the server reset the connection before its answer came (" + apiclient.Sent{Times: 3}.Again() + ")"},
	} {
		if got := requestText(c.e); got != c.want {
			t.Errorf("requestText:\n got %s\nwant %s", got, c.want)
		}
	}
}
