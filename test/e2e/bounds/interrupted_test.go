//go:build e2e

package bounds

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A one-target run interrupted (Ctrl-C, SIGTERM) while its request is in
// flight prints nothing measured, for nothing was: no row, no verdict
// drawn from the interruption, only "interrupted", exit 130, as
// docs/exit-codes.md says of every command (fresh user try 20 #9:
// streaming RESOURCE printed an "error / unknown" row and a verdict about
// the check the signal cut). Each command is stopped in each request it
// sends: the list, and streaming's watch after its list answered.
// (explain-error --check is not here: its explanation of the message is
// made before any request, and is printed when the check is cut; that no
// command prints a cut request as an answer, whichever request the
// signal cut, is TestACutRequestIsNoOutcome.)
func TestAnInterruptedRunPrintsNoRow(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	hang := framework.ScriptAnswer{Hang: true}
	hangAll := map[string]framework.ScriptAnswer{path: hang, path + "?watch": hang}
	hangWatch := map[string]framework.ScriptAnswer{path + "?watch": hang}
	for _, c := range []struct {
		script map[string]framework.ScriptAnswer
		asked  int64 // requests of path sent when the one that hangs is
		in     string
		args   []string
	}{
		{hangAll, 1, "in the list", []string{"streaming", "cm"}},
		{hangWatch, 2, "in the watch", []string{"streaming", "cm"}},
		{hangAll, 1, "in the list", []string{"list", "cm"}},
		{hangAll, 1, "in the list", []string{"list", "cm", "--rv-only"}},
		{hangAll, 1, "in the list", []string{"probe", "cm"}},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			for _, out := range [][]string{nil, {"-o", "json"}} {
				args := append(append([]string{}, c.args...), out...)
				t.Run(strings.Join(args, " ")+"/"+c.in+"/"+sig.String(), func(t *testing.T) {
					s, kc := framework.ServeScript(t, c.script)
					p := framework.StartPlugin(t, kc, args...)
					for deadline := time.Now().Add(time.Minute); s.Asked(path) < c.asked; time.Sleep(50 * time.Millisecond) {
						if time.Now().After(deadline) {
							t.Fatalf("%d request(s) of %s in a minute, want %d; stderr:\n%s", s.Asked(path), path, c.asked, p.Stderr())
						}
					}
					time.Sleep(200 * time.Millisecond) // the request is in flight
					if code := p.Stop(sig, 30*time.Second); code != 130 || p.Stdout() != "" || p.Stderr() != "interrupted\n" {
						t.Errorf("exit %d, stdout %q, stderr %q: want 130, no row, only \"interrupted\"", code, p.Stdout(), p.Stderr())
					}
				})
			}
		}
	}
}
