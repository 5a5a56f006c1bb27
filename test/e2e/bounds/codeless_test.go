//go:build e2e

package bounds

import (
	"strconv"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestStatusWithoutCodeIsClassifiedByHTTPStatus: an error answer whose
// Status has no code (nor reason), or that is no Status at all (a proxy's
// HTML), is classified by its HTTP status in every command, so each exits with the code the docs give for that status and
// shows the server's message; none says "a Status without a code" (what
// client-go's own decoding, code 0, led to) or calls the failure a verdict
// about streaming. The fix is one place (the transport); the test walks
// every command over every status a classifier tells apart.
func TestStatusWithoutCodeIsClassifiedByHTTPStatus(t *testing.T) {
	const within = 30 * time.Second
	exit := map[int]int{401: 6, 403: 7, 404: 9, 410: 10, 422: 2, 429: 8, 500: 1}
	// streaming tells a refusal from a verdict: 401, 403 and 429 are about
	// the request, every other refusal is the streaming list's (exit 1).
	streamingExit := map[int]int{401: 6, 403: 7, 404: 1, 410: 1, 422: 1, 429: 8, 500: 1}
	never := []string{"!without a code", "!will hang"}
	// client-go's own words for an answer that is not a Status.
	neverInvented := append([]string{"!the server could not find the requested resource", "!the server rejected our request", "!has prevented the request from succeeding", "!InternalError"}, never...)
	var cases []faultCase
	for _, code := range []int{401, 403, 404, 410, 422, 429, 500} {
		want, f := exit[code], framework.FaultCodeless(code)
		html := framework.FaultHTMLError(code)
		for _, args := range [][]string{
			{"list", "cm"},
			{"list", "cm", "--rv-only"},
			{"list", "cm", "-o", "json"},
			{"list", "cm/a"},
			{"watch", "cm", "--timeout", "5s"},
			{"watch", "cm", "--rv", "list", "--timeout", "5s"},
			{"probe", "cm"},
		} {
			cases = append(cases, faultCase{f, args, want, append([]string{"boom from server"}, never...), within})
			if code != 410 { // a 410 without a Status is not read as an RV's expiry
				cases = append(cases, faultCase{html, args, want, append([]string{"boom from the proxy"}, neverInvented...), within})
			}
		}
		cases = append(cases, faultCase{f, []string{"streaming", "cm", "--deadline", "3s"}, streamingExit[code], append([]string{"re:^error: "}, never...), within})
	}
	// A Status's message of 200 KB: every command shows it bounded.
	for _, args := range [][]string{
		{"list", "cm"}, {"list", "cm", "--rv-only"}, {"list", "cm/a"},
		{"watch", "cm", "--timeout", "5s"}, {"watch", "cm", "--rv", "list", "--timeout", "5s"},
		{"probe", "cm"}, {"streaming", "cm", "--deadline", "3s"},
	} {
		cases = append(cases, faultCase{framework.FaultHugeMessage, args, 1, []string{"boom from server", "bytes left out", "maxline:" + strconv.Itoa(text.MaxLine+1024)}, within})
	}
	// A 200 that does not decode: the line names the server and the
	// request, not only the decoder's words.
	unreadable := []string{"the API server at http://127.0.0.1:", " answered ", "with a body that cannot be read: "}
	for _, args := range [][]string{
		{"list", "cm"}, {"list", "cm", "--rv-only"}, {"list", "cm/a"},
		{"watch", "cm", "--timeout", "5s"}, {"watch", "cm", "--rv", "list", "--timeout", "5s"},
		{"probe", "cm"}, {"streaming", "cm", "--deadline", "3s"}, {"top", "--once", "--interval", "1s"},
		{"probe", "cm", "--metrics"},
	} {
		cases = append(cases, faultCase{framework.FaultUnreadable, args, 1, unreadable, within})
	}
	cases = append(cases, faultCase{framework.FaultHTMLError(502), []string{"version"}, 1, append([]string{"502 Bad Gateway: <html><body><h1>boom from the proxy</h1>"}, neverInvented...), within})
	runFaultCases(t, cases, memoryLimit)
}
