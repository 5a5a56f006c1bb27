package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

var informerBinary = &goBinary{envVar: "WATCHRV_INFORMER_BIN", name: "informer", pkg: "./test/e2e/informer"}

// InformerBinary builds test/e2e/informer (a real client-go SharedInformer
// on configmaps) once per process and returns its path;
// WATCHRV_INFORMER_BIN overrides it.
func InformerBinary() (string, error) { return informerBinary.Path() }

// Informer is one running informer program: its klog lines go to LogPath,
// its JSON-lines record to EventsPath.
type Informer struct {
	Name       string
	LogPath    string
	EventsPath string
	cmd        *exec.Cmd
	done       chan struct{}
	exitErr    error
}

// InformerRecord is one line of the informer's --events-out (see
// test/e2e/informer/record.go for which fields each type sets).
type InformerRecord struct {
	Time                 string `json:"time"`
	Type                 string `json:"type"`
	Key                  string `json:"key"`
	Namespace            string `json:"namespace"`
	Name                 string `json:"name"`
	UID                  string `json:"uid"`
	ResourceVersion      string `json:"resourceVersion"`
	OldUID               string `json:"oldUID"`
	OldResourceVersion   string `json:"oldResourceVersion"`
	InitialList          bool   `json:"initialList"`
	Tombstone            bool   `json:"tombstone"`
	Mode                 string `json:"mode"`
	WatchListClientGate  *bool  `json:"watchListClientGate"`
	Verb                 string `json:"verb"`
	ResourceVersionMatch string `json:"resourceVersionMatch"`
	SendInitialEvents    bool   `json:"sendInitialEvents"`
	Status               int    `json:"status"`
	Error                string `json:"error"`
}

// StartInformer runs the informer on the configmaps of namespace through
// kubeconfig, writing NAME.log and NAME.events.jsonl into dir. extra are more
// flags (e.g. "-v=4").
func StartInformer(kubeconfig, namespace, dir, name string, extra ...string) (*Informer, error) {
	bin, err := InformerBinary()
	if err != nil {
		return nil, err
	}
	in := &Informer{
		Name:       name,
		LogPath:    filepath.Join(dir, name+".log"),
		EventsPath: filepath.Join(dir, name+".events.jsonl"),
		done:       make(chan struct{}),
	}
	args := append([]string{"--kubeconfig", kubeconfig, "--namespace", namespace,
		"--events-out", in.EventsPath, "--log-file", in.LogPath, "--resync", "0"}, extra...)
	in.cmd = exec.Command(bin, args...)
	// Only the feature gates' environment, never the developer's kubeconfig.
	in.cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent-watchrv-e2e")
	stderr, err := os.Create(filepath.Join(dir, name+".stderr"))
	if err != nil {
		return nil, err
	}
	in.cmd.Stdout, in.cmd.Stderr = stderr, stderr
	in.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := in.cmd.Start(); err != nil {
		stderr.Close()
		return nil, err
	}
	go func() {
		in.exitErr = in.cmd.Wait()
		stderr.Close()
		close(in.done)
	}()
	return in, nil
}

// Pause freezes the informer (SIGSTOP): it reads nothing and sends nothing
// until Resume.
func (in *Informer) Pause() error { return in.signal(syscall.SIGSTOP, "freeze") }

// Resume continues a paused informer (SIGCONT).
func (in *Informer) Resume() error { return in.signal(syscall.SIGCONT, "thaw") }

// signal sends sig, or says that the informer had already exited, how,
// and where its output is (fresh user try 36 F1: "os: process already
// finished" ended make serve under load, naming no process: a frozen
// informer exits only when killed, the OOM killer's SIGKILL included).
func (in *Informer) signal(sig syscall.Signal, what string) error {
	select {
	case <-in.done:
		return fmt.Errorf("cannot %s the informer %s (pid %d): it had exited (%v); its stderr: %s, its log: %s", what, in.Name, in.cmd.Process.Pid, in.exitErr, filepath.Join(filepath.Dir(in.LogPath), in.Name+".stderr"), in.LogPath)
	default:
	}
	return in.cmd.Process.Signal(sig)
}

// Stop sends SIGTERM and waits up to grace for a clean exit; it returns the
// exit error (nil for exit 0), or an error if it had to be killed.
func (in *Informer) Stop(grace time.Duration) error {
	select {
	case <-in.done:
		return in.exitErr
	default:
	}
	_ = in.cmd.Process.Signal(syscall.SIGCONT)
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.done:
		return in.exitErr
	case <-time.After(grace):
		_ = in.cmd.Process.Kill()
		<-in.done
		return fmt.Errorf("informer %s did not exit within %s of SIGTERM", in.Name, grace)
	}
}

// Records reads every record written so far.
func (in *Informer) Records() ([]InformerRecord, error) {
	f, err := os.Open(in.EventsPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []InformerRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r InformerRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			// The last line may be half written while the informer runs.
			break
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// WaitFor waits until a record satisfies match and returns it, with every
// record read so far.
func (in *Informer) WaitFor(timeout time.Duration, match func(InformerRecord) bool) (InformerRecord, []InformerRecord, error) {
	deadline := time.Now().Add(timeout)
	for {
		recs, err := in.Records()
		if err == nil {
			for _, r := range recs {
				if match(r) {
					return r, recs, nil
				}
			}
		}
		select {
		case <-in.done:
			return InformerRecord{}, recs, fmt.Errorf("informer %s exited: %v", in.Name, in.exitErr)
		default:
		}
		if time.Now().After(deadline) {
			return InformerRecord{}, recs, fmt.Errorf("informer %s: no matching record within %s", in.Name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
