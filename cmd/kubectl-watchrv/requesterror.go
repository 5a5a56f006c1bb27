package main

// The one describer of a failed request: a line of the plugin's own
// words that names the server, the request, its answer and the fix, and
// keeps the error chain for the exit code (docs/exit-codes.md).

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// requestError turns a failed request into one actionable line, keeping the
// error chain so that the exit code can be derived from it. When no
// kubeconfig was found, the line says so (missingKubeconfig). The answer
// is the server's own, so its diagnosis is live (diagnose.Context.Live).
func (o *RootOptions) requestError(err error, verb, what string) error {
	return o.sentRequestError(err, verb, what, diagnose.Context{})
}

// sentRequestError is requestError of a request whose resourceVersion the
// caller knows (sent: what it sent, or NoResourceVersionSent): the one
// way every failed request's answer is diagnosed, always as live, so the
// error line says what the diagnosis above it says (adversary try 29 F4).
//
// An answer that carries the request it answered (diagnose.AnsweredContext:
// its query, as sent) is judged against that request, whatever the caller
// thought it sent (adversary try 30 F1: a relist's answer was judged as a
// request of no known RV).
func (o *RootOptions) sentRequestError(err error, verb, what string, sent diagnose.Context) error {
	return o.sentRequestErrorAt(err, "", verb, what, sent)
}

// requestErrorAt is requestError of a request sent to endpoint (an
// --endpoints address, not the kubeconfig's server): the line names that
// address, and an unreachable one gets the address's fix, never the
// kubeconfig's (adversary try 41 F2: top --endpoints 127.0.0.1:1 blamed
// the kubeconfig's server, which was up).
func (o *RootOptions) requestErrorAt(err error, endpoint, verb, what string) error {
	return o.sentRequestErrorAt(err, endpoint, verb, what, diagnose.Context{})
}

func (o *RootOptions) sentRequestErrorAt(err error, endpoint, verb, what string, sent diagnose.Context) error {
	if c, ok := diagnose.AnsweredContext(err); ok {
		sent = c
	}
	sent.Live = true
	e := o.describeRequestError(err, endpoint, verb, what, sent)
	if note := o.missingKubeconfig(); note != "" {
		return fmt.Errorf("%w (%s)", e, note)
	}
	return e
}

