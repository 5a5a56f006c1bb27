//go:build e2e

package informerlog

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// bgPlugin is "kubectl watchrv" running beside the informer.
type bgPlugin struct {
	t    *testing.T
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	errb bytes.Buffer
	done chan struct{}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func startPlugin(t *testing.T, kubeconfig string, args ...string) *bgPlugin {
	t.Helper()
	bin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	p := &bgPlugin{t: t, done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	p.cmd.Env = append(os.Environ(), "NO_COLOR=1", "KUBECONFIG=/nonexistent-watchrv-e2e", "HOME="+t.TempDir())
	p.cmd.Stdout = lockedWriter{&p.mu, &p.out}
	p.cmd.Stderr = lockedWriter{&p.mu, &p.errb}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *bgPlugin) stdout() string { p.mu.Lock(); defer p.mu.Unlock(); return p.out.String() }
func (p *bgPlugin) stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.errb.String() }

// waitFor waits until stdout contains s.
func (p *bgPlugin) waitFor(s string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.stdout(), s) {
		select {
		case <-p.done:
			p.t.Fatalf("the plugin exited before printing %q; stdout:\n%s\nstderr:\n%s", s, p.stdout(), p.stderr())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the plugin did not print %q within %s; stdout:\n%s\nstderr:\n%s", s, timeout, p.stdout(), p.stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// interrupt sends Ctrl-C and returns the exit code.
func (p *bgPlugin) interrupt(timeout time.Duration) int {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("the plugin did not exit within %s of Ctrl-C; stderr:\n%s", timeout, p.stderr())
	}
	if s := p.stderr(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		p.t.Fatalf("the plugin panicked:\n%s", s)
	}
	return p.cmd.ProcessState.ExitCode()
}
