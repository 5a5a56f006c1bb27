//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTheRowsAddUpToTheTotalAndResendsAreSaidApart (adversary try 35 F1):
// where net/http sends a GET again by itself (a connection reset before
// any answer), the rows of a run over resources and its total count the
// plugin's requests alike, and the resends are said apart, so that rows,
// total, resends and cost add up in one run of streaming --all and of
// probe --all.
func TestTheRowsAddUpToTheTotalAndResendsAreSaidApart(t *testing.T) {
	reset := framework.ScriptAnswer{Reset: true}
	script := map[string]framework.ScriptAnswer{}
	for _, p := range []string{"/apis/apps/v1/namespaces/default/deployments", "/apis/apps/v1/deployments"} {
		script[p], script[p+"?watch"] = reset, reset
	}
	_, kc := framework.ServeScript(t, script)
	type kind struct {
		Requests, Resent int
	}
	for _, args := range [][]string{{"streaming", "--all", "--deadline", "5s"}, {"probe", "--all"}} {
		t.Run(args[0], func(t *testing.T) {
			r := framework.Run(t, kc, 2*time.Minute, append(args, "-o", "json")...)
			var doc struct {
				Resources []struct {
					Requests int `json:"requests"`
				} `json:"resources"`
				Requests          int `json:"requests"`
				SharedRequests    int `json:"sharedRequests"`
				ResentByTransport int `json:"resentByTransport"`
				Cost              struct {
					ByKind map[string]kind `json:"byKind"`
				} `json:"cost"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
				t.Fatalf("exit %d (%v):\n%s%s", r.Code, err, r.Stdout, r.Stderr)
			}
			rows := doc.SharedRequests
			for _, row := range doc.Resources {
				rows += row.Requests
			}
			wire := doc.Cost.ByKind["list"].Requests + doc.Cost.ByKind["watch"].Requests
			resent := doc.Cost.ByKind["list"].Resent + doc.Cost.ByKind["watch"].Resent
			if resent == 0 {
				t.Fatalf("net/http sent nothing again: the case does not reach what it attacks (cost %+v)", doc.Cost.ByKind)
			}
			if rows != doc.Requests || doc.Requests+doc.ResentByTransport != wire || doc.ResentByTransport != resent {
				t.Errorf("rows %d, requests %d, resent %d (cost's %d), cost list+watch %d: they do not add up", rows, doc.Requests, doc.ResentByTransport, resent, wire)
			}
			h := framework.Run(t, kc, 2*time.Minute, args...)
			if !strings.Contains(h.Stdout+h.Stderr, "more send") {
				t.Errorf("the human summary does not say the resends apart:\n%s%s", h.Stdout, h.Stderr)
			}
		})
	}
}
