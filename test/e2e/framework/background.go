package framework

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BackgroundPlugin is "kubectl watchrv" running in the background, for tests
// that change the cluster (or stop its servers) while the plugin watches.
// It runs as Run runs the plugin: color off, no default kubeconfig, a
// fresh HOME. It is killed when the test ends if still running.
type BackgroundPlugin struct {
	t    testing.TB
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	errb bytes.Buffer
	done chan struct{}
}

// lockedWriter lets the test read a buffer while the process writes it.
type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// StartPlugin starts the plugin with args and --kubeconfig kubeconfig.
func StartPlugin(t testing.TB, kubeconfig string, args ...string) *BackgroundPlugin {
	t.Helper()
	bin, err := PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	p := &BackgroundPlugin{t: t, done: make(chan struct{})}
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

// Stdout is what the plugin printed so far.
func (p *BackgroundPlugin) Stdout() string { p.mu.Lock(); defer p.mu.Unlock(); return p.out.String() }

// Stderr is what the plugin wrote to stderr so far.
func (p *BackgroundPlugin) Stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.errb.String() }

// WaitFor waits until stdout contains s; the test fails if the plugin exits
// first or timeout passes.
func (p *BackgroundPlugin) WaitFor(s string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.Stdout(), s) {
		select {
		case <-p.done:
			p.t.Fatalf("the plugin exited before printing %q; stdout:\n%s\nstderr:\n%s", s, p.Stdout(), p.Stderr())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the plugin did not print %q within %s; stdout:\n%s\nstderr:\n%s", s, timeout, p.Stdout(), p.Stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Wait waits for the plugin to exit by itself and returns its exit code;
// the test fails if it does not within timeout or panicked.
func (p *BackgroundPlugin) Wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("the plugin did not exit within %s; stderr:\n%s", timeout, p.Stderr())
	}
	if s := p.Stderr(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		p.t.Fatalf("the plugin panicked:\n%s", s)
	}
	return p.cmd.ProcessState.ExitCode()
}

// Interrupt sends Ctrl-C (SIGINT) and returns the exit code; the test fails
// if the plugin does not exit within timeout or panicked.
func (p *BackgroundPlugin) Interrupt(timeout time.Duration) int {
	p.t.Helper()
	return p.Stop(syscall.SIGINT, timeout)
}

// Stop sends sig (SIGINT, SIGTERM, ...) and returns the exit code; the
// test fails if the plugin does not exit within timeout or panicked.
func (p *BackgroundPlugin) Stop(sig syscall.Signal, timeout time.Duration) int {
	p.t.Helper()
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("the plugin did not exit within %s of %v; stderr:\n%s", timeout, sig, p.Stderr())
	}
	if s := p.Stderr(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		p.t.Fatalf("the plugin panicked:\n%s", s)
	}
	return p.cmd.ProcessState.ExitCode()
}
