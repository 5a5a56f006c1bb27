//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestServeStopsItsClusterWhenKilled runs the real `make serve` in a process
// group of its own, as a terminal runs a foreground job, kills it the ways a
// user does, and checks that the etcd and kube-apiserver of that run (found
// by their data directory, never by name: other tests run servers too) and
// the demo itself are gone, and the cluster's directory removed.
func TestServeStopsItsClusterWhenKilled(t *testing.T) {
	// One build first, so that the parallel runs do not all link at once;
	// their own `make serve` then finds the binaries up to date.
	bins := t.TempDir()
	plugin, demo := filepath.Join(bins, "kubectl-watchrv"), filepath.Join(bins, "watchrv-demo")
	if out, err := exec.Command("make", "-s", "-C", framework.RepoRoot(), "build", "demo-bin", "BIN="+plugin, "DEMO_BIN="+demo).CombinedOutput(); err != nil {
		t.Fatalf("make build demo-bin: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		kill func(makePID int) error
		// brokenPipe: make's output goes to a pipe whose reader is gone
		// before the kill, as with `make serve 2>&1 | tee log` and Ctrl-C
		// (tee dies with the group): the demo's next write meets EPIPE.
		brokenPipe bool
	}{
		{"ctrl-c with the output piped to a reader that died", func(pid int) error { return syscall.Kill(-pid, syscall.SIGINT) }, true},
		// Ctrl-C: the terminal sends SIGINT to the whole foreground group.
		{"ctrl-c to the group", func(pid int) error { return syscall.Kill(-pid, syscall.SIGINT) }, false},
		// `kill <pid of make>`: make passes SIGTERM on to its children.
		{"SIGTERM to make", func(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }, false},
		// `kill -9 <pid of make>`: make passes nothing on; the demo learns
		// of it through its parent-death signal.
		{"SIGKILL to make", func(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServe(t, plugin, demo, tc.brokenPipe)
			start := time.Now()
			if err := tc.kill(s.make.Process.Pid); err != nil {
				t.Fatal(err)
			}
			s.waitMake(t)
			for _, p := range s.procs {
				if !p.goneWithin(30 * time.Second) {
					t.Errorf("%s (pid %d) still runs %s after the kill", p.name, p.pid, time.Since(start).Round(time.Millisecond))
				}
			}
			t.Logf("etcd, kube-apiserver and the demo gone %s after the kill", time.Since(start).Round(time.Millisecond))
			for _, dir := range []string{s.dir, s.informerDir} {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("the directory %s is left behind (%v)", dir, err)
				}
			}
			if t.Failed() {
				t.Logf("make serve printed:\n%s", s.out.String())
			}
		})
	}
}

// serve is one `make serve` that printed its KUBECONFIG.
type serve struct {
	make *exec.Cmd
	out  *framework.SyncBuffer
	dir  string // the cluster's directory
	// informerDir holds the informer binary the demo built.
	informerDir string
	procs       []*proc // the demo, etcd and kube-apiserver of this run
	ended       chan struct{}
}

