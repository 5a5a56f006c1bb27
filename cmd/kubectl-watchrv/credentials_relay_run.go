package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// credentialRelayArg, as the first argument, makes this binary the relay
// of a credential plugin (credentials_relay.go) and nothing else: it is
// no command (cobra never sees it), and only client-go, given it by
// credentialRelay.route, runs it. Its arguments: the status file, the
// plugin's path, then the plugin's argv.
const credentialRelayArg = "__credential-plugin-relay"

// credentialPluginOutputCap bounds what is read of a credential plugin's
// stdout. An ExecCredential is a few KB: a token (a JWT of 1 to 2 KB, a
// few KB with many groups in it) or a client certificate and key, with a
// chain, of some KB. 1 MiB is a hundred times that, and a bound the
// plugin can hold in memory whatever the plugin writes.
const (
	credentialPluginOutputCap     = 1 << 20
	credentialPluginOutputCapText = "1 MiB"
)

// relayGrace: once the plugin exited 0 with a complete answer (one JSON
// value), the read ends when no byte came for this long (what the plugin
// wrote before it exited is in the pipe already: this is the time to read
// it), instead of waiting for an EOF that a process it started and left
// holding its stdout may never give.
const relayGrace = 100 * time.Millisecond

// init: run as the relay, this binary (and the test binary of its
// package, whose plugins the unit tests run) does only that.
func init() {
	if len(os.Args) > 1 && os.Args[1] == credentialRelayArg {
		os.Exit(runCredentialRelay(os.Args[2:]))
	}
}

// runCredentialRelay runs the plugin and copies its answer to stdout,
// within the cap; it returns the exit code client-go is to see.
func runCredentialRelay(args []string) int {
	// The run's nonce starts every verdict; the plugin never sees it
	// (takeRelayNonce: on unix, this process executes itself again here).
	relayNonce, args = takeRelayNonce(args)
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "error: "+credentialRelayArg+" is internal to kubectl-watchrv: it runs a kubeconfig's credential plugin for it")
		return 2
	}
	st := relayStatus{path: args[0], nonce: relayNonce}
	if st.gateClosed() {
		// The run refuses client-go's re-run (credentialRelay.closeGate):
		// the plugin is not started.
		return tellVerdict(verdictNotRerun, "")
	}
	st.write("") // a verdict of an earlier run is not this one's
	// Ctrl-C, Ctrl-\ and a closed terminal reach the plugin (the same
	// process group) and this process's parent, which stops the relay and
	// the plugin together: the relay neither dies first nor dumps a Go
	// stack (SIGQUIT). Notify, not Ignore: an ignored signal would stay
	// ignored in the plugin.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	r, w, err := os.Pipe()
	if err != nil {
		return tellVerdict(verdictNotStarted, err.Error())
	}
	plugin := &exec.Cmd{Path: args[1], Args: args[2:], Stdin: os.Stdin, Stdout: w, Stderr: os.Stderr}
	err = plugin.Start()
	w.Close()
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "permission denied", without Go's "fork/exec PATH:"
		}
		return tellVerdict(verdictNotStarted, err.Error())
	}
	out := &relayOutput{moved: make(chan struct{}, 1), ended: make(chan struct{})}
	go out.read(r)
	exited := make(chan struct{})
	go func() { _ = plugin.Wait(); close(exited) }()
	select {
	case <-out.ended:
		if out.isOver() {
			_ = plugin.Process.Kill()
			return tellVerdict(verdictOverCap, "")
		}
		<-exited // EOF first: the plugin's exit is still its answer, as client-go waits for it
	case <-exited:
		if plugin.ProcessState.Success() {
			out.settle(st)
		}
		if out.isOver() {
			return tellVerdict(verdictOverCap, "")
		}
	}
	if ws, ok := plugin.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return tellVerdict(verdictSignal, ws.Signal().String())
	}
	if code := plugin.ProcessState.ExitCode(); code != 0 {
		return code // client-go reads nothing of a failed run
	}
	if _, err := os.Stdout.Write(out.bytes()); err != nil {
		return 1
	}
	return 0
}

// relayOutput is the plugin's stdout as read so far.
type relayOutput struct {
	mu    sync.Mutex
	buf   []byte
	over  bool          // more than credentialPluginOutputCap came (set before ended is closed)
	moved chan struct{} // a read took bytes
	ended chan struct{} // closed at EOF, or past the cap
}

