//go:build e2e

package bounds

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestServerErrorsNameTheRequest: a server answer the plugin has no words
// of its own for (a 500 "boom", a 503 Status without a reason) ends every
// command with one error line that names the server, the request and the
// status, not the server's message alone.
func TestServerErrorsNameTheRequest(t *testing.T) {
	const within = 30 * time.Second
	named := func(status string) []string {
		return []string{"the API server at http://127.0.0.1:", " answered ", " with " + status + ": ", "check the API server's health"}
	}
	boom, busy := named("500 InternalError"), named("503 Service Unavailable")
	var cases []faultCase
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"list", "cm"}, boom},
		{[]string{"list", "cm", "--rv-only"}, boom},
		{[]string{"list", "cm", "-o", "json"}, boom},
		{[]string{"watch", "cm", "--timeout", "5s"}, busy},
		{[]string{"watch", "cm", "--rv", "list", "--timeout", "5s"}, boom},
		{[]string{"probe", "cm"}, boom},
		{[]string{"top", "--once", "--interval", "1s"}, boom},
	} {
		cases = append(cases, faultCase{framework.FaultServerError, c.args, 1, c.want, within})
	}
	runFaultCases(t, cases, memoryLimit)
}
