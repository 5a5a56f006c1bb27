package diagnose

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
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

// execFieldRefusal is client-go's refusal of an ExecCredential one of
// whose fields has the wrong JSON type (encoding/json's
// UnmarshalTypeError, with Go's struct and type names): group 1 the JSON
// type ("number", or "number 1e999"), 2 the field's JSON path
// ("status.token"), 3 the Go type.
var execFieldRefusal = regexp.MustCompile(`decoding stdout: json: cannot unmarshal (\w+)(?: \S+)? into Go struct field \w*\.(\S+) of type (\S+)`)

// execTimeRefusal is client-go's refusal of a status.expirationTimestamp
// that is no RFC 3339 time (metav1.Time: time.Parse's ParseError, with Go's
// layout "2006-01-02T15:04:05Z07:00"), the ExecCredential's only time:
// group 1 the value, quoted.
var execTimeRefusal = regexp.MustCompile(`decoding stdout: parsing time (` + quoted + `)(?: as ` + quoted + `: cannot parse ` + quoted + ` as ` + quoted + `|: extra text: ` + quoted + `|: [a-z ]+)`)

// execBase64Refusal is client-go's refusal of a []byte field that is no
// base64 (encoding/base64's words, with no field): the ExecCredential's
// only one is spec.cluster.certificate-authority-data.
var execBase64Refusal = regexp.MustCompile(`decoding stdout: illegal base64 data at input byte \d+`)

// jsonTypeOfGo is what a JSON value must be to fill a field of the Go type
// encoding/json names.
func jsonTypeOfGo(goType, field string) string {
	switch {
	case field == "status.expirationTimestamp":
		return "an RFC 3339 time (a string such as 2030-01-02T15:04:05Z)"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case goType == "[]uint8":
		return "a base64 string"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.Trim(goType, "*abcdefghijklmnopqrstuvwxyz0123456789") == "":
		return "a number" // int64, uint32, float64 ...
	}
	return "an object" // a struct or a map
}

// credentialPluginWords is msg with client-go's refusal of a credential
// plugin's output said in a user's terms: the scheme's source position,
// its internal version and encoding/json's Go types say nothing a user
// can act on (adversary try 21: "in scheme \"pkg/runtime/scheme.go:111\"";
// try 22 F11: a kind other than ExecCredential, and no apiVersion; try 23
// F3: a field of the wrong JSON type, "into Go struct field
// ExecCredentialStatus.status.token of type string", and a time that is
// none, with Go's layout): each field by its JSON path, and what it must
// be.
func credentialPluginWords(msg string) string {
	msg = execNoAPIVersion.ReplaceAllString(msg, "the credential plugin printed an answer with no apiVersion, where the kubeconfig's exec.apiVersion is $1: the plugin must print an ExecCredential of apiVersion $1")
	msg = execFieldRefusal.ReplaceAllStringFunc(msg, func(m string) string {
		v := execFieldRefusal.FindStringSubmatch(m)
		return "the credential plugin printed an ExecCredential with a JSON " + v[1] + " as " + v[2] + ": " + v[2] + " must be " + jsonTypeOfGo(v[3], v[2])
	})
	msg = execTimeRefusal.ReplaceAllStringFunc(msg, func(m string) string {
		v := execTimeRefusal.FindStringSubmatch(m)
		return "the credential plugin printed an ExecCredential with " + text.Echo(v[1]) + " as status.expirationTimestamp: status.expirationTimestamp must be " + jsonTypeOfGo("", "status.expirationTimestamp")
	})
	msg = execBase64Refusal.ReplaceAllString(msg, "the credential plugin printed an ExecCredential whose spec.cluster.certificate-authority-data is not base64: spec.cluster.certificate-authority-data must be base64")
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
