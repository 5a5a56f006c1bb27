//go:build e2e

package watch

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 25 F1: at a stall the session reads the server's facts
// (/version, /metrics) to say who serves the watch; a server that did not
// answer them held the reconnect 10 s, while the line said "reconnect in
// 0.0s", and a Ctrl-C in that window left the stall out of every count.
// The class: a wait the plugin adds is said, bounded, and a stall acted on
// is recorded. Attacked with each facts path hung, in both outputs, run to
// the deadline and cut by Ctrl-C inside the read.
func TestWatchFollowStallFactsReadIsBoundedAndSaid(t *testing.T) {
	t.Parallel()
	for _, hung := range []string{"/version", "/metrics"} {
		for _, out := range []string{"human", "json"} {
			t.Run(strings.TrimPrefix(hung, "/")+"/"+out, func(t *testing.T) {
				t.Parallel()
				_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{hung: {Hang: true}})
				args := []string{"watch", "cm", "-n", "default", "--follow", "--rv", "100", "--stall-timeout", "2s", "--timeout", "8s"}
				if out == "json" {
					args = append(args, "-o", "json")
				}
				r := framework.Run(t, kc, time.Minute, args...)
				var held float64
				var heldBy string
				for _, line := range strings.Split(r.Stdout, "\n") {
					if out == "human" && strings.HasPrefix(line, "-- reconnect") {
						heldBy = line
						if strings.Contains(line, "(after 2.0s reading the server's facts") {
							held = 2
						}
						break
					}
					var rec struct {
						Record      string  `json:"record"`
						HeldSeconds float64 `json:"heldSeconds"`
						HeldBy      string  `json:"heldBy"`
					}
					if json.Unmarshal([]byte(line), &rec) == nil && rec.Record == "reconnect" {
						held, heldBy = rec.HeldSeconds, rec.HeldBy
						break
					}
				}
				if heldBy == "" {
					t.Fatalf("no reconnect within 8 s of a 2 s stall (the facts read held it):\n%s\n%s", r.Stdout, r.Stderr)
				}
				if held < 1.9 || held > 3 || !strings.Contains(heldBy, "no answer within 2s, so who serves the watch was not read") {
					t.Errorf("the reconnect does not say the 2 s spent on the unanswered facts read (held %.1fs):\n%s", held, heldBy)
				}
			})
		}
	}
	for _, out := range []string{"human", "json"} {
		t.Run("ctrl-c in the read/"+out, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/version": {Hang: true}})
			args := []string{"watch", "cm", "-n", "default", "--follow", "--rv", "100", "--stall-timeout", "2s", "--timeout", "30s"}
			want := "1 stream closed silent by --stall-timeout"
			if out == "json" {
				args, want = append(args, "-o", "json"), `"stalledStreams":1`
			}
			p := framework.StartPlugin(t, kc, args...)
			if out == "human" {
				p.WaitFor("watching", 10*time.Second)
			} else {
				time.Sleep(500 * time.Millisecond)
			}
			time.Sleep(3 * time.Second) // the stall at 2 s, the facts read until 4 s
			if code := p.Interrupt(10 * time.Second); code != 130 {
				t.Fatalf("exit %d, want 130:\n%s\n%s", code, p.Stdout(), p.Stderr())
			}
			if strings.Contains(p.Stdout(), "reconnect") && !strings.Contains(p.Stdout(), `"reconnects":0`) && !strings.Contains(p.Stdout(), "0 reconnects") {
				t.Skipf("the Ctrl-C came after the reconnect (a slow machine): nothing to check:\n%s", p.Stdout())
			}
			if !strings.Contains(p.Stdout(), want) {
				t.Errorf("the stall detected before the Ctrl-C is in no record (want %q):\n%s", want, p.Stdout())
			}
		})
	}
}
