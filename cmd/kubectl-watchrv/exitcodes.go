package main

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// Exit codes, documented in docs/exit-codes.md. Scripts rely on them: keep
// the numbers stable.
const (
	ExitOK           = 0  // success
	ExitFailure      = 1  // the command ran and failed for another reason
	ExitUsage        = 2  // bad flags, arguments or input
	ExitUnrecognized = 3  // explain-error: the text holds no error it knows
	ExitUnreachable  = 4  // no connection to the API server (refused, DNS, timeout)
	ExitTLS          = 5  // TLS failure (unknown CA, bad certificate)
	ExitUnauthorized = 6  // 401: the credentials were rejected
	ExitForbidden    = 7  // 403: RBAC denied a verb
	ExitThrottled    = 8  // 429: API Priority and Fairness rejected the request
	ExitNotFound     = 9  // the resource type or object does not exist
	ExitRVProblem    = 10 // the answer is an Expired or TooLarge resourceVersion error
	ExitBudget       = 11 // probe: the request budget ran out before the bound was found
	ExitPartial      = 12 // a run over several targets: some answered, some failed (partial.go)
	// ExitUnbounded: the answer broke one of the plugin's bounds (a body
	// past the limit of its kind, a paged list that never ends): the
	// server, or what is in front of it, is broken or hostile.
	ExitUnbounded = 13
	ExitCheck     = 14 // top --check: a bound (--max-watchers, ...) was crossed
	// ExitInterrupted: Ctrl-C (SIGINT) or SIGTERM stopped the command; it
	// printed what it had (a watch its summary) before exiting, as 128+2.
	ExitInterrupted = 130
	ExitInternal    = 70 // a bug in this plugin
)

// exitCodesHelp is the table of exit codes in the --help of the root
// command, list, watch and probe (the commands whose exit code scripts
// branch on most); docs/exit-codes.md is the whole reference.
const exitCodesHelp = `Exit codes (stable; docs/exit-codes.md):
  0 ok                1 other failure     2 bad input (flags, arguments, 400/422)
  3 unrecognized      4 unreachable       5 TLS
  6 401 unauthorized  7 403 forbidden     8 429 throttled
  9 not found         10 Expired or TooLarge resourceVersion
  11 probe budget     12 some targets failed (--servers, --all)
  13 answer too large or endless (a body past its limit, a list that never ends)
  14 top --check: a bound was crossed
  70 internal bug     130 interrupted (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT)`

// exitError carries an exit code with the message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErrorf reports bad input with a hint to the command's help. Every
// string argument is a value the user gave, echoed bounded (text.Echo): a
// 128 KiB --rv makes a short line.
func usageErrorf(cmd *cobra.Command, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = text.Echo(s)
		}
	}
	msg := fmt.Sprintf(format, args...)
	path := "kubectl watchrv"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return withCode(ExitUsage, fmt.Errorf("%s (see '%s --help')", msg, path))
}

// urlControlCharacter is net/url's refusal of a URL with a control
// character in it, and the URL it quotes.
var urlControlCharacter = regexp.MustCompile(`parse ("(?:[^"\\]|\\.)*"): net/url: invalid control character in URL`)

// statMissing is os's words for a path that is not there.
var statMissing = regexp.MustCompile(`(?:stat|open|lstat) (.+?): no such file or directory`)