func (o *RootOptions) describeRequestError(err error, endpoint, verb, what string, sent diagnose.Context) error {
	if diagnose.ClassifyFailure(err) == diagnose.FailureCredentials {
		return o.kubeconfigError(err)
	}
	var incomplete *follow.ListIncompleteError
	if errors.As(err, &incomplete) {
		if _, ok := diagnose.StatusOf(incomplete.Err); ok {
			// The retries of a failed list ran into --timeout: the
			// server's last answer is the failure, said as its own
			// error line says it (the retried first page lost its
			// words: "(boom)").
			return fmt.Errorf("the first list did not complete before the watch's time ran out, so no watch was started; its last answer: %w", o.describeRequestError(incomplete.Err, endpoint, verb, what, diagnose.Context{Live: true}))
		}
		return fmt.Errorf("%w: raise --timeout (--rv list reads the whole collection before it watches)", err)
	}
	var breach *diagnose.ContractError
	if errors.As(err, &breach) {
		// Whatever the step (a list, the list before a watch, a relist,
		// a current RV), the same words and fix.
		return withCode(ExitFailure, fmt.Errorf("%w: %s", breach, contractFix))
	}
	server := o.serverName()
	if endpoint != "" {
		server = "the API server at " + text.RedactURL(endpoint)
	}
	if note := o.credentials.heldByRerun(); note != "" && !diagnose.IsAnswer(err) {
		return heldError(server, note, err)
	}
	var event *follow.EventError
	if errors.As(err, &event) {
		return o.eventError(event, err, server, verb, what, sent)
	}
	// verb is what the command needs (a refusal's fix names it); a
	// server's answer is of the one request that got it.
	answered := verb
	if v := apiclient.AnsweredVerb(err); v != "" {
		answered = v
	}
	switch diagnose.ClassifyFailure(err) {
	case diagnose.FailureUnreachable:
		if apiclient.ViaProxy(err) {
			// The proxy, not the server: its fix is the proxy's
			// (adversary try 39 F3).
			return fmt.Errorf("cannot reach %s through the kubeconfig's proxy: %w: %s", server, err, render.ProxyFix(err))
		}
		if endpoint != "" {
			return fmt.Errorf("cannot reach %s: %w: %s", server, err, render.UnreachableFix(err))
		}
		o.serverOnce.Do(o.noteServerName)
		if m := o.ledger.AnswersFrom(o.serverHost); m.Count > 0 {
			// The settings reach it: it answered this run before.
			return fmt.Errorf("cannot reach %s: %w: it answered %s of this run (last heard from at %s), so it stopped answering since: check that the cluster is up (restarting, or its network)", server, err, text.Count(m.Count, "request"), m.Last.Format("15:04:05"))
		}
		return fmt.Errorf("cannot reach %s: %w: check --server, --context or --kubeconfig, and that the cluster is up", server, err)
	case diagnose.FailureTLS:
		if apiclient.SchemeMismatch(err) != nil {
			// No handshake failed: the URL's scheme is not the server's.
			return fmt.Errorf("wrong scheme for %s: %w: %s", server, err, render.TLSHint(err))
		}
		return fmt.Errorf("TLS handshake with %s failed: %w: %s", server, err, render.TLSHint(err))
	case diagnose.FailureUnauthorized:
		if note := o.credentials.rerunNote(); note != "" {
			return fmt.Errorf("%s rejected the credentials (401 Unauthorized): %w: %s: log in again with the plugin, or choose another --user/--context", server, err, note)
		}
		return fmt.Errorf("%s rejected the credentials (401 Unauthorized): %w: refresh the token or choose another --user/--context", server, err)
	case diagnose.FailureForbidden:
		// Named as every answer is: the server, the request and the
		// status (fresh user try 34 F4: "forbidden: <message>" under a
		// Failed line that said "answered watch secrets with 403").
		return fmt.Errorf("forbidden: %s answered %s %s with 403 Forbidden: %w: this command needs RBAC permission to %s %s", server, answered, what, err, verb, what)
	case diagnose.FailureThrottled:
		switch diagnose.ThrottledBy(err) {
		case diagnose.ThrottleCacheLag:
			// The cacher's 429 (storage/cacher/delegator.go): a
			// consistent read its watch cache could not serve in time,
			// not API Priority and Fairness (adversary try 26 F2).
			return fmt.Errorf("%s answered %s %s with 429 Too Many Requests: its watch cache lags storage (a consistent read it could not serve in time): %w: retry after a while; if it persists, check the watch cache's and etcd's latency", server, answered, what, err)
		case diagnose.ThrottleCacheLagMisfit:
			return fmt.Errorf("%s answered %s %s with 429 Too Many Requests, %s: %w: retry later, and check what answers at the kubeconfig's server (a proxy or a shim in front)", server, answered, what, diagnose.MisfitCacheLagWords, err)
		case diagnose.ThrottleAPF:
			return fmt.Errorf("%s is throttling requests (429 Too Many Requests, API Priority and Fairness): %w: retry later", server, err)
		}
		// No mark of API Priority and Fairness (diagnose.RejectedByAPF):
		// the max-in-flight limit of a server whose APF is off, or a
		// proxy's or a load balancer's 429 (fresh user try 27 F7).
		return fmt.Errorf("%s answered %s %s with 429 Too Many Requests, not marked as API Priority and Fairness's rejection (a text answer with its X-Kubernetes-PF-* headers; the server's max-in-flight limit, or a proxy or a load balancer in front, may have sent it): %w: retry later", server, answered, what, err)
	case diagnose.FailureBadRequest:
		if serr := o.streamingRefused(err, server, what); serr != nil {
			return serr
		}
		return withCode(ExitUsage, fmt.Errorf("%s refused the request as invalid: %w: check -l, --field-selector and the other request flags", server, err))
	case diagnose.FailureNoAnswer:
		if apiclient.HandshakeCut(err) {
			return fmt.Errorf("no answer from %s: %w: %s", server, err, apiclient.HandshakeFix)
		}
		if apiclient.BodyLate(err) {
			return fmt.Errorf("%s answered %s %s, and the answer did not end in time: %w: raise --request-timeout, or check the API server's health", server, verb, what, err)
		}
		if apiclient.AnswerWaitPassed(err) {
			return fmt.Errorf("no answer from %s: %w: check that the cluster is up, or give a --request-timeout longer than the server takes", server, err)
		}
		return fmt.Errorf("no answer from %s: %w: check that the cluster is up, or raise --request-timeout", server, err)
	case diagnose.FailureConnectionBroken:
		return fmt.Errorf("the connection to %s broke: %w: check the network and any proxy in between, then run again", server, err)
	case diagnose.FailureExpired, diagnose.FailureTooLarge:
		if st, ok := diagnose.StatusOf(err); ok {
			// Named as every answer is: the server, the request and
			// the status, then the message, its diagnosis and the fix
			// (adversary try 11: "error: gone away: Relist ..."; fresh
			// user tries 30 F1, 32 F6, 33 F4: "error: Expired: ..."
			// named neither, while its fix says to find out what
			// answered the request).
			return &worded{msg: fmt.Sprintf("%s answered %s %s with %s: %s", server, answered, what, diagnose.StatusText(st), diagnose.FixedMessage(err, sent)), err: err}
		}
		return diagnose.WithFix(err, sent)
	case diagnose.FailureUnbounded:
		return unboundedFix(err)
	case diagnose.FailureTimeout:
		if st, ok := diagnose.StatusOf(err); ok && strings.Contains(st.Message, "within requested timeout") {
			// The server's own end of the timeout the plugin sends with
			// each request (--request-timeout): the same as no answer in
			// that time, whichever side's clock ran out first (fresh user
			// try 12: exit 4 or 1, "check the API server's health").
			return withCode(ExitUnreachable, &worded{msg: fmt.Sprintf("%s answered %s %s with %s: the request did not complete within its --request-timeout (the server ends a request at the timeout it is sent): raise --request-timeout", server, answered, what, diagnose.StatusLine(st.Code, string(st.Reason), text.OneLine(st.Message))), err: err})
		}
	}
	// Any other answer of the server: its words alone ("boom") name
	// neither the request, nor the server, nor the status.
	if st, ok := diagnose.StatusOf(err); ok {
		// Every failure line ends with a fix (docs/exit-codes.md).
		fix := ": check what the API server, or a proxy in front of it, answers: run again with -v=6 to see each request and its status"
		if st.Code >= 500 {
			fix = ": the server failed the request; check the API server's health and logs, then run again"
			if d := diagnose.FromError(err, sent); d.CausedByResourceVersion() && d.Fix != "" {
				// A 5xx the one classifier knows as a resourceVersion
				// error has its fix: running again meets it again (user
				// try 24 F2: a watch's 500 PrevKv=nil said "run again",
				// where a relist is the fix).
				fix = ": " + d.Fix
			}
		}
		said, _ := apiclient.AnswerWords(server, verb, what, err) // the one describer of an answer
		return &worded{msg: said + fix, err: err}
	}
	if diagnose.IsUnreadableAnswer(err) {
		part := "a body"
		var ue *apiclient.UnreadableAnswerError
		if errors.As(err, &ue) && ue.Head {
			part = "a head"
		}
		return &worded{msg: fmt.Sprintf("%s answered %s %s with %s that cannot be read: %s: no API server sends it; check that the kubeconfig's server is the API server and what any proxy in front of it answers", server, verb, what, part, text.OneLine(err.Error())), err: err}
	}
	return err
}