func startServe(t *testing.T, plugin, demo string, brokenPipe bool) *serve {
	t.Helper()
	args := []string{"-s", "-C", framework.RepoRoot(), "serve", "BIN=" + plugin, "DEMO_BIN=" + demo}
	s := &serve{make: exec.Command("make", args...), out: &framework.SyncBuffer{}, ended: make(chan struct{})}
	// As a user runs it: without the prebuilt binaries make e2e names for
	// the tests' own processes (the demo builds and removes its own).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WATCHRV_PLUGIN_BIN=") && !strings.HasPrefix(kv, "WATCHRV_INFORMER_BIN=") {
			s.make.Env = append(s.make.Env, kv)
		}
	}
	// A process group led by make, like a terminal's foreground job.
	s.make.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout io.ReadCloser
	if brokenPipe {
		// stdout and stderr into one pipe (2>&1 | tee), read here until
		// the demo says it serves, then closed: no reader is left.
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		s.make.Stdout, s.make.Stderr, stdout = w, w, r
		defer w.Close()
	} else {
		s.make.Stderr = s.out
		p, err := s.make.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout = p
	}
	if err := s.make.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Whatever failed, kill what this run started (by pid, never by name).
		for _, p := range s.procs {
			if !p.gone() {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
		_ = syscall.Kill(-s.make.Process.Pid, syscall.SIGKILL)
		s.waitMake(t)
	})
	kubeconfig := make(chan string, 1)
	go func() {
		exportLine := regexp.MustCompile(`^\s*export KUBECONFIG=(\S+)$`)
		sc := bufio.NewScanner(stdout)
		path := ""
		for sc.Scan() {
			s.out.WriteString(sc.Text() + "\n")
			if m := exportLine.FindStringSubmatch(sc.Text()); m != nil {
				path = m[1]
			}
			if path != "" && strings.HasPrefix(sc.Text(), "Press Ctrl-C to stop") {
				kubeconfig <- path
				if brokenPipe {
					stdout.Close() // the reader dies: every later write is EPIPE
					break
				}
			}
		}
		_ = s.make.Wait()
		close(s.ended)
	}()
	var path string
	select {
	case path = <-kubeconfig:
	case <-s.ended:
		t.Fatalf("make serve ended before serving:\n%s", s.out.String())
	case <-time.After(5 * time.Minute):
		t.Fatalf("make serve did not print a KUBECONFIG within 5 minutes:\n%s", s.out.String())
	}
	s.dir = filepath.Dir(path)
	s.procs = []*proc{
		findProc(t, "the demo", demo, func(argv []string, ppid int) bool { return ppid == s.make.Process.Pid }),
		findProc(t, "etcd", "etcd", holds(s.dir)),
		findProc(t, "kube-apiserver", "kube-apiserver", holds(s.dir)),
	}
	informer := findProc(t, "the informer", "informer", holds(s.dir))
	s.informerDir = filepath.Dir(strings.SplitN(informer.cmdline, "\x00", 2)[0])
	if !strings.HasPrefix(filepath.Base(s.informerDir), "watchrv-informer-") {
		t.Fatalf("the informer runs from %s, not a directory the demo built", s.informerDir)
	}
	if !strings.Contains(s.out.String(), fmt.Sprintf("Press Ctrl-C to stop (or kill %d)", s.procs[0].pid)) {
		t.Errorf("make serve does not say how to stop it:\n%s", s.out.String())
	}
	// The printed line works: the plugin reaches the server through it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, plugin, "version")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+path)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Server Version: v1.37.2") {
		t.Errorf("kubectl-watchrv version with the printed KUBECONFIG: %v\n%s", err, out)
	}
	// The banner's clients command works as printed: the audit log it
	// names is this server's, which the demo's informer watches (fresh
	// user try 44 F7: no path was printed).
	if m := regexp.MustCompile(`(?m)^\s*kubectl watchrv (clients -f \S+)$`).FindStringSubmatch(s.out.String()); m == nil {
		t.Errorf("the banner names no audit log for clients:\n%s", s.out.String())
	} else {
		if out, err := pasteFromBanner(ctx, s.out.String(), m[0]); err != nil || !strings.Contains(out, "watchrv-e2e-informer") {
			t.Errorf("the banner's %q: %v\n%s", m[1], err, out)
		}
	}
	// The history names every write's RV, the deletion's too (issue 16
	// item 29: "delete b RV -"), in the order they were made.
	prev := int64(0)
	for _, what := range []string{"modify a", "delete b", "create c"} {
		m := regexp.MustCompile(`(?m)^\s*` + what + `\s+RV (\d+)$`).FindStringSubmatch(s.out.String())
		if m == nil {
			t.Errorf("the history prints no RV for %q:\n%s", what, s.out.String())
			break
		}
		rv, _ := strconv.ParseInt(m[1], 10, 64)
		if rv <= prev {
			t.Errorf("%s at RV %d, not after the write before it (RV %d)", what, rv, prev)
		}
		prev = rv
	}
	// The printed per-server command works on this cluster (issue 16 item
	// 22: the playbook's --servers alone finds no server here).
	m := regexp.MustCompile(`(?m)^\s*kubectl watchrv (probe configmaps .*--endpoints \S+)$`).FindStringSubmatch(s.out.String())
	if m == nil {
		t.Errorf("make serve prints no per-server command:\n%s", s.out.String())
	} else {
		if out, err := pasteFromBanner(ctx, s.out.String(), m[0]); err != nil || !strings.Contains(out, "Answered:") {
			t.Errorf("the printed %q: %v\n%s", m[0], err, out)
		}
	}
	return s
}