// kubeconfigError is the one error of a kubeconfig that cannot be loaded
// or used (an unknown context, an auth-provider client-go no longer has, bad
// certificate data, a credential plugin that fails): exit 2 in every
// command.
func kubeconfigError(err error, names kubeconfigNames) error {
	// Bounded: client-go quotes a --context or --user value whole.
	msg := text.Shorten(strings.TrimPrefix(diagnose.WithoutLibraryWords(text.OneLine(err.Error())), "cannot build API client: "), 512)
	if e := unreadableFile(msg, names.files); e != nil {
		return e
	}
	switch {
	case kubeconfigFixes[diagnose.KubeconfigProblemOf(msg)] != "":
		// A field's value client-go refused: the fix names the field.
		return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig: %s: %s", msg, kubeconfigFixes[diagnose.KubeconfigProblemOf(msg)]))
	case strings.Contains(msg, `auth info "`) && strings.Contains(msg, "does not exist") && len(names.users) > 0:
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: choose a user with --user: %s (kubectl config view)", msg, text.Shorten(strings.Join(names.users, ", "), 512)))
	case strings.Contains(msg, `cluster "`) && (strings.Contains(msg, "does not exist") || strings.Contains(msg, "no server found for cluster")) && len(names.clusters) > 0:
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: choose a cluster with --cluster: %s (kubectl config get-clusters)", msg, text.Shorten(strings.Join(names.clusters, ", "), 512)))
	case diagnose.KubeconfigNamesContext(msg) && len(names.contexts) > 0:
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: choose a context with --context: %s (kubectl config get-contexts)", msg, text.Shorten(strings.Join(names.contexts, ", "), 512)))
	case diagnose.IsMissingAuthProvider(msg):
		return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig's credentials: %s: client-go has no built-in auth-provider any more; use a credential exec plugin instead (kubelogin for oidc, gke-gcloud-auth-plugin for gcp), or --token", msg))
	case isCredentialPluginError(err):
		return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig's credentials: %s: check the exec command of the kubeconfig's user (it must be installed and work on its own), or use --token", msg))
	case diagnose.IsUnsendableCredential(err):
		return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig's credentials: the token holds a control character (a newline, ESC, ...), which no HTTP header may carry: fix the token of the kubeconfig's user (or what its exec plugin prints), or use --token"))
	case strings.Contains(msg, "root certificates") || strings.Contains(msg, "PEM") || strings.Contains(msg, "x509:") || strings.Contains(msg, "tls: "):
		// Certificate data the kubeconfig or a flag gave: the fix is that
		// data, not another kubeconfig (fresh user try 11).
		return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig's certificates: %s: check --certificate-authority, --client-certificate and --client-key (or certificate-authority, client-certificate and client-key, and their -data forms, in the kubeconfig): each must hold PEM data", msg))
	case urlControlCharacter.MatchString(msg):
		// net/url's words, of a server or proxy-url as the kubeconfig
		// or a flag wrote it: the URL quoted before them is redacted.
		msg = urlControlCharacter.ReplaceAllString(msg, "$1 holds a control character (ESC, a newline, ...), which no URL may hold")
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: fix server or proxy-url of the kubeconfig's cluster (kubectl config view), or give the server with --server", msg))
	case errors.Is(err, fs.ErrNotExist) || strings.Contains(msg, "no such file or directory"):
		// A path was given (--kubeconfig or KUBECONFIG) and is not there:
		// "pass --kubeconfig" is no advice to someone who just did.
		// os's "stat PATH: no such file or directory" in words (fresh
		// user try 39 F3).
		msg = statMissing.ReplaceAllString(msg, "$1 does not exist")
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: check the path given with --kubeconfig or in KUBECONFIG (kubectl config view shows what loads)", msg))
	case diagnose.IsNoKubeconfigFile(msg):
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: the file is no kubeconfig: fix it (kubectl config view), or point --kubeconfig or KUBECONFIG at your kubeconfig", msg))
	case diagnose.IsNoKubeconfigLoaded(msg):
		return withCode(ExitUsage, fmt.Errorf("cannot load kubeconfig: %s: pass --kubeconfig, set KUBECONFIG, or use --server and --token", msg))
	}
	// The kubeconfig loaded, from the path given: its values are what to
	// check (adversary try 22 F10).
	return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig: %s: check its values (kubectl config view shows what loads)", msg))
}

// kubeconfigNames are the kubeconfig's contexts, users and clusters, for
// the fix of a --context, --user or --cluster it does not have.
type kubeconfigNames struct {
	contexts, users, clusters []string
	files                     []referencedFile // the files it and the flags name
}

// isCredentialPluginError: client-go's exec authenticator failed, at the
// first request rather than when the client was built. It is the
// kubeconfig's failure like any other.
func isCredentialPluginError(err error) bool {
	return diagnose.IsCredentialPluginError(err)
}

// exitCode maps an error to its documented exit code.
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var te *render.TemplateError
	if errors.As(err, &te) {
		return ExitUsage // -o jsonpath or go-template failed on the output
	}
	if code, ok := partialExitCode(err); ok {
		return code
	}
	switch diagnose.ClassifyFailure(err) {
	case diagnose.FailureCredentials:
		return ExitUsage
	case diagnose.FailureUnreachable, diagnose.FailureNoAnswer, diagnose.FailureConnectionBroken:
		// A connection lost mid-answer is lost like one never made.
		return ExitUnreachable
	case diagnose.FailureBadRequest:
		return ExitUsage
	case diagnose.FailureTLS:
		return ExitTLS
	case diagnose.FailureUnauthorized:
		return ExitUnauthorized
	case diagnose.FailureForbidden:
		return ExitForbidden
	case diagnose.FailureThrottled:
		return ExitThrottled
	case diagnose.FailureNotFound:
		return ExitNotFound
	case diagnose.FailureExpired, diagnose.FailureTooLarge:
		return ExitRVProblem
	case diagnose.FailureUnbounded:
		return ExitUnbounded
	}
	return ExitFailure
}

// withoutRetryAdvice is err's one-line message without the libraries'
// words the plugin's own make redundant (diagnose.WithoutLibraryWords):
// client-go's "Please retry" (a retry is the plugin's to judge, and an
// answer past its bounds comes again), net/http's note of its timer.
func withoutRetryAdvice(err error) string {
	return diagnose.WithoutLibraryWords(text.OneLine(err.Error()))
}

// withFlagName is err said of the flag that gave its value ("--max-watchers
// "svc.v1=6": the server doesn't have ..."), with err's exit code.
func withFlagName(err error, flag string) error {
	return withCode(exitCode(err), fmt.Errorf("%s: %w", flag, err))
}
