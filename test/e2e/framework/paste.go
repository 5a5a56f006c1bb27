package framework

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RunPasted runs a command line the plugin suggested as a user who pastes
// it does: the whole line through a shell (bash -c, which also reads the
// $'...' words pkg/suggest writes for control characters), with the plugin
// on the PATH as kubectl-watchrv, where kubectl finds it ("kubectl watchrv
// ..."). Where kubectl is not installed, a two-line kubectl script in
// front of the PATH runs the plugin as kubectl would. env adds to the
// environment (KUBECONFIG defaults to a file that does not exist, so that
// nothing but the line chooses the cluster; NO_COLOR, a fresh HOME); extra
// words go after the line (--timeout, -o json: what ends the pasted watch).
func RunPasted(t testing.TB, line string, env []string, timeout time.Duration, extra ...string) Result {
	t.Helper()
	bin, err := PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "kubectl-watchrv")); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		shim := "#!/bin/sh\n[ \"$1\" = watchrv ] || { echo \"kubectl shim: only plugins\" >&2; exit 1; }\nshift\nexec kubectl-watchrv \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := line
	for _, w := range extra {
		script += " " + w
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1", "HOME="+t.TempDir(), "KUBECONFIG=/nonexistent-watchrv-e2e")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running the pasted line %s: %v", script, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the pasted line %s did not finish within %s; stderr: %s", script, timeout, r.Stderr)
	}
	if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic:") {
		t.Fatalf("the pasted line %s panicked:\n%s", script, r.Stderr)
	}
	return r
}

// RunEnv runs the plugin with args and env added to the environment (a
// fresh HOME, NO_COLOR, KUBECONFIG a file that does not exist unless env
// sets it): for the runs whose context comes from the environment.
func RunEnv(t testing.TB, env []string, timeout time.Duration, args ...string) Result {
	t.Helper()
	bin, err := PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KUBECONFIG=/nonexistent-watchrv-e2e", "HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s %s: %v", bin, strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("kubectl-watchrv %s did not finish within %s", strings.Join(args, " "), timeout)
	}
	return r
}