// eventError is the one wording of an ERROR event inside a watch stream
// (docs/watch.md): said as the event it was, which answered no request, so
// neither "answered watch ... with" nor what only an answer's head can
// say (API Priority and Fairness's headers), and its Status said once
// (adversary: "answered watch configmaps with 500 InternalError: the watch
// ended with an ERROR event: 500 InternalError: ..."; a 403 said
// "forbidden" three times). Its exit code is its status's (exitCode).
func (o *RootOptions) eventError(ev *follow.EventError, err error, server, verb, what string, sent diagnose.Context) error {
	st := ev.Status
	msg := text.OneLine(st.Message)
	d := diagnose.FromError(err, sent)
	var fix string
	switch class := diagnose.ClassifyFailure(err); {
	case d.IsRVProblem():
		// The server's message is in the line as it came: the line says
		// what it means, and explain-error reads it again with its
		// numbers (fresh user try 17).
		msg = text.Shorten(msg, 256)
		fix = d.Summary + ": " + d.Fix
	case class == diagnose.FailureUnauthorized:
		fix = "the server no longer takes the credentials: refresh the token or choose another --user/--context"
	case class == diagnose.FailureForbidden:
		fix = fmt.Sprintf("this command needs RBAC permission to %s %s", verb, what)
	case class == diagnose.FailureThrottled:
		fix = "retry later"
	case class == diagnose.FailureBadRequest && diagnose.IsWatchListRefused(err):
		fix = o.serverInfoOf(context.Background(), what).StreamingRefusedHint()
		return withCode(ExitFailure, &worded{msg: eventLine(server, st, msg, fix), err: err})
	case class == diagnose.FailureBadRequest:
		fix = "check -l, --field-selector and the other request flags"
	case class == diagnose.FailureNotFound:
		fix = "check that the resource type and the namespace still exist, then run again"
	case st.Code >= 500 && d.CausedByResourceVersion() && d.Fix != "":
		// Running again meets the same lost change (user try 24 F2).
		fix = d.Fix
	case st.Code >= 500:
		fix = "the server failed the watch; check the API server's health and logs, then run again"
	default:
		fix = "check the API server's logs for why it ended the watch, then run again"
	}
	return &worded{msg: eventLine(server, st, msg, fix), err: err}
}

