//go:build e2e

package docs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// demoEnv is a running `demo --serve`: the demo's own history on a real
// cluster, so the docs show what `make demo` and `make serve` show.
type demoEnv struct {
	plugin     string
	kubeconfig string
	// vars are the RVs the demo recorded while making history, by name:
	// create_a, create_b, modify_a, create_c, modify_c, before_restart.
	vars map[string]string
	cmd  *exec.Cmd
	done chan struct{}
	dir  string
}

var (
	recordedRV   = regexp.MustCompile(`^\s+(create|modify) (\w+)\s+RV (\d+)\s*$`)
	restartRV    = regexp.MustCompile(`restarting the API server at etcd revision (\d+)`)
	kubeconfigAt = regexp.MustCompile(`^\s*export KUBECONFIG=(\S+)\s*$`)
)

// startDemo builds the plugin (with the VERSION of the repository, as a
// release would print it) and the demo, starts `demo --serve`, and waits for
// the kubeconfig it prints once the history is made.
func startDemo() (*demoEnv, error) {
	root := framework.RepoRoot()
	dir, err := os.MkdirTemp("", "watchrv-docs-")
	if err != nil {
		return nil, err
	}
	e := &demoEnv{dir: dir, vars: map[string]string{}, done: make(chan struct{})}
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return nil, err
	}
	e.plugin = filepath.Join(dir, "kubectl-watchrv")
	demo := filepath.Join(dir, "demo")
	for _, b := range [][]string{
		{"build", "-o", e.plugin, "-ldflags", "-X main.version=" + strings.TrimSpace(string(version)), "./cmd/kubectl-watchrv"},
		{"build", "-o", demo, "./test/e2e/demo"},
	} {
		cmd := exec.Command("go", b...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go %s: %v: %s", strings.Join(b, " "), err, out)
		}
	}
	if _, err := framework.Binaries(); err != nil {
		return nil, err
	}
	e.cmd = exec.Command(demo, "--plugin", e.plugin, "--serve")
	e.cmd.Dir = root
	e.cmd.Stderr = os.Stderr
	// The demo stops its cluster on SIGINT; if this test process dies
	// instead, the kernel kills the demo, and the demo's servers with it.
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	out, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := e.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { e.cmd.Wait(); close(e.done) }()
	ready := make(chan error, 1)
	go e.readOutput(out, ready)
	select {
	case err := <-ready:
		if err != nil {
			e.stop()
			return nil, err
		}
	case <-time.After(15 * time.Minute):
		e.stop()
		return nil, fmt.Errorf("the demo printed no kubeconfig within 15 minutes")
	}
	if err := e.settle(); err != nil {
		e.stop()
		return nil, err
	}
	return e, nil
}

// readOutput records the demo's RVs, reports the kubeconfig once printed,
// and keeps draining the demo's output afterwards.
func (e *demoEnv) readOutput(r io.Reader, ready chan<- error) {
	sc := bufio.NewScanner(r)
	sent := false
	var tail []string
	for sc.Scan() {
		line := sc.Text()
		if !sent {
			tail = append(tail, line)
		}
		if m := recordedRV.FindStringSubmatch(line); m != nil {
			e.vars[m[1]+"_"+m[2]] = m[3]
		}
		if m := restartRV.FindStringSubmatch(line); m != nil {
			e.vars["before_restart"] = m[1]
		}
		if m := kubeconfigAt.FindStringSubmatch(line); m != nil && !sent {
			e.kubeconfig = m[1]
			sent = true
			ready <- nil
		}
	}
	if !sent {
		if len(tail) > 20 {
			tail = tail[len(tail)-20:]
		}
		ready <- fmt.Errorf("the demo ended before serving:\n%s", strings.Join(tail, "\n"))
	}
}

// stop interrupts the demo (which stops its servers) and waits for it.
func (e *demoEnv) stop() {
	if e.cmd != nil && e.cmd.Process != nil {
		e.cmd.Process.Signal(os.Interrupt)
		select {
		case <-e.done:
		case <-time.After(30 * time.Second):
			e.cmd.Process.Kill()
			<-e.done
		}
	}
	os.RemoveAll(e.dir)
}
