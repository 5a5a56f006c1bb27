//go:build e2e

package bounds

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestDevNullIsNoTerminal (fresh user try 29 F4): /dev/null is a
// character device and no terminal. Every decision of terminal or not
// (top's live view, stdin left unpiped, color, progress) asks the one
// check (render.IsTerminal, isatty), never the file mode: "top > /dev/null"
// refreshed forever, and explain-error / clients < /dev/null were told
// nothing was piped in.
func TestDevNullIsNoTerminal(t *testing.T) {
	metrics := framework.ScriptAnswer{Code: 200, Type: "text/plain; version=0.0.4", Body: recordedMetrics(t)}
	s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": metrics})
	bin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		not  string // what a terminal's run says (the stream taken for one)
	}{
		{[]string{"top", "--interval", "1s"}, ""},
		{[]string{"top", "--interval", "1s", "--endpoints", s.Host()}, ""},
		{[]string{"explain-error"}, "no error message: pass it as an argument"},
		{[]string{"clients"}, "no audit log: give -f FILE"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer null.Close()
			errFile, err := os.Create(t.TempDir() + "/stderr")
			if err != nil {
				t.Fatal(err)
			}
			defer errFile.Close()
			cmd := exec.Command(bin, append([]string{"--kubeconfig", kc}, c.args...)...)
			cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent-watchrv-e2e", "HOME="+t.TempDir(), "TERM=xterm")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, errFile
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
			_ = cmd.Wait()
			ended := timer.Stop()
			stderr, _ := os.ReadFile(errFile.Name())
			if !ended {
				t.Fatalf("did not end in 30s with stdin and stdout /dev/null (taken for a terminal); stderr:\n%s", stderr)
			}
			if c.not != "" && strings.Contains(string(stderr), c.not) {
				t.Fatalf("stdin /dev/null taken for a terminal: %s", stderr)
			}
		})
	}
}
