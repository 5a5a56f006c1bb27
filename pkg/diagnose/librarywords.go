package diagnose

import (
	"regexp"
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
// printed (exec.go: "decoding stdout: %v"): either the apiVersion it named
// is not one client-go reads (the scheme's words, with its Go source
// position), group 1, or it was not JSON of an object (encoding/json's
// words, with a Go struct type, to the end of the message: client-go's
// error is the last of the chain), group 1 empty.
var execDecodeRefusal = regexp.MustCompile(`decoding stdout: (?:no kind "ExecCredential" is registered for version ("(?:[^"\\]|\\.)*") in scheme "(?:[^"\\]|\\.)*"|couldn't get version/kind; json parse error: .*$)`)

// credentialPluginWords is msg with client-go's refusal of a credential
// plugin's output said in a user's terms: the scheme's source position
// and encoding/json's Go types say nothing a user can act on (adversary
// try 21: "in scheme \"pkg/runtime/scheme.go:111\"").
func credentialPluginWords(msg string) string {
	return execDecodeRefusal.ReplaceAllStringFunc(msg, func(m string) string {
		if v := execDecodeRefusal.FindStringSubmatch(m); v[1] != "" {
			return "the credential plugin printed an ExecCredential of apiVersion " + v[1] + ", which this client does not read (it reads client.authentication.k8s.io/v1 and v1beta1)"
		}
		return "the credential plugin printed what is not an ExecCredential (a JSON object with apiVersion client.authentication.k8s.io/v1 and kind ExecCredential)"
	})
}
