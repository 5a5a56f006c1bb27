//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// runAsPluginEnv makes the test binary run the plugin's own main code on
// its arguments: a real process, with real signals and real stdin.
const runAsPluginEnv = "WATCHRV_TEST_RUN_AS_PLUGIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsPluginEnv) == "1" {
		streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
		os.Exit(run(os.Args[1:], streams))
	}
	os.Exit(m.Run())
}

// plugin is the plugin process of one test.
type plugin struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
	done     chan struct{}
}

func startPlugin(t *testing.T, stdin *os.File, args ...string) *plugin {
	t.Helper()
	p := &plugin{done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), runAsPluginEnv+"=1", "NO_COLOR=1", "KUBECONFIG=/nonexistent-watchrv-test")
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = stdin, &p.out, &p.err
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

// stop sends sig and returns the exit code; the test fails if the plugin
// does not exit (it ignored the signal).
func (p *plugin) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the plugin ignored %v: still running 20 s later; stderr:\n%s", sig, p.err.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// pipeUnread is how many bytes written to the pipe w the reader has not
// read yet (FIONREAD on either end of a Linux pipe).
func pipeUnread(t *testing.T, w *os.File) int {
	t.Helper()
	var n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, w.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("FIONREAD: %v", e)
	}
	return int(n)
}

// feed writes s to w and waits until the plugin has read all of it; w
// stays open, as a terminal or a `tail -f |` does.
func feed(t *testing.T, p *plugin, w *os.File, s string) {
	t.Helper()
	if _, err := w.WriteString(s); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); pipeUnread(t, w) > 0; time.Sleep(10 * time.Millisecond) {
		select {
		case <-p.done:
			t.Fatalf("the plugin exited before reading its input: %s", p.err.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the plugin did not read its input")
		}
	}
}

// Ctrl-C or SIGTERM while explain-error reads a log from a stdin that
// stays open: it prints the summary of what it read and exits 130 (issue
// 16 item 6: it kept reading, only SIGKILL ended it).
func TestExplainErrorLogInterrupted(t *testing.T) {
	// SIGHUP (the terminal closed) and SIGQUIT (Ctrl-\) too: Go's
	// defaults killed the run without its summary, or dumped a Go stack.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			p := startPlugin(t, r, "explain-error", "-f", "-")
			r.Close()
			feed(t, p, w, testLog)
			if code := p.stop(t, sig); code != ExitInterrupted {
				t.Fatalf("exit %d, want 130; stdout:\n%s\nstderr:\n%s", code, p.out.String(), p.err.String())
			}
			out, errOut := p.out.String(), p.err.String()
			if !strings.Contains(out, "Scanned 4 lines") || !strings.Contains(out, "3 errors of 2 kinds") || !strings.Contains(out, "2 times, lines 2, 4") {
				t.Errorf("stdout lacks the summary of the 4 lines read:\n%s", out)
			}
			if !strings.HasSuffix(errOut, "interrupted\n") || !strings.Contains(errOut, "the summary covers the 4 lines read") {
				t.Errorf("stderr %q: want the note and 'interrupted' last", errOut)
			}
		})
	}
}

// The same with one message read from stdin (no -f): the text read so far
// is explained, then exit 130.
func TestExplainErrorMessageInterrupted(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := startPlugin(t, r, "explain-error", "-")
	r.Close()
	feed(t, p, w, "too old resource version: 214 (257)\n")
	if code := p.stop(t, syscall.SIGINT); code != ExitInterrupted {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, p.err.String())
	}
	if out := p.out.String(); !strings.HasPrefix(out, "Expired / WatchCacheWindow") || !strings.Contains(out, "requested 214 · oldest servable 257") {
		t.Errorf("stdout:\n%s", out)
	}
	if errOut := p.err.String(); errOut != "interrupted\n" {
		t.Errorf("stderr %q", errOut)
	}
	// Nothing read yet: nothing to explain, still 130.
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	p2 := startPlugin(t, r2, "explain-error", "-")
	r2.Close()
	waitBlocked(t, p2, "pipe_read", "anon_pipe_read")
	if code := p2.stop(t, syscall.SIGTERM); code != ExitInterrupted || p2.out.String() != "" || p2.err.String() != "interrupted\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 130, nothing, 'interrupted'", code, p2.out.String(), p2.err.String())
	}
}

// A FIFO: Ctrl-C while the open waits for a writer, and while the read
// waits for more lines.
func TestExplainErrorFIFOInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startPlugin(t, nil, "explain-error", "-f", fifo)
	waitBlocked(t, p, "wait_for_partner", "fifo_open")
	if code := p.stop(t, syscall.SIGINT); code != ExitInterrupted || p.err.String() != "interrupted\n" {
		t.Fatalf("interrupted in the FIFO's open: exit %d, stderr %q", code, p.err.String())
	}

	p = startPlugin(t, nil, "explain-error", "-f", fifo)
	var w *os.File
	for deadline := time.Now().Add(20 * time.Second); w == nil; time.Sleep(10 * time.Millisecond) {
		// A non-blocking open for writing succeeds once the reader has it open.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w = f
		} else if time.Now().After(deadline) {
			t.Fatalf("the plugin did not open the FIFO: %v", err)
		}
	}
	defer w.Close()
	feed(t, p, w, testLog)
	if code := p.stop(t, syscall.SIGTERM); code != ExitInterrupted || !strings.Contains(p.out.String(), "3 errors of 2 kinds") {
		t.Fatalf("exit %d, want 130 and the summary; stdout:\n%s\nstderr:\n%s", code, p.out.String(), p.err.String())
	}
}

// waitBlocked waits until a thread of the plugin sleeps in one of the
// kernel functions named (its wchan; the names vary with the kernel): it is
// blocked there, and its signal handler is installed (run installs it
// before any command starts).
func waitBlocked(t *testing.T, p *plugin, wchan ...string) {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "task")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		tasks, _ := os.ReadDir(dir)
		for _, task := range tasks {
			if b, err := os.ReadFile(filepath.Join(dir, task.Name(), "wchan")); err == nil && slices.Contains(wchan, string(b)) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin never blocked in %s", wchan)
		}
	}
}
