package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The kubeconfig's credential exec plugin is run through a relay
// (adversary try 19 #1 and #16). client-go's exec authenticator
// (plugin/pkg/client/auth/exec, refreshCredsLocked) runs the plugin with
// its stdout in a bytes.Buffer that grows without end, and waits for EOF
// on it: a plugin that writes without end (`exec yes`) took every byte of
// memory ("fatal error: out of memory" and a Go stack), and one that
// answered and exited while a process it started held its stdout
// (`sleep 300 &`) was waited for up to the bound, then called one that
// "gave no answer". client-go lets nothing in there: the buffer is made
// inside refreshCredsLocked, and the config sets only the command, its
// args and env. Running the plugin ourselves instead would lose what
// client-go does with it later (its re-run on expiry and after a 401, its
// certificate rotation). So the command client-go runs is this binary in
// a hidden mode (credentialRelayArg, credentials_relay_run.go), which runs
// the plugin as client-go would have: the same program and argv, the env
// client-go gave the relay (KUBERNETES_EXEC_INFO and the kubeconfig's env
// in it), stdin and stderr handed on as the files they are (an interactive
// plugin keeps the terminal; client-go gives stderr as os.Stderr, so
// neither it nor the relay reads any of it). Only stdout goes through the
// relay, which reads at most credentialPluginOutputCap of it and stops
// reading once the plugin itself exited with a complete answer. The relay
// and the plugin are this process's descendants, as the plugin was: the
// guard stops them alike (credentials_reap_linux.go).
//
// What the relay decides itself (the plugin wrote past the cap, could not
// be started, was ended by a signal, is not to run again) it tells in band
// (relayVerdict), and that a plugin exited while what it started held its
// output, in a status file this run made; otherwise its exit code is the
// plugin's. explain puts that, and the plugin's command where client-go
// names the relay, in client-go's error.

// credentialRelay is the relay of one run; its zero value relays nothing.
type credentialRelay struct {
	once  sync.Once
	paths atomic.Pointer[relayPaths] // nil: the plugin is not relayed
}

// relayPaths are what a relayed run names.
type relayPaths struct {
	// self is this binary as client-go names the command it ran
	// (filepath.Clean).
	self string
	// plugin is the kubeconfig's command, as client-go would name it.
	plugin string
	// status is the relay's status file ("" when none could be made).
	status string
	// nonce is this run's random word that starts every verdict of its
	// relay (relayNonceEnv): a plugin's own answer in relayVerdictGroup
	// is no verdict (adversary try 21 F11: a plugin printed a "signal"
	// verdict and exited 0, and the run said it was ended by a signal).
	nonce string
}

// relayNonceEnv carries the run's nonce to the relay, which moves it out
// of its environment before it starts the plugin (takeRelayNonce: the
// initial environment stays readable in /proc/PID/environ, adversary try
// 22 F12).
const relayNonceEnv = "KUBECTL_WATCHRV_RELAY_NONCE"

// route returns cfg with its exec plugin run through the relay, or cfg as
// it is where client-go must see the plugin's own command: when client-go
// cannot find it (its error carries the kubeconfig's installHint), and
// under a plugin policy (kubectl's kuberc), which checks that command.
func (r *credentialRelay) route(cfg *rest.Config) *rest.Config {
	ep := cfg.ExecProvider
	if ep == nil || (len(ep.Args) > 0 && ep.Args[0] == credentialRelayArg) {
		return cfg
	}
	if p := ep.PluginPolicy.PolicyType; p != "" && p != clientcmdapi.PluginPolicyAllowAll {
		return cfg
	}
	// client-go runs exec.Command(filepath.Clean(command)): the path the
	// relay runs is the one client-go would have found, with this
	// process's PATH (not the kubeconfig env's, which the relay gets).
	name := filepath.Clean(ep.Command)
	path, err := exec.LookPath(name)
	if err != nil {
		return cfg
	}
	r.once.Do(func() { r.start(name) })
	p := r.paths.Load()
	if p == nil {
		return cfg
	}
	c := rest.CopyConfig(cfg)
	relayed := *c.ExecProvider
	relayed.Command = p.self
	relayed.Args = append([]string{credentialRelayArg, p.status, path, name}, ep.Args...)
	// The nonce is the run's alone: an exec.env entry of its name (the
	// kubeconfig's, meant for no plugin) is dropped, and the run's comes
	// last, over one inherited from the shell (exec.Cmd keeps the last).
	relayed.Env = append(slices.DeleteFunc(slices.Clone(ep.Env), func(e clientcmdapi.ExecEnvVar) bool { return e.Name == relayNonceEnv }),
		clientcmdapi.ExecEnvVar{Name: relayNonceEnv, Value: p.nonce})
	c.ExecProvider = &relayed
	return c
}

