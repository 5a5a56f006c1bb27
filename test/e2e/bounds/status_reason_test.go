//go:build e2e

package bounds

import (
	"fmt"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// An error answer is classified by its HTTP status, whatever reason its
// Status gives (a proxy's or an aggregated server's Status may say
// "InternalError" on a 401): every command exits with the status's code
// (adversary try 16: a 401 or 403 whose reason was InternalError exited 1).
func TestAnAnswerIsClassifiedByItsStatusNotItsReason(t *testing.T) {
	exit := map[int]int{401: 6, 403: 7, 404: 9, 409: 1, 429: 8, 500: 1, 501: 1, 503: 1}
	for _, code := range []int{401, 403, 404, 409, 429, 500, 501, 503} {
		// The Status's reason and code say another status than the
		// answer's: InternalError on a 4xx, Unauthorized (401) on a 5xx
		// (adversary try 17: a 500 exited 6, "rejected the credentials").
		reason, inBody := "InternalError", code
		switch {
		case code >= 500:
			reason, inBody = "Unauthorized", 401
		case code == 409:
			reason = "Forbidden" // a 409 is no RBAC refusal (adversary try 18)
		}
		st := framework.ScriptAnswer{Code: code, Type: "application/json", Body: fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from a proxy","reason":%q,"code":%d}`, reason, inBody)}
		for _, c := range []struct {
			path string
			args []string
		}{
			{"/api/v1/namespaces/default/configmaps", []string{"list", "cm"}},
			{"/api/v1/namespaces/default/configmaps", []string{"probe", "cm"}},
			{"/api/v1/namespaces/default/configmaps?watch", []string{"watch", "cm", "--timeout", "3s"}},
			{"/apis/apps/v1", []string{"list", "deployments"}},
		} {
			t.Run(fmt.Sprintf("%d %v", code, c.args), func(t *testing.T) {
				_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{c.path: st})
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, append(c.args, "--request-timeout", "3s")...)
				checkRun(t, r, faultCase{framework.Fault("script"), c.args, exit[code], []string{"boom from a proxy"}, 30 * time.Second})
			})
		}
	}
}
