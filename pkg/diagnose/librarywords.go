package diagnose

import (
	"regexp"
	"strconv"
	"strings"
)

// Library words that say nothing a user can act on, once the plugin has
// said the same in its own (adversary tries 14 and 15): client-go's advice
// on a body it could not read ("... Please retry. Original error: "),
// whose fix is the plugin's to give; and net/http's note of its own timer
// on a request whose time bound the plugin names ("no answer within 3s,
// the request's time bound (Client.Timeout exceeded while awaiting
// headers)").
var (
	clientGoRetryAdvice = regexp.MustCompile(`(unexpected error when reading response body|stream error when reading response body, may be caused by closed connection)\. Please retry\. Original error: `)
	netHTTPTimerNote    = regexp.MustCompile(` \((Client\.Timeout exceeded while awaiting headers|Client\.Timeout or context cancellation while reading body)\)`)
)

// WithoutLibraryWords is msg without those words, and with client-go's
// refusal of a credential plugin's output in a user's terms. net/http's note goes
// only where the plugin's own words of the time bound are there.
func WithoutLibraryWords(msg string) string {
	msg = clientGoRetryAdvice.ReplaceAllString(msg, "")
	msg = credentialPluginWords(msg)
	if strings.Contains(msg, "the request's time bound") || strings.Contains(msg, ", what was left of ") {
		msg = netHTTPTimerNote.ReplaceAllString(msg, "")
	}
	return msg
}

// execDecodeRefusal is client-go's refusal of what a credential plugin
// printed (exec.go: "decoding stdout: %v"): either the kind and apiVersion
// it named are not a kind client-go reads (the scheme's words, with its Go
// source position), groups 1 (the kind, quoted) and 2 (the apiVersion,
// quoted), or it was not JSON of an object (encoding/json's words, with a
// Go struct type, to the end of the message: client-go's error is the last
// of the chain), groups empty.
var execDecodeRefusal = regexp.MustCompile(`decoding stdout: (?:no kind (` + quoted + `) is registered for version (` + quoted + `) in scheme ` + quoted + `|couldn't get version/kind; json parse error: .*$)`)

// execNoAPIVersion is client-go's refusal of an answer without apiVersion:
// decoded, it has the scheme's internal version, which client-go names
// ("plugin returned version client.authentication.k8s.io/__internal"), a
// version no plugin printed. Group 1: the kubeconfig's exec.apiVersion.
var execNoAPIVersion = regexp.MustCompile(`exec plugin is configured to use API version (\S+), plugin returned version \S+/__internal`)

// credentialPluginWords is msg with client-go's refusal of a credential
// plugin's output said in a user's terms: the scheme's source position,
// its internal version and encoding/json's Go types say nothing a user
// can act on (adversary try 21: "in scheme \"pkg/runtime/scheme.go:111\"";
// try 22 F11: a kind other than ExecCredential, and no apiVersion).
func credentialPluginWords(msg string) string {
	msg = execNoAPIVersion.ReplaceAllString(msg, "the credential plugin printed an answer with no apiVersion, where the kubeconfig's exec.apiVersion is $1: the plugin must print an ExecCredential of apiVersion $1")
	return execDecodeRefusal.ReplaceAllStringFunc(msg, func(m string) string {
		v := execDecodeRefusal.FindStringSubmatch(m)
		if v[1] == "" {
			return "the credential plugin printed what is not an ExecCredential (a JSON object with apiVersion client.authentication.k8s.io/v1 and kind ExecCredential)"
		}
		if kind, err := strconv.Unquote(v[1]); err == nil && kind == "ExecCredential" {
			return "the credential plugin printed an ExecCredential of apiVersion " + v[2] + ", which this client does not read (it reads client.authentication.k8s.io/v1 and v1beta1)"
		}
		return "the credential plugin printed kind " + v[1] + " of apiVersion " + v[2] + ", where an ExecCredential is wanted (kind ExecCredential, apiVersion client.authentication.k8s.io/v1 or v1beta1)"
	})
}