// start finds this binary and makes the status file, once per run ("" when
// none could be made: a TMPDIR that does not exist; the relay then
// cannot tell a plugin held open, nor be refused a re-run, and every
// verdict still comes in band).
func (r *credentialRelay) start(plugin string) {
	self, err := os.Executable()
	if err != nil {
		return // the plugin runs as client-go runs it
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return
	}
	p := &relayPaths{self: filepath.Clean(self), plugin: plugin, nonce: hex.EncodeToString(nonce)}
	if f, err := os.CreateTemp("", "kubectl-watchrv-credential-plugin-*"); err == nil {
		p.status = f.Name()
		f.Close()
	}
	r.paths.Store(p)
}

// closeGate: from now on, the relay does not run the plugin again (its
// verdict: verdictNotRerun), until openGate. A run re-runs the plugin once
// after a 401 (reauth) and closes the gate until an answer accepts what
// it gave: client-go's own re-run for a 401 to that is refused.
func (r *credentialRelay) closeGate() { r.writeStatus(verdictNotRerun) }

// openGate: the relay runs the plugin again when client-go asks.
func (r *credentialRelay) openGate() {
	if r.verdict().kind == verdictNotRerun {
		r.writeStatus("")
	}
}

func (r *credentialRelay) writeStatus(s string) {
	if p := r.paths.Load(); p != nil && p.status != "" {
		relayStatus{path: p.status, nonce: p.nonce}.write(s)
	}
}

// statusGone: the relay's status file was made and is no longer there
// before the run's end removed it (the plugin, which can read its path,
// removed it): the relay refuses every run of the plugin from then on.
func (r *credentialRelay) statusGone() bool {
	p := r.paths.Load()
	if p == nil || p.status == "" {
		return false
	}
	_, err := os.Lstat(p.status)
	return errors.Is(err, fs.ErrNotExist)
}

// close removes the status file at the end of the run: the gate is then
// closed for good (relayStatus.gateClosed).
func (r *credentialRelay) close() {
	if p := r.paths.Load(); p != nil && p.status != "" {
		os.Remove(p.status)
	}
}

// verdict is what the relay wrote in the status file while it ran (zero:
// nothing): verdictHeldOpen, or the gate (verdictNotRerun).
func (r *credentialRelay) verdict() relayVerdict {
	p := r.paths.Load()
	if p == nil || p.status == "" {
		return relayVerdict{}
	}
	kind, detail, _ := relayStatus{path: p.status, nonce: p.nonce}.read()
	return relayVerdict{kind: kind, detail: detail}
}

// explain puts client-go's words about a relayed run of the plugin in the
// plugin's terms: the relay's verdict where client-go refused the answer
// that carried it (inBandVerdict), and the plugin where client-go names
// the relay ("exec: executable <relay> failed with exit code N": N is the
// plugin's own).
func (r *credentialRelay) explain(msg string) string {
	p := r.paths.Load()
	if p == nil {
		return msg
	}
	if m := inBandVerdict.FindStringSubmatchIndex(msg); m != nil {
		if q, err := strconv.Unquote(msg[m[2]:m[3]]); err == nil {
			nonce, verdict, _ := strings.Cut(strings.TrimPrefix(q, relayVerdictGroup+"/"), " ")
			kind, detail, _ := strings.Cut(verdict, " ")
			if v := (relayVerdict{kind: kind, detail: detail}); nonce == p.nonce && v.failed() {
				msg = msg[:m[0]] + "exec: " + v.text(p.plugin) + msg[m[1]:]
			}
		}
	}
	return strings.ReplaceAll(msg, p.self, p.plugin)
}