// read reads r to its end or past the cap, and keeps no more than the cap.
func (o *relayOutput) read(r io.Reader) {
	defer close(o.ended)
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			o.mu.Lock()
			if len(o.buf)+n > credentialPluginOutputCap {
				o.over = true
				o.mu.Unlock()
				return
			}
			o.buf = append(o.buf, chunk[:n]...)
			o.mu.Unlock()
			select {
			case o.moved <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// settle, once the plugin exited 0: waits until the output ended, or
// until no byte came for relayGrace while it is one complete JSON value.
// While it is not complete, its stdout still open (a process the plugin
// started holds it), the wait goes on as client-go's would, and the
// status file says why, for the run that gives up on it.
func (o *relayOutput) settle(st relayStatus) {
	quiet := time.NewTimer(relayGrace)
	defer quiet.Stop()
	told := false
	defer func() {
		if told {
			st.write("")
		}
	}()
	for {
		select {
		case <-o.ended:
			return
		case <-o.moved:
			quiet.Reset(relayGrace)
		case <-quiet.C:
			if o.complete() {
				return
			}
			if !told {
				st.write(verdictHeldOpen)
				told = true
			}
			// Bytes may still come (or be read late on a busy machine):
			// look again.
			quiet.Reset(relayGrace)
		}
	}
}

// complete: what was read is one whole JSON value (client-go decodes it).
func (o *relayOutput) complete() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return json.Valid(bytes.TrimSpace(o.buf))
}

// isOver: more than the cap came.
func (o *relayOutput) isOver() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.over
}

// bytes is what was read.
func (o *relayOutput) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]byte(nil), o.buf...)
}

// relayStatus is the status file of one run (the run relays the plugin
// only once it has made one: credentialRelay.start). The plugin can read
// the file's path in the relay's argv, and read and write the file: so a
// verdict in it is sealed with a MAC keyed by the run's nonce, which the
// plugin never sees (takeRelayNonce), and the file never holds the nonce
// itself. What the plugin writes there is no verdict (adversary try 46
// F3: a plugin wrote "held-open" and the run said it had exited while a
// process kept its stdout open, of a plugin that never exited); and what
// it reads there lets it forge none, in the file or in band (make
// test-long: the status file held the nonce, written at the relay's
// start, and a plugin that read it forged a "signal" verdict). A plugin
// can at most write back a verdict it read in the file, which the relay
// or the run wrote in this run: one that was true.
type relayStatus struct{ path, nonce string }

// write replaces the file's content with verdict (never creating it: the
// run that made it removes it when it ends); "" empties it.
func (s relayStatus) write(verdict string) {
	if s.path == "" {
		return
	}
	if f, err := s.open(os.O_WRONLY | os.O_TRUNC); err == nil {
		if verdict != "" && s.nonce != "" {
			_, _ = f.WriteString(s.seal(verdict) + " " + verdict)
		}
		f.Close()
	}
}

// seal is verdict's MAC, keyed by the run's nonce.
func (s relayStatus) seal(verdict string) string {
	m := hmac.New(sha256.New, []byte(s.nonce))
	m.Write([]byte("kubectl-watchrv relay status\x00" + verdict))
	return hex.EncodeToString(m.Sum(nil))
}

// gateClosed: the status file says the run does not want the plugin run
// again (verdictNotRerun), or is gone: the run that made it has ended
// (credentialRelay.close), and no plugin may start after its end.
func (s relayStatus) gateClosed() bool {
	if s.path == "" {
		return false // none could be made: the relay cannot be refused
	}
	kind, _, exists := s.read()
	return !exists || kind == verdictNotRerun
}

// open opens the status file as a regular file only, never blocking nor
// following a link (statusOpenFlags): anything else the plugin put in its
// place holds no verdict (errNotStatusFile).
func (s relayStatus) open(flag int) (*os.File, error) {
	f, err := os.OpenFile(s.path, flag|statusOpenFlags, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, errNotStatusFile
	}
	return f, nil
}

var errNotStatusFile = errors.New("the status file is no regular file")

// read is the verdict in the file, its kind and detail ("" when the file
// holds none this run sealed), and whether the file exists.
func (s relayStatus) read() (kind, detail string, exists bool) {
	f, err := s.open(os.O_RDONLY)
	if err != nil {
		return "", "", !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 512))
	mac, verdict, _ := strings.Cut(string(b), " ")
	if s.nonce == "" || !hmac.Equal([]byte(mac), []byte(s.seal(verdict))) {
		return "", "", true
	}
	kind, detail, _ = strings.Cut(strings.TrimSpace(verdict), " ")
	return kind, detail, true
}

// relayNonce is the run's nonce (relayPaths.nonce), read at the relay's
// start.
var relayNonce string

// tellVerdict ends the relay with a verdict that fails the run, in band
// (relayVerdict): an answer client-go refuses, naming the verdict; the
// relay writes nothing of its own to the terminal (the run tells it, in
// its one error line, through the one sanitizer), and exits 0 (an exit
// code of its own would read as the plugin's).
func tellVerdict(kind, detail string) int {
	// A "/" would make the version no group/version client-go can read.
	version := relayVerdictGroup + "/" + relayNonce + " " + strings.TrimSpace(kind+" "+text.OneLine(strings.ReplaceAll(detail, "/", " ")))
	b, _ := json.Marshal(struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}{version, "ExecCredential"})
	if _, err := os.Stdout.Write(b); err != nil {
		return 1
	}
	return 0
}
