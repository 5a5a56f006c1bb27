//go:build e2e

package top

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopLiveView: on a terminal (a pseudo-terminal of script(1)) top
// refreshes every --interval: it clears the screen before each view,
// counts the refreshes, shows each row's history of the --sort column as
// a sparkline, and Ctrl-C ends it with exit 130.
func TestTopLiveView(t *testing.T) {
	ctx := context.Background()
	run, err := framework.StartLoad(ctx, shared, 0, "top-live", framework.Load{Informers: 1, RawWatches: 2, ListsPerSecond: 2, Objects: 10, Matching: 2, WritesPerSecond: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	bin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	line := bin + " --kubeconfig " + shared.Kubeconfig + " top --interval 1s --sort events widgets.example.com configmaps"
	cmd := exec.Command("script", "-qefc", line, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm", "NO_COLOR=1", "COLUMNS=200", "HOME="+t.TempDir(), "KUBECONFIG=/nonexistent-watchrv-e2e")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out framework.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Three views (each refresh is --interval after the last; on a loaded
	// machine the first takes longer), then Ctrl-C.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), "refresh 3, every 1s") && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	_, _ = stdin.Write([]byte{3}) // Ctrl-C on the terminal
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("top did not end within 20s of Ctrl-C:\n%s", out.String())
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	text := out.String()
	views := strings.Count(text, "\x1b[H\x1b[2J")
	if code != 130 || views < 3 || !strings.Contains(text, "refresh 3, every 1s, Ctrl-C to stop") || !strings.Contains(text, "HISTORY (events)") || !strings.ContainsAny(text, "▁▂▃▄▅▆▇█") || !strings.Contains(text, "interrupted") {
		t.Fatalf("exit %d, %d views:\n%s", code, views, text)
	}
	last := text[strings.LastIndex(text, "\x1b[H\x1b[2J")+len("\x1b[H\x1b[2J"):]
	t.Logf("the last view:\n%s", strings.ReplaceAll(last, "\r", ""))
}
