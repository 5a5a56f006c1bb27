//go:build e2e

package bounds

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAnswersNoServerGivesAreNamedAndBounded (adversary try 10): a 101
// upgrade, a 204, a Status sent as a 200 list, a Status whose code is not
// its HTTP status, a 410 whose body never ends, ERROR events whose object
// is no Status. Each ends every command within its time, with one error
// line that names the server and the request, and the exit code of what
// the answer was: never a hang, never "the connection broke" for an
// answer that came whole, never an ERROR called "200 OK".
func TestAnswersNoServerGivesAreNamedAndBounded(t *testing.T) {
	const within = 30 * time.Second
	named := []string{"the API server at http://127.0.0.1:", " answered "}
	unreadable := append([]string{"with a body that cannot be read: ", "!broke", "!cannot reach"}, named...)
	commands := [][]string{
		{"list", "cm", "--request-timeout", "5s"}, {"list", "cm", "--rv-only", "--request-timeout", "5s"},
		{"watch", "cm", "--timeout", "5s"}, {"probe", "cm", "--request-timeout", "5s"},
	}
	var cases []faultCase
	for _, args := range commands {
		empty := unreadable
		if args[0] == "watch" {
			// A 204 to a watch is a watch ended at once, without an event.
			empty = []string{"ended the watch", "at once", "!broke", "!cannot reach"}
		}
		cases = append(cases,
			faultCase{framework.FaultUpgrade, args, 1, append([]string{"101 Switching Protocols"}, unreadable...), within},
			faultCase{framework.FaultNoContent, args, 1, empty, within},
			faultCase{framework.FaultCodeMismatch, args, 9, append([]string{"404 Not Found: boom from server", "!200 OK"}, named...), within},
			faultCase{framework.FaultProtobufText, args, 9, append([]string{"404 Not Found: boom from the proxy", "!could not find the requested resource"}, named...), within},
			faultCase{framework.FaultStatusNoFailure, args, 7, []string{"boom from server", "!unknown"}, within},
			// net/http's limit of an answer's headers is one of the
			// plugin's bounds: its class, exit code and words.
			faultCase{framework.FaultHugeHeaders, args, 13, []string{"the headers of the answer to GET http://127.0.0.1:", "went past 10 MiB", "!server response headers exceeded"}, within},
			faultCase{framework.FaultEndlessEarlyHints, args, 13, []string{"the headers of the answer to GET http://127.0.0.1:", "went past 10 MiB", "1xx", "!server response headers exceeded"}, within},
		)
	}
	cases = append(cases,
		faultCase{framework.FaultUpgrade, []string{"top", "--once", "--interval", "1s", "--request-timeout", "3s"}, 1, append([]string{"101 Switching Protocols"}, unreadable...), within},
		faultCase{framework.FaultStatusInList, []string{"list", "cm"}, 10, []string{"too old resource version: 5 (100)", "!not stored in etcd"}, within},
		faultCase{framework.FaultStatusInList, []string{"list", "cm", "--rv-only"}, 10, []string{"too old resource version: 5 (100)"}, within},
		faultCase{framework.FaultStatusInList, []string{"probe", "cm"}, 10, []string{"too old resource version: 5 (100)"}, within},
		// The list of --rv list got the 410: no watch was sent, so none
		// "ended" and none "asked for the events after" an RV.
		faultCase{framework.FaultStatusInList, []string{"watch", "cm", "--rv", "list", "--timeout", "5s"}, 10, []string{"too old resource version: 5 (100)", "!the watch ended", "!the watch asked"}, within},
		faultCase{framework.FaultStatusInList, []string{"watch", "cm", "--rv", "list", "--follow", "--timeout", "5s"}, 10, []string{"too old resource version: 5 (100)", "!the watch ended", "!the watch asked"}, within},
		// The 410's status came at once; its body never does: the list
		// ends at --request-timeout as a 410 (exit 10), never "no answer";
		// the watch the same, at its --timeout or, with no --timeout, at
		// the bound of an error body (its client has no request timeout).
		faultCase{framework.FaultTrickleErrorBody, []string{"watch", "cm", "--rv", "5", "--timeout", "3s"}, 10, []string{"the answer's status came, its body did not", "!no answer", "!no response headers"}, within},
		faultCase{framework.FaultTrickleErrorBody, []string{"watch", "cm", "--rv", "5", "--request-timeout", "3s"}, 10, []string{"the answer's status came, its body did not", "!no answer", "!no response headers"}, within},
		faultCase{framework.FaultTrickleErrorBody, []string{"watch", "cm", "--rv", "5"}, 10, []string{"the answer's status came, its body did not", "within 10s", "!no answer"}, within},
		faultCase{framework.FaultTrickleErrorBody, []string{"list", "cm", "--request-timeout", "3s"}, 10, []string{"the answer's status came, its body did not", "!no answer", "!no response headers"}, within},
	)
	for _, args := range [][]string{{"list", "cm"}, {"probe", "cm"}, {"watch", "cm", "--rv", "list", "--timeout", "5s"}} {
		cases = append(cases, faultCase{framework.FaultListEndsEarly, args, 1, append([]string{"ended after"}, unreadable...), within})
	}
	for _, v := range []string{"string-code", "configmap", "null"} {
		cases = append(cases, faultCase{framework.FaultErrorEvent(v), []string{"watch", "cm", "--rv", "5", "--timeout", "5s"}, 1, append([]string{"ERROR event"}, unreadable...), within})
	}
	// A core discovery document (GET /api/v1) that fails in any way: the
	// type cannot be looked up, never "doesn't have a resource type" (exit
	// 9), and never client-go's words "unable to retrieve the complete
	// list of server APIs" (adversary try 11).
	notUnknown := []string{"discovery", "!doesn't have a resource type", "!unable to retrieve the complete list"}
	for _, v := range []struct {
		variant string
		code    int
		words   []string
	}{
		{"503", 1, []string{"503", "boom from server"}},
		{"403", 7, []string{"forbidden"}},
		{"empty", 1, []string{"is not a discovery document"}},
		{"204", 1, []string{"is not a discovery document"}},
		{"cut", 1, []string{"is not a discovery document"}},
	} {
		for _, args := range [][]string{{"list", "cm"}, {"watch", "cm", "--timeout", "5s"}, {"probe", "cm"}, {"streaming", "cm"}, {"streaming", "--all"}, {"probe", "--all"}} {
			cases = append(cases, faultCase{framework.FaultCoreDiscovery(v.variant), args, v.code, append(append([]string{}, v.words...), notUnknown...), within})
		}
	}
	// A root document (/api, /apis) that fails: the server's own words
	// and the class of its status, never client-go's texts for them.
	for _, v := range []struct {
		variant string
		code    int
		words   []string
	}{
		{"api-503", 1, []string{"503", "api down", "!currently unable to handle"}},
		{"apis-403", 7, []string{"apis forbidden for you", "!unknown"}},
		{"api-504", 4, []string{"504", "raise --request-timeout", "!time allotted"}},
		{"api-html", 1, []string{"502 Bad Gateway", "lb says bad gateway", "!InternalError", "!(\"unknown\")"}},
		// A 200 or 204 without a body is an empty answer, not JSON that
		// ends half way (adversary try 15, F9); a cut one is. Which root
		// it was client-go does not say; the run's kept documents do
		// (adversary try 17).
		{"api-204", 1, []string{"GET /api is not a discovery document", "body is empty", "!half way"}},
		{"apis-204", 1, []string{"GET /apis is not a discovery document", "body is empty", "!half way"}},
		{"api-empty", 1, []string{"GET /api is not a discovery document", "body is empty", "!half way"}},
		{"apis-empty", 1, []string{"GET /apis is not a discovery document", "body is empty", "!half way"}},
		{"api-cut", 1, []string{"GET /api is not a discovery document", "ends half way"}},
		{"apis-cut", 1, []string{"GET /apis is not a discovery document", "ends half way"}},
	} {
		for _, args := range [][]string{{"list", "cm"}, {"watch", "cm", "--timeout", "5s"}, {"probe", "cm"}, {"streaming", "--all"}} {
			cases = append(cases, faultCase{framework.FaultRootDiscovery(v.variant), args, v.code, append(append([]string{}, v.words...), notUnknown...), within})
		}
	}
	// An ERROR event is said as the event it was, not as an answer
	// (watch/TestAnErrorEventIsSaidOnceAsTheEventItWas).
	cases = append(cases, faultCase{framework.FaultErrorEvent("code-200"), []string{"watch", "cm", "--rv", "5", "--timeout", "5s"}, 1, append([]string{"boom from server", "!200 OK", "check the API server's logs", "ended with an ERROR event from", "!answered"}, named[0]), within})
	// Reason Expired with a code that is no HTTP error code: said as sent,
	// exit 1, never a 410 or Gone invented (adversary: "Expired (Gone):
	// too old: 410 Gone for RV 100", exit 10).
	for _, v := range []struct{ variant, code string }{{"expired-200", "200"}, {"expired-999", "999"}, {"expired--5", "-5"}, {"expired-0", "0"}} {
		for _, follow := range [][]string{nil, {"--follow"}} {
			args := append([]string{"watch", "cm", "--rv", "5", "--timeout", "5s"}, follow...)
			cases = append(cases, faultCase{framework.FaultErrorEvent(v.variant), args, 1, []string{"ended with an ERROR event from", ": " + v.code + " Expired: boom from server", "!410 ", "!Gone", "!answered"}, within})
		}
	}
	// Reason Expired and no code, absent or null: the code is said
	// missing, never as a 0 (adversary: "ERROR event from ...: 0 Expired:
	// too old"), and exits 1 ("other"), in every command that reads a
	// watch's events.
	for _, variant := range []string{"expired-absent", "expired-null"} {
		for _, follow := range [][]string{nil, {"--follow"}} {
			args := append([]string{"watch", "cm", "--rv", "5", "--timeout", "5s"}, follow...)
			cases = append(cases, faultCase{framework.FaultErrorEvent(variant), args, 1, []string{"ended with an ERROR event from", "whose Status carries no code: Expired: boom from server", "!0 Expired", "!410", "!Gone", "!answered"}, within})
		}
		for _, args := range [][]string{{"probe", "cm", "--request-timeout", "5s"}, {"streaming", "cm", "--request-timeout", "5s"}} {
			cases = append(cases, faultCase{framework.FaultErrorEvent(variant), args, 1, []string{"no code", "boom from server", "!0 Expired", "!code 0", "!410", "!Gone"}, within})
		}
	}
	// And a 0 sent is a 0, never said missing.
	for _, args := range [][]string{{"probe", "cm", "--request-timeout", "5s"}, {"streaming", "cm", "--request-timeout", "5s"}} {
		cases = append(cases, faultCase{framework.FaultErrorEvent("expired-0"), args, 1, []string{"0 Expired", "boom from server", "!no code", "!410", "!Gone"}, within})
	}
	runFaultCases(t, cases, memoryLimit)
}
