package diagnose

import (
	"regexp"
	"strings"
)

// KubeconfigProblem is the field, or pair of fields, of a kubeconfig whose
// value client-go refused, read from its words (clientcmd's validation,
// its exec authenticator, its token file source), which name neither the
// field to change nor how: cmd gives each its fix (adversary try 22 F10:
// each fell to the advice for a kubeconfig that did not load, "pass
// --kubeconfig, set KUBECONFIG, or use --server and --token", no advice to
// someone whose kubeconfig loaded, from the right path).
type KubeconfigProblem string

const (
	// ImpersonationWithoutUser: as-uid, as-groups or as-user-extra (or
	// their flags) without as.
	ImpersonationWithoutUser KubeconfigProblem = "impersonation without a user"
	// ExecAPIVersionUnknown: exec.apiVersion is none client-go reads.
	ExecAPIVersionUnknown KubeconfigProblem = "exec.apiVersion unknown"
	ExecAPIVersionMissing KubeconfigProblem = "exec.apiVersion missing"
	ExecCommandMissing    KubeconfigProblem = "exec.command missing"
	ExecEnvWithoutName    KubeconfigProblem = "exec.env without a name"
	// ExecInteractiveMode: missing, or none of Never, IfAvailable, Always.
	ExecInteractiveMode       KubeconfigProblem = "exec.interactiveMode"
	AuthProviderAndExec       KubeconfigProblem = "auth-provider and exec"
	AuthMethodsMany           KubeconfigProblem = "several authentication methods"
	ClientKeyMissing          KubeconfigProblem = "client-key missing"
	ClientCertificateTwice    KubeconfigProblem = "client-certificate and its data"
	ClientKeyTwice            KubeconfigProblem = "client-key and its data"
	CertificateAuthorityTwice KubeconfigProblem = "certificate-authority and its data"
	ProxyURLInvalid           KubeconfigProblem = "proxy-url invalid"
	// TokenFileEmpty: the tokenFile holds no token (empty, or only
	// whitespace, which client-go trims).
	TokenFileEmpty KubeconfigProblem = "tokenFile empty"
)

// quoted is a value client-go quotes (%q): its words cannot start inside it.
const quoted = `"(?:[^"\\]|\\.)*"`

// kubeconfigProblems are client-go's words of each problem.
var kubeconfigProblems = []struct {
	words   *regexp.Regexp
	problem KubeconfigProblem
}{
	{regexp.MustCompile(`requesting uid, groups or user-extra for .*? without impersonating a user`), ImpersonationWithoutUser},
	{regexp.MustCompile(`exec plugin: invalid apiVersion ` + quoted), ExecAPIVersionUnknown},
	{regexp.MustCompile(`apiVersion must be specified for .*? to use exec authentication plugin`), ExecAPIVersionMissing},
	{regexp.MustCompile(`command must be specified for .*? to use exec authentication plugin`), ExecCommandMissing},
	{regexp.MustCompile(`env variable name must be specified for .*? to use exec authentication plugin`), ExecEnvWithoutName},
	{regexp.MustCompile(`(interactiveMode must be specified|invalid interactiveMode) for `), ExecInteractiveMode},
	{regexp.MustCompile(`authProvider cannot be provided in combination with an exec plugin`), AuthProviderAndExec},
	{regexp.MustCompile(`more than one authentication method found for .*?; found \[.*?\], only one is allowed`), AuthMethodsMany},
	{regexp.MustCompile(`client-key-data or client-key must be specified for .*? to use the clientCert authentication method`), ClientKeyMissing},
	{regexp.MustCompile(`client-cert-data and client-cert are both specified`), ClientCertificateTwice},
	{regexp.MustCompile(`client-key-data and client-key are both specified`), ClientKeyTwice},
	{regexp.MustCompile(`certificate-authority-data and certificate-authority are both specified`), CertificateAuthorityTwice},
	{regexp.MustCompile(`invalid 'proxy-url' ` + quoted + ` for cluster `), ProxyURLInvalid},
	{regexp.MustCompile(`read empty token from file ` + quoted), TokenFileEmpty},
}

// KubeconfigProblems lists every problem KubeconfigProblemOf reads (cmd's
// test checks each has its fix).
func KubeconfigProblems() []KubeconfigProblem {
	all := make([]KubeconfigProblem, 0, len(kubeconfigProblems))
	for _, p := range kubeconfigProblems {
		all = append(all, p.problem)
	}
	return all
}

// KubeconfigProblemOf is the problem client-go's words in msg tell ("":
// none of them). Where client-go lists several, the first it lists.
func KubeconfigProblemOf(msg string) KubeconfigProblem {
	first, problem := -1, KubeconfigProblem("")
	for _, p := range kubeconfigProblems {
		if loc := p.words.FindStringIndex(msg); loc != nil && (first < 0 || loc[0] < first) {
			first, problem = loc[0], p.problem
		}
	}
	return problem
}

// IsNoKubeconfigLoaded: msg says that no kubeconfig was loaded
// (clientcmd.ErrEmptyConfig): where the kubeconfig is, is what to fix.
func IsNoKubeconfigLoaded(msg string) bool {
	return strings.Contains(msg, "no configuration has been provided")
}

// IsNoKubeconfigFile: msg says that a file loaded as a kubeconfig is none
// (clientcmd's loader: "error loading config file", with the YAML or JSON
// reader's words).
func IsNoKubeconfigFile(msg string) bool {
	return strings.Contains(msg, "error loading config file ")
}
