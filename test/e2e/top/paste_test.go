//go:build e2e

package top

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopSuggestedProbeWorksWhenPasted: 410 answers on events (exact
// lists at a compacted RV: events have no watch cache by default, so etcd
// answers; the watch cache of v1.37 answers such a list of configmaps from
// its snapshot) make top call them out with a probe of events; that
// command, pasted as printed, runs in the user's context (its
// --kubeconfig) and probes events.
func TestTopSuggestedProbeWorksWhenPasted(t *testing.T) {
	ctx := context.Background()
	_, ns := framework.Namespace(t, shared, "top-paste")
	rev, err := shared.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := shared.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(shared.RESTConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	// Exact lists at a compacted RV, every half second while top runs (a
	// loaded machine may take seconds to top's first sample).
	done := make(chan struct{})
	type tally struct {
		gone, other int
		last        string
	}
	counted := make(chan tally, 1)
	go func() {
		var n tally
		defer func() { counted <- n }()
		for {
			select {
			case <-done:
				return
			case <-time.After(500 * time.Millisecond):
			}
			resp, err := hc.Get(shared.RESTConfig(0).Host + "/api/v1/namespaces/" + ns + "/events?resourceVersion=2&resourceVersionMatch=Exact&limit=1")
			if err != nil {
				n.other, n.last = n.other+1, err.Error()
				continue
			}
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			resp.Body.Close()
			if resp.StatusCode == http.StatusGone {
				n.gone++
			} else {
				n.other, n.last = n.other+1, resp.Status+" "+string(b)
			}
		}
	}()
	r, res := framework.RunTopJSON(t, shared.Kubeconfig, "--interval", "5s", "events")
	close(done)
	if n := <-counted; n.gone == 0 || n.other != 0 {
		t.Fatalf("exact lists of events at a compacted RV: %d answered 410, %d otherwise (last: %s)", n.gone, n.other, n.last)
	}
	var line string
	for _, c := range r.Callouts {
		if c.Kind == "code-410" && c.Resource == "events" {
			line = c.Command
		}
	}
	if line == "" {
		var rows []string
		for _, row := range r.Rows {
			rows = append(rows, row.Name()+": "+framework.RowSummary(row))
		}
		t.Fatalf("no 410 callout with a command for events: %+v\nrows: %q\nstderr: %s", r.Callouts, rows, res.Stderr)
	}
	if !strings.HasPrefix(line, "kubectl watchrv probe events") || !strings.Contains(line, shared.Kubeconfig) {
		t.Errorf("the suggested probe %q is not a probe of events in the user's kubeconfig", line)
	}
	p := framework.RunPasted(t, line, nil, 2*time.Minute)
	if p.Code != 0 || !strings.Contains(p.Stdout, "events") {
		t.Errorf("pasted %q: exit %d\n%s%s", line, p.Code, p.Stdout, p.Stderr)
	}
}
