package framework

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// process is one server child process with its log file.
type process struct {
	name    string
	bin     string
	args    []string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
	exitErr error
}

func (p *process) start() error {
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Die with the test process, whatever happens to it. Own process group:
	// a Ctrl-C to the terminal reaches the test or the demo, which stops
	// the servers in order, not the servers themselves.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := startOnSpawnThread(cmd); err != nil {
		logf.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	p.cmd = cmd
	p.done = make(chan struct{})
	go func() {
		p.exitErr = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return nil
}

// The kernel sends a child's Pdeathsig when the *thread* that forked it
// exits, not when the process does. A Go program can lose a thread while it
// runs (a goroutine that ends while locked to its thread takes the thread
// with it), and that would SIGKILL etcd or a kube-apiserver in the middle of
// a run. So every child is forked from one goroutine locked for good to its
// own thread, which ends only with the process.
var (
	spawnOnce sync.Once
	spawns    chan func()
)

func startOnSpawnThread(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawns = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range spawns {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawns <- func() { errc <- cmd.Start() }
	return <-errc
}

func (p *process) running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM, then SIGKILL after grace.
func (p *process) stop(grace time.Duration) {
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // in case a test left it stopped
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// signal sends sig to the process (SIGSTOP/SIGCONT for the hang tests).
func (p *process) signal(sig syscall.Signal) error {
	if !p.running() {
		return fmt.Errorf("%s is not running", p.name)
	}
	return p.cmd.Process.Signal(sig)
}