// pasteFromBanner runs line as a user who pasted the banner's export
// lines and then line into a new shell does: through bash, in an
// environment with no KUBECONFIG and a PATH without the plugin (fresh
// user try 48 F1: the banner's commands said "unknown command" there). A
// kubectl missing here is a kubectl shim that runs plugins only, found on
// the PATH after the banner's.
func pasteFromBanner(ctx context.Context, banner, line string) (string, error) {
	var script []string
	for _, l := range strings.Split(banner, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "export ") {
			script = append(script, strings.TrimSpace(l))
		}
	}
	script = append(script, strings.TrimSpace(line))
	var keep []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "KUBECONFIG=") && !strings.HasPrefix(e, "PATH=") {
			keep = append(keep, e)
		}
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	if _, err := exec.LookPath("kubectl"); err != nil {
		shim, err := os.MkdirTemp("", "watchrv-kubectl-shim-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(shim)
		body := "#!/bin/sh\n[ \"$1\" = watchrv ] || exit 1\nshift\nexec kubectl-watchrv \"$@\"\n"
		if err := os.WriteFile(filepath.Join(shim, "kubectl"), []byte(body), 0o755); err != nil {
			return "", err
		}
		path += ":" + shim
	} else if dir, err := exec.LookPath("kubectl"); err == nil {
		path = filepath.Dir(dir) + ":" + path
	}
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", strings.Join(script, "\n"))
	cmd.Env = append(keep, "PATH="+path, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitMake waits until make has exited (it waits for the demo, unless it
// was killed with SIGKILL).
func (s *serve) waitMake(t *testing.T) {
	select {
	case <-s.ended:
	case <-time.After(time.Minute):
		t.Errorf("make serve has not exited a minute after the kill")
	}
}

// proc is one process of a run, known by pid and command line so that a
// reused pid is not mistaken for it.
type proc struct {
	name    string
	pid     int
	cmdline string
}

// findProc finds the one process whose argv[0] ends in exe and that is
// ours: the demo is make's child (make execs it), the servers hold the
// cluster's directory in their arguments.
func findProc(t *testing.T, name, exe string, ours func(argv []string, ppid int) bool) *proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []*proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if (argv[0] == exe || strings.HasSuffix(argv[0], "/"+exe)) && ours(argv, parentPID(pid)) {
			found = append(found, &proc{name: name, pid: pid, cmdline: string(b)})
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s of this run, found %d", name, len(found))
	}
	return found[0]
}

func holds(dir string) func([]string, int) bool {
	return func(argv []string, _ int) bool {
		for _, a := range argv {
			if strings.Contains(a, dir+"/") {
				return true
			}
		}
		return false
	}
}

// stat returns the fields of /proc/<pid>/stat after the command name
// (which is in parentheses and may hold spaces): state, ppid, ...
func stat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

func parentPID(pid int) int {
	f := stat(pid)
	if len(f) < 2 {
		return -1
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// gone: no such pid, another command line under it, or a zombie (dead,
// waiting for init to reap it).
func (p *proc) gone() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
	if err != nil || string(b) != p.cmdline {
		return true
	}
	f := stat(p.pid)
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

func (p *proc) goneWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !p.gone() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}
