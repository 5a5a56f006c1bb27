package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// credentialPluginTimeout bounds a credential exec plugin that gives no
// answer, when no --request-timeout is given and the plugin cannot be
// interactive (a plugin that may ask the user, at a terminal, is waited
// for as kubectl waits).
const credentialPluginTimeout = 60 * time.Second

// credentialPluginError: the kubeconfig's credential exec plugin failed
// (exited non-zero, printed what is not an ExecCredential) or did not
// answer in time. The kubeconfig cannot be used: exit 2, as every
// kubeconfig failure. Its text starts as client-go's own ("getting
// credentials: "), which diagnose.IsCredentialPluginError reads.
type credentialPluginError struct {
	command string
	err     error
	waited  time.Duration
	bound   string // what set waited: --request-timeout, or the default
	// stopped is how many processes of the plugin were stopped when it was
	// given up on (-1: not known on this platform).
	stopped int
	// heldOpen: the plugin itself had exited 0, but a process it started
	// held its stdout, on which the answer was still awaited.
	heldOpen bool
}

func (e *credentialPluginError) Error() string {
	if e.err != nil {
		return "getting credentials: " + e.err.Error()
	}
	after := "; it was stopped"
	switch {
	case e.stopped == 0:
		// Linux looked, and none of its processes was left: it ended
		// at the bound, or answered just after it.
		after = "; none of its processes was left running"
	case e.stopped < 0:
		after = "; it may still be running" // where processes are not looked for
	}
	if e.heldOpen {
		after += " (" + heldOpenNote + ")"
	}
	return fmt.Sprintf("getting credentials: exec: the credential plugin %s gave no answer within %s (%s)%s", e.command, e.waited, e.bound, after)
}

func (e *credentialPluginError) Unwrap() error { return e.err }

// credentialGuard runs the kubeconfig's credential exec plugin once per
// run, before any request, bounded in time: client-go runs it inside the
// first request's round trip with no timeout at all (a plugin that hangs
// holds the command past --request-timeout and any --timeout), and again
// for each request while it keeps failing. client-go caches the
// authenticator by its config, so the requests reuse the credentials this
// run got; when it failed, every request fails at once with its error.
type credentialGuard struct {
	once sync.Once
	done chan struct{} // closed when the plugin has answered (err set)
	err  error
	// command is the plugin's, once it was started; started holds it too,
	// for readers outside the guard's once.
	command string
	started atomic.Value
	// relay runs the plugin for client-go, its stdout bounded
	// (credentials_relay.go).
	relay credentialRelay
	// stopOnce: the plugin is stopped at most once per run, and never
	// after it answered: a late caller cannot stop what another run (in
	// the same process, as in the tests) started since.
	stopOnce sync.Once
	stopped  int
	// refreshBound is how long client-go's re-run of the plugin after a
	// 401 may take (0: not bounded, a plugin that may ask the user);
	// watching is set once the re-runs are watched, refreshed once a 401
	// was seen, ended once the run is over (the watch stops then).
	refreshBound               atomic.Int64 // a time.Duration
	watching, refreshed, ended atomic.Bool
	// reauth re-runs the plugin once after a 401 and sends the request
	// again (credentials_reauth.go), once the plugin has answered.
	reauth     reauth
	reauthInit sync.Once
}

// pluginStarted is the exec command of the plugin this run started ("":
// none was).
func (g *credentialGuard) pluginStarted() string {
	c, _ := g.started.Load().(string)
	return c
}

// stop stops the plugin and what it started, unless it answered; it
// returns how many processes were stopped (by this call or an earlier).
func (g *credentialGuard) stop() int {
	g.stopOnce.Do(func() {
		select {
		case <-g.done:
		default:
			g.stopped = stopAbandonedPlugin(g.command)
		}
	})
	return g.stopped
}

// stopIfRunning stops the plugin (and what it started) when it was run
// and has not answered: the end of a run is the last moment to. First
// the relay's gate closes for good (its status file is removed: a relay
// started from now on runs no plugin), then every re-run client-go
// started is stopped: one that a request still in flight started just
// before the end cannot outlive the run and hold its stderr (a race seen
// under load: the 401's re-run began after the stop).
func (g *credentialGuard) stopIfRunning() {
	g.ended.Store(true)
	g.relay.close()
	if g.done != nil {
		g.stop()
	}
	if g.pluginStarted() != "" {
		// A re-run (after a 401, on expiry) still going on when the run
		// ends; what the plugin's answered run left is not one
		// (pluginSince).
		stopAbandonedPlugin(g.command)
	}
}

