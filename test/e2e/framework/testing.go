package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// StartT starts a cluster for one test and stops it when the test ends,
// whether it passed or not. A cluster that cannot start fails the test
// loudly: an e2e test is never skipped.
func StartT(t testing.TB, o APIServerOptions) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{APIServer: o, Logf: t.Logf})
	if err != nil {
		t.Fatalf("cannot start the real etcd + kube-apiserver: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// PluginVersion is the version the e2e build of the plugin reports.
const PluginVersion = "v0.0.0-e2e"

var pluginBinary = &goBinary{envVar: "WATCHRV_PLUGIN_BIN", name: "kubectl-watchrv", pkg: "./cmd/kubectl-watchrv",
	flags: []string{"-ldflags", "-X main.version=" + PluginVersion}}

// PluginBinary builds the plugin once per test process and returns its
// path; WATCHRV_PLUGIN_BIN overrides it.
func PluginBinary() (string, error) { return pluginBinary.Path() }

// Result is one run of the plugin.
type Result struct {
	Stdout, Stderr string
	Code           int
	Duration       time.Duration
	// MaxRSS is the peak resident memory, in bytes, of the plugin's
	// process and of what it waited for (prlimit runs it in its own
	// place).
	MaxRSS int64
}

// Run runs the plugin with args and the given kubeconfig (none when empty),
// with color off, and a hard timeout.
func Run(t testing.TB, kubeconfig string, timeout time.Duration, args ...string) Result {
	t.Helper()
	return RunInput(t, kubeconfig, nil, timeout, args...)
}

// RunInput is Run with bytes on the plugin's standard input (nil: empty).
func RunInput(t testing.TB, kubeconfig string, stdin []byte, timeout time.Duration, args ...string) Result {
	t.Helper()
	home := sharedHome(kubeconfig)
	if home == "" {
		home = t.TempDir()
	}
	return RunInHome(t, home, kubeconfig, stdin, timeout, args...)
}

// sharedHomes maps a cluster's own kubeconfigs (admin, nobody) to one HOME
// per kubeconfig in the cluster's directory: runs on them share kubectl's
// discovery cache, as a user's runs do, instead of discovering the whole
// API anew on every run (a third of a short run's CPU, and the server's).
// Any other kubeconfig (a proxy's, a fault server's, a test's own) gets a
// new HOME per run: the tests of discovery failures run on those. A test
// that needs a cold cache on the cluster itself uses RunInHome.
var sharedHomes sync.Map

func shareDiscoveryCache(dir string, kubeconfigs ...string) {
	for _, k := range kubeconfigs {
		sharedHomes.Store(k, filepath.Join(dir, "home-"+strings.TrimSuffix(filepath.Base(k), ".kubeconfig")))
	}
}

func sharedHome(kubeconfig string) string {
	h, ok := sharedHomes.Load(kubeconfig)
	if !ok {
		return ""
	}
	if err := os.MkdirAll(h.(string), 0o700); err != nil {
		return ""
	}
	return h.(string)
}

// RunInHome is RunInput with HOME home: runs sharing one HOME share
// kubectl's discovery cache (~/.kube/cache), so the second and later make
// no discovery requests, as a user's do.
func RunInHome(t testing.TB, home, kubeconfig string, stdin []byte, timeout time.Duration, args ...string) Result {
	t.Helper()
	return runPlugin(t, nil, home, kubeconfig, stdin, timeout, args...)
}

// RunUnderMemoryLimit is Run with the plugin's address space limited to
// limit bytes (prlimit --as): a read without a bound fails there as
// "fatal error: out of memory" (a Go stack, which Run refuses) instead of
// taking the machine.
func RunUnderMemoryLimit(t testing.TB, limit int64, kubeconfig string, timeout time.Duration, args ...string) Result {
	t.Helper()
	return runPlugin(t, []string{"prlimit", fmt.Sprintf("--as=%d", limit), "--"}, t.TempDir(), kubeconfig, nil, timeout, args...)
}

// pluginArgv is the command line of one run of the plugin: prefix (a
// prlimit), the plugin, the kubeconfig (none when empty), args.
func pluginArgv(t testing.TB, prefix []string, kubeconfig string, args []string) (bin string, argv, withKubeconfig []string) {
	t.Helper()
	bin, err := PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	if kubeconfig != "" {
		args = append([]string{"--kubeconfig", kubeconfig}, args...)
	}
	return bin, append(append(append([]string{}, prefix...), bin), args...), args
}

func runPlugin(t testing.TB, prefix []string, home, kubeconfig string, stdin []byte, timeout time.Duration, args ...string) Result {
	t.Helper()
	bin, argv, args := pluginArgv(t, prefix, kubeconfig, args)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KUBECONFIG=/nonexistent-watchrv-e2e", "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String(), Duration: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		r.MaxRSS = maxRSS(ps)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s %s: %v", bin, strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("kubectl-watchrv %s did not finish within %s; stderr: %s", strings.Join(args, " "), timeout, r.Stderr)
	}
	noPanic(t, args, r)
	return r
}

// noPanic fails the test when the run printed a Go stack.
func noPanic(t testing.TB, args []string, r Result) {
	t.Helper()
	if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic:") {
		t.Fatalf("kubectl-watchrv %s panicked:\n%s", strings.Join(args, " "), r.Stderr)
	}
}

// RunToExit runs the plugin as RunInHome does (limit > 0: under
// RunUnderMemoryLimit's address-space limit), with its output in files,
// and returns at the exit of the plugin's own process, with its peak
// memory: a process the plugin started and left running (a credential
// plugin's child) may hold its stdout or stderr open, on which Run's
// buffers would wait; a terminal does not.
func RunToExit(t testing.TB, limit int64, home, kubeconfig string, timeout time.Duration, args ...string) Result {
	t.Helper()
	return RunToExitEnv(t, limit, home, kubeconfig, nil, timeout, args...)
}

// RunToExitEnv is RunToExit with env ("NAME=value") over the test's
// environment (a TMPDIR that does not exist).
func RunToExitEnv(t testing.TB, limit int64, home, kubeconfig string, env []string, timeout time.Duration, args ...string) Result {
	t.Helper()
	var prefix []string
	if limit > 0 {
		// prlimit execs the plugin: the process waited for is the plugin's.
		prefix = []string{"prlimit", fmt.Sprintf("--as=%d", limit), "--"}
	}
	bin, argv, args := pluginArgv(t, prefix, kubeconfig, args)
	var err error
	dir := t.TempDir()
	files := [2]*os.File{}
	for i, name := range []string{"stdout", "stderr"} {
		if files[i], err = os.Create(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		defer files[i].Close()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "KUBECONFIG=/nonexistent-watchrv-e2e", "HOME="+home), env...)
	cmd.Stdout, cmd.Stderr = files[0], files[1]
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(timeout, func() { _ = cmd.Process.Kill() })
	err = cmd.Wait()
	r := Result{Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s %s: %v", bin, strings.Join(args, " "), err)
	}
	out, _ := os.ReadFile(files[0].Name())
	errb, _ := os.ReadFile(files[1].Name())
	r.Stdout, r.Stderr = string(out), string(errb)
	if !timer.Stop() {
		t.Fatalf("kubectl-watchrv %s did not finish within %s; stderr: %s", strings.Join(args, " "), timeout, r.Stderr)
	}
	r.MaxRSS = maxRSS(cmd.ProcessState)
	noPanic(t, args, r)
	return r
}

// maxRSS is a waited process's peak resident memory in bytes (Linux
// counts ru_maxrss in KiB), 0 where it is not known.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
