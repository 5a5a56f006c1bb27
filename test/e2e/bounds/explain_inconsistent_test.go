//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestPerServerViewDrawsNothingFromAnInconsistent410 (adversary try 27
// F6): explain-error --check --endpoints over a server whose window holds
// RV 214 and one that refuses a watch from 214 with a 410 no server sends
// to it: one that names another RV than the one asked ("too old resource
// version: 1 (50)"), or the asked one with an oldest at or below it ("214
// (50)": a watch from 214 starts there). The per-server view checks every
// 410 with the one consistency check (diagnose, as watch does): the row
// says "inconsistent", and no finding says RV 214 is outside that server's
// window (before: "RV 214 is inside the window of A but not of B (its
// oldest is 50)", 214 > 50).
func TestPerServerViewDrawsNothingFromAnInconsistent410(t *testing.T) {
	const text = "too old resource version: 214 (257)"
	for name, odd := range map[string]framework.RVScript{
		"another RV":       {Currents: []uint64{300}, Oldest: 1000, Named: 50, NamesRV: 1},
		"oldest below it":  {Currents: []uint64{300}, Oldest: 1000, Named: 50},
		"oldest is the RV": {Currents: []uint64{300}, Oldest: 1000, Named: 214},
	} {
		t.Run(name, func(t *testing.T) {
			good, kc := framework.ServeRVScriptTLS(t, framework.RVScript{Currents: []uint64{300}, Oldest: 50})
			bad, _ := framework.ServeRVScriptTLS(t, odd)
			args := []string{"explain-error", "--check", text, "cm", "--endpoints", good.Host() + "," + bad.Host()}
			human := framework.Run(t, kc, time.Minute, args...)
			doc := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
			// The kubeconfig's server is asked as the one-server check
			// asks it, read through to the current RV: its row and
			// "Checked now" say the same (the stream this fake ends after
			// one change was "fails" there and "ok" in its row).
			if goodRow := lineWith(human.Stdout, good.Host()); !strings.Contains(goodRow, "the stream ended after 1 change") || !strings.Contains(human.Stdout, "fails (the stream ended after 1 change") {
				t.Errorf("the kubeconfig server's row and the one-server check disagree: %q\n%s", goodRow, human.Stdout)
			}
			if strings.Contains(human.Stdout, "but not of") || strings.Contains(human.Stdout, "its oldest is") {
				t.Errorf("a finding drawn from the inconsistent 410:\n%s", human.Stdout)
			}
			row := lineWith(human.Stdout, bad.Host())
			if !strings.Contains(row, "inconsistent") {
				t.Errorf("the row of the server that answered the inconsistent 410 does not say so: %q\n%s", row, human.Stdout)
			}
			if !strings.Contains(human.Stdout, "was not checked") {
				t.Errorf("no finding says the window of the server was not checked:\n%s", human.Stdout)
			}
			var report struct {
				Servers struct {
					Servers []struct {
						Endpoint     string `json:"endpoint"`
						OldestNamed  uint64 `json:"oldestNamed,string"`
						Inconsistent string `json:"inconsistent"`
					} `json:"servers"`
				} `json:"servers"`
			}
			if err := json.Unmarshal([]byte(doc.Stdout), &report); err != nil {
				t.Fatalf("-o json: %v:\n%s", err, doc.Stdout)
			}
			for _, s := range report.Servers.Servers {
				if s.Endpoint == bad.Host() && (s.OldestNamed != 0 || s.Inconsistent == "") {
					t.Errorf("-o json: server %s: oldestNamed %d, inconsistent %q: want no oldest drawn from the 410, and why it is inconsistent:\n%s", s.Endpoint, s.OldestNamed, s.Inconsistent, doc.Stdout)
				}
			}
		})
	}
}