// explained is err in the plugin's terms, told as the run failed (the
// status file is read now, not when the error is printed).
func (r *credentialRelay) explained(err error) error {
	return relayError{err: err, text: r.explain(err.Error())}
}

// relayError is a plugin's failure in the plugin's terms (explain).
type relayError struct {
	err  error
	text string
}

func (e relayError) Error() string { return e.text }

func (e relayError) Unwrap() error { return e.err }

// relayVerdict is what the relay tells of a run of the plugin beyond its
// exit code: "KIND DETAIL".
//
// One that fails the run (failed) is told in band: the relay exits 0 with
// an answer whose apiVersion is relayVerdictGroup/"KIND DETAIL", which
// client-go refuses, naming that version in its error (decoding stdout: no
// kind "ExecCredential" is registered for version ...), where explain
// reads it. A relay's own exit code would read as the plugin's, and its
// own line on stderr would be a second line, past the one sanitizer
// (adversary try 20 #5: the kubeconfig's command, ESC and OSC included,
// written raw, then "failed with exit code 125"), and a status file needs
// a TMPDIR that works. The status file holds what the run reads while the
// relay still runs: verdictHeldOpen, and the gate (verdictNotRerun).
type relayVerdict struct{ kind, detail string }

// relayVerdictGroup is the API group of the relay's in-band verdicts: no
// ExecCredential is registered in it.
const relayVerdictGroup = "kubectl-watchrv.relay.invalid"

// inBandVerdict is client-go's refusal of an in-band verdict, its version
// quoted (Go syntax) in group 1.
var inBandVerdict = regexp.MustCompile(`decoding stdout: no kind "ExecCredential" is registered for version ("` + regexp.QuoteMeta(relayVerdictGroup) + `/(?:[^"\\]|\\.)*") in scheme "(?:[^"\\]|\\.)*"`)

const (
	verdictOverCap    = "over-cap"    // wrote past credentialPluginOutputCap: stopped
	verdictNotStarted = "not-started" // DETAIL: why
	verdictSignal     = "signal"      // ended by a signal, DETAIL: which
	// verdictHeldOpen: the plugin exited 0 before its answer was complete,
	// and its stdout is still open (a process it started holds it). The
	// relay still waits, as client-go would; told when the run gives up.
	verdictHeldOpen = "held-open"
	// verdictNotRerun: the plugin was not run: the run closed the gate
	// (closeGate), after a re-run whose credentials the server rejected.
	verdictNotRerun = "not-rerun"
)

// failed: the run of the plugin failed for the relay's reason.
func (v relayVerdict) failed() bool {
	return v.kind == verdictOverCap || v.kind == verdictNotStarted || v.kind == verdictSignal || v.kind == verdictNotRerun
}

// text is the verdict in client-go's terms (after "exec: "), for plugin.
func (v relayVerdict) text(plugin string) string {
	switch v.kind {
	case verdictOverCap:
		return fmt.Sprintf("the credential plugin %s wrote more than %s to its standard output, where an ExecCredential takes a few KB; it was stopped", plugin, credentialPluginOutputCapText)
	case verdictNotStarted:
		return fmt.Sprintf("the credential plugin %s could not be started: %s", plugin, v.detail)
	case verdictSignal:
		return fmt.Sprintf("the credential plugin %s was ended by a signal (%s)", plugin, v.detail)
	case verdictNotRerun:
		return fmt.Sprintf("the credential plugin %s was not run again: it was run again after a 401 already, and the API server rejected the credentials it gave then", plugin)
	}
	return ""
}

// heldOpenNote is what a run that gave up on the plugin adds when the
// plugin itself had exited: the fix is then what it started.
const heldOpenNote = "it had exited 0 without a complete answer, but a process it started kept its stdout open: what the plugin starts must not hold its stdout"
