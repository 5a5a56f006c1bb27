//go:build e2e

package bounds

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// After a 401, the credential plugin is run once more and the request goes
// out again with what it gave, in every command, whether discovery was
// read before (the 401 answers a discovery document) or was cached (it
// answers the command's own request): as kubectl does, the plugin runs
// twice in all and the new token is the one every later request carries.
// When the new credentials are rejected too, or the plugin gives the same
// ones, the 401 is the answer (exit 6) and the plugin is not run a third
// time (adversary try 20 #1: 4 runs, 3 re-logins, the new token never
// sent, exit 6, where kubectl ran it once more and went on).
func TestCredentialPluginIsRunOnceMoreAfterA401(t *testing.T) {
	cases := []struct {
		name     string
		later    string   // the token the plugin gives after its first run (T1)
		rejected []string // the tokens the server rejects
		code     int      // -1: any but a credentials' failure
		words    string   // in the error line
	}{
		{"new token accepted", "T2", []string{"T1"}, -1, ""},
		{"new token rejected too", "T3", []string{"T1", "T3"}, 6, "the credential plugin was run again after the first 401, and the server rejected the new credentials too"},
		{"same token again", "T1", []string{"T1"}, 6, "the credential plugin was run again after the 401, and gave no new credentials"},
	}
	for _, c := range cases {
		for _, cached := range []bool{false, true} {
			for _, args := range credentialCommands {
				name := c.name + "/discovery read/" + strings.Join(args, " ")
				if cached {
					name = c.name + "/discovery cached/" + strings.Join(args, " ")
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					srv := framework.StartAuthScriptServer(c.rejected...)
					t.Cleanup(srv.Close)
					base, err := srv.Kubeconfig(t.TempDir())
					if err != nil {
						t.Fatal(err)
					}
					home := t.TempDir()
					if cached {
						// A run with accepted credentials caches discovery.
						warm := execKubeconfig(t, base, pluginScript(t, t.TempDir(), cred("WARM")))
						if r := framework.RunInHome(t, home, warm, nil, time.Minute, "list", "cm"); r.Code != 0 {
							t.Fatalf("the warm-up run: exit %d: %s", r.Code, r.Stderr)
						}
					}
					dir := t.TempDir()
					// The first run gives T1; every later one takes a
					// second (a re-login) and gives the later token.
					body := `echo run >> DIR/runs; if [ "$(wc -l < DIR/runs)" -gt 1 ]; then sleep 1; ` + cred(c.later) + `; else ` + cred("T1") + `; fi`
					kc := execKubeconfig(t, base, pluginScript(t, dir, body))
					skip := len(srv.Tokens())
					r := framework.RunInHome(t, home, kc, nil, time.Minute, append(args, "--request-timeout", "20s")...)
					b, _ := os.ReadFile(filepath.Join(dir, "runs"))
					runs := strings.Count(string(b), "run")
					tokens := srv.Tokens()[skip:]
					t.Logf("exit %d in %s, plugin run %d time(s), tokens %v: %.400s", r.Code, r.Duration.Round(time.Millisecond), runs, tokens, strings.TrimSpace(r.Stderr))
					if runs != 2 {
						t.Fatalf("the plugin ran %d time(s), want 2 (its first run and one after the 401)", runs)
					}
					if !slices.Contains(tokens, "T1") {
						t.Fatalf("no request with the first token: %v", tokens)
					}
					switch c.code {
					case -1:
						if r.Code == 2 || r.Code == 6 || strings.Contains(r.Stderr, "401") || strings.Contains(r.Stderr, "credential") {
							t.Fatalf("exit %d: the new token was not used: %s", r.Code, r.Stderr)
						}
						// Every request after the first with the new
						// token carries it.
						first := slices.Index(tokens, c.later)
						if first < 0 || slices.Contains(tokens[first:], "T1") {
							t.Fatalf("the new token was not sent, or the old one after it: %v", tokens)
						}
					default:
						if r.Code != c.code || !strings.Contains(r.Stderr, c.words) {
							t.Fatalf("exit %d, want %d and %q: %s", r.Code, c.code, c.words, r.Stderr)
						}
						if c.later != "T1" && !slices.Contains(tokens, c.later) {
							t.Fatalf("the new token was never sent: %v", tokens)
						}
					}
				})
			}
		}
	}
}

// Adversary try 48 F4: a plugin that removed the relay's status file
// (named in the relay's argv) closed the run's gate for it: its re-run
// after the 401 was refused by the relay, and the run said the plugin
// "was run again after the 401, and gave no new credentials". The relay's
// in-band refusal (with the run's nonce) is read: a plugin run once is
// never said run again, in every command.
func TestARefusedRerunIsNeverSaidRun(t *testing.T) {
	for _, args := range credentialCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			srv := framework.StartAuthScriptServer("T1")
			t.Cleanup(srv.Close)
			base, err := srv.Kubeconfig(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			body := `echo run >> DIR/runs
status=$(tr '\0' '\n' < /proc/$PPID/cmdline | grep kubectl-watchrv-credential-plugin- | head -1)
[ -n "$status" ] && rm -f "$status" && echo found > DIR/found
` + cred("T1")
			kc := execKubeconfig(t, base, pluginScript(t, dir, body))
			r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, time.Minute, append(args, "--request-timeout", "10s")...)
			b, _ := os.ReadFile(filepath.Join(dir, "runs"))
			runs := strings.Count(string(b), "run")
			if _, err := os.Stat(filepath.Join(dir, "found")); err != nil {
				t.Fatalf("the plugin found no status file to remove (exit %d): the attack did not run:\n%s", r.Code, r.Stderr)
			}
			if runs != 1 {
				t.Fatalf("the plugin ran %d times, want once (the relay refuses its re-run): %s", runs, r.Stderr)
			}
			if r.Code != 6 || strings.Contains(r.Stderr, "was run again") || !strings.Contains(r.Stderr, "was not run again") {
				t.Errorf("exit %d, want 6 and the plugin said not run again:\n%s", r.Code, r.Stderr)
			}
		})
	}
}
