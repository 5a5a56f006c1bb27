package diagnose

import "strings"

// client-go says what is wrong with a kubeconfig only in words; these read
// them, so that cmd chooses its advice on facts rather than on text.

// KubeconfigNamesContext reports a kubeconfig error about a context (an
// unknown --context, or no current-context).
func KubeconfigNamesContext(msg string) bool { return strings.Contains(msg, "context") }

// IsMissingAuthProvider reports a kubeconfig user whose auth-provider
// client-go no longer builds in (oidc, gcp, azure).
func IsMissingAuthProvider(msg string) bool { return strings.Contains(msg, "no Auth Provider found") }

// IsCredentialPluginError reports that the kubeconfig's credential exec
// plugin failed, however: client-go's exec round tripper wraps every
// failure of it (not found, a non-zero exit, stdout that is not an
// ExecCredential, no status, no token) as "getting credentials: ...", and
// nothing else in client-go writes those words.
func IsCredentialPluginError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "getting credentials: ")
}

// IsUnsendableCredential reports credentials no HTTP header can carry: Go's
// transport refuses a header value with a control byte (a token with a
// newline or ESC, from a file or an exec plugin) before it dials, as
// `net/http: invalid header field value for "Authorization"` (the value is
// never in the message).
func IsUnsendableCredential(err error) bool {
	// HTTP/2 names the header in lower case.
	return err != nil && strings.Contains(strings.ToLower(err.Error()), `invalid header field value for "authorization"`)
}