// eventLine is the error line of an ERROR event: the watch it ended, the
// server that sent it, its Status once (its code as sent, or said missing:
// diagnose.SentStatus), and the fix.
func eventLine(server string, st diagnose.SentStatus, msg, fix string) string {
	return fmt.Sprintf("%s: %s", st.Said("the watch ended with an ERROR event from "+server, msg), fix)
}

// worded is err with a line of the plugin's own: its class and exit code
// stay err's.
type worded struct {
	msg string
	err error
}

func (w *worded) Error() string { return w.msg }
func (w *worded) Unwrap() error { return w.err }

// unboundedFix names the flags that help with an answer past the plugin's
// bounds, where any do (the libraries say it in the API's words).
func unboundedFix(err error) error {
	var big *apiclient.BodyTooLargeError
	var endless *listing.EndlessListError
	switch {
	case errors.As(err, &big) && big.Kind == apiclient.KindList && !big.Headers:
		return fmt.Errorf("%w: list with a lower --limit, or without --rv 0", err)
	case errors.As(err, &endless) && endless.TooManyPages():
		return fmt.Errorf("%w: list with a higher --limit, or a narrower list (-n, -l, --field-selector)", err)
	}
	return err
}

// serverName is how messages name the kubeconfig's server: its address
// with any password in it redacted. Read once, before any request
// (noteServerName): client-go's ClientConfig writes into the loaded
// kubeconfig, so a second call races with a step still running aside.
func (o *RootOptions) serverName() string {
	o.serverOnce.Do(o.noteServerName)
	return o.server
}

// noteServerName reads the kubeconfig as written (the run's config waits
// for a credential plugin: credentialGuard).
func (o *RootOptions) noteServerName() {
	o.server = "the API server"
	if cfg, err := o.ConfigFlags.ToRawKubeConfigLoader().ClientConfig(); err == nil && cfg.Host != "" {
		o.server = "the API server at " + text.RedactURL(cfg.Host)
		if u, err := url.Parse(cfg.Host); err == nil {
			o.serverHost = u.Host
		}
	}
}