// boundRefresh: client-go runs the plugin again, with no bound, inside
// the round trip of every request answered 401 (exec.go, roundTripper),
// before the 401 reaches the command; so that a plugin that answered once
// and hangs the next time cannot hold the command, from the first 401 on
// each process of the plugin that has run refreshBound is stopped (the
// command then reports the 401). Once one had to be stopped, the next get
// a moment only. One watch for the run, until it ends; the run's end
// stops a re-run still going on (stopIfRunning).
func (g *credentialGuard) boundRefresh(ctx context.Context) {
	g.refreshed.Store(true)
	bound := time.Duration(g.refreshBound.Load())
	if bound == 0 || !g.watching.CompareAndSwap(false, true) {
		return
	}
	go func() {
		seen := map[int]time.Time{}
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for !g.ended.Load() {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				live := map[int]time.Time{}
				overdue := false
				for _, pid := range pluginProcesses() {
					first, ok := seen[pid]
					if !ok {
						first = now
					}
					live[pid] = first
					overdue = overdue || now.Sub(first) >= bound
				}
				seen = live
				if overdue && !g.ended.Load() {
					// Said before the stop: the re-run returns as soon as
					// the plugin dies (adversary try 47 F2: "gave no new
					// credentials" of a re-run this stopped).
					g.reauth.killed.Store(true)
				}
				if overdue && !g.ended.Load() && stopAbandonedPlugin(g.command) > 0 {
					bound = min(bound, 200*time.Millisecond)
					seen = map[int]time.Time{}
				}
			}
		}
	}()
}

// wrap is part of the WrapConfigFn every rest.Config of the plugin goes
// through (discovery included); ctx ends the wait on Ctrl-C.
func (g *credentialGuard) wrap(ctx context.Context, cfg *rest.Config) *rest.Config {
	if cfg.ExecProvider == nil {
		return cfg
	}
	command := cfg.ExecProvider.Command
	cfg = g.relay.route(cfg)
	g.once.Do(func() {
		g.done, g.command = make(chan struct{}), command
		g.started.Store(command)
		go func() {
			defer close(g.done)
			g.err = runCredentialPlugin(ctx, cfg, g)
		}()
	})
	// Every caller waits for the one run of the plugin, or for the end of
	// the run's time (a watch's --timeout, Ctrl-C): a config asked for
	// after that never blocks on the plugin still running.
	var err error
	select {
	case <-g.done:
		err = g.err
	case <-ctx.Done():
		// The run's time ended (a watch's --timeout, Ctrl-C) with the
		// plugin still running: it does not outlive the run.
		err = ctx.Err()
		g.stop()
	}
	if err == nil {
		// client-go runs the plugin again inside a round trip, unbounded,
		// after a 401 and when the credentials expire: every re-run is
		// watched for the whole run (boundRefresh); after a 401, the run
		// re-runs it itself, once (reauth, which sees each 401).
		g.boundRefresh(ctx)
		g.reauthInit.Do(func() { g.reauth.init(cfg) })
		return cfg
	}
	c := rest.CopyConfig(cfg)
	c.ExecProvider = nil
	c.Wrap(func(http.RoundTripper) http.RoundTripper { return failingTransport{err} })
	return c
}

// runCredentialPlugin gets the credentials through client-go's own exec
// authenticator (the one the clients of cfg use), waiting at most
// --request-timeout, or credentialPluginTimeout for a plugin that cannot
// ask the user anything; g stops it when it is given up on, and keeps
// the bound for the re-runs after a 401.
func runCredentialPlugin(ctx context.Context, cfg *rest.Config, g *credentialGuard) error {
	tc, err := cfg.TransportConfig()
	if err != nil || tc.TLS.GetCertHolder == nil {
		// Not built (its error comes with the first request), or the
		// plugin is not used (a token or a certificate was given).
		return nil
	}
	wait, bound := cfg.Timeout, "--request-timeout"
	interactive := cfg.ExecProvider.InteractiveMode != clientcmdapi.NeverExecInteractiveMode && render.IsTerminal(os.Stdin)
	if wait == 0 && !interactive {
		wait, bound = credentialPluginTimeout, "the bound of a plugin that cannot ask the user, without --request-timeout"
	}
	g.refreshBound.Store(int64(wait))
	adoptOrphans()
	done := make(chan error, 1)
	go func() {
		_, err := tc.TLS.GetCertHolder.GetCert()
		done <- err
	}()
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case err := <-done:
		if err != nil {
			return &credentialPluginError{command: g.command, err: g.relay.explained(err)}
		}
		noteAnswered()
		return nil
	case <-timeout:
		heldOpen := g.relay.verdict().kind == verdictHeldOpen
		return &credentialPluginError{command: g.command, waited: wait, bound: bound, stopped: g.stop(), heldOpen: heldOpen}
	case <-ctx.Done():
		g.stop()
		return ctx.Err()
	}
}

// failingTransport answers every request with the credential plugin's
// failure: no request is sent without the credentials it asked for.
type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }
