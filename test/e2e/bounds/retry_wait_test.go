//go:build e2e

package bounds

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// retryPage1 is a one-item first page whose continue token is page 2's.
const retryPage1 = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"400","continue":"1","remainingItemCount":1},"items":[{"metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"300"}}]}`

// transferTime is the transfer's own time of the human Transfer line.
var transferTime = regexp.MustCompile(`Transfer:\s+\S+ \S+ decoded in ([0-9.]+) (ms|s)`)

// A time shown as the transfer's is only the transfer's: the wait before
// a page sent again (the one retry policy's backoff: 0.25 s doubling to
// 4 s over 5 retries, 7.75 s) is said apart, with the retries, in every
// output, never counted in it (adversary try 24 F5: "275 B decoded in
// 7.85 s" of a page read in 2 ms, the retries shown only with -v).
func TestARetryWaitIsSaidApartFromTheTransfer(t *testing.T) {
	_, kc := framework.ServeScriptPageAnswers(t, "/api/v1/namespaces/default/configmaps",
		[]framework.ScriptAnswer{{Code: 200, Type: "application/json", Body: retryPage1}, timeoutFilter504}, nil)
	for _, format := range []string{"human", "json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			args := []string{"list", "cm", "--limit", "1"}
			if format != "human" {
				args = append(args, "-o", format)
			}
			r := framework.Run(t, kc, 2*time.Minute, args...)
			if r.Code == 0 {
				t.Fatalf("exit 0 for a page that never answered:\n%s%s", r.Stdout, r.Stderr)
			}
			var transferMs float64
			var wait struct {
				Millis  float64 `json:"ms"`
				Retries int     `json:"retries"`
				Pages   []int   `json:"pages"`
			}
			if format == "human" {
				m := transferTime.FindStringSubmatch(r.Stdout)
				if m == nil {
					t.Fatalf("no Transfer line:\n%s", r.Stdout)
				}
				transferMs, _ = strconv.ParseFloat(m[1], 64)
				if m[2] == "s" {
					transferMs *= 1000
				}
				if !strings.Contains(r.Stdout, "more waiting to send page 2 again after a transient failure (5 retries") {
					t.Errorf("the retry wait and its retries are not said apart:\n%s", r.Stdout)
				}
			} else {
				var rep struct {
					Millis    float64          `json:"ms"`
					RetryWait *json.RawMessage `json:"retryWait"`
				}
				doc := []byte(r.Stdout)
				if format == "yaml" {
					var err error
					if doc, err = yaml.YAMLToJSON(doc); err != nil {
						t.Fatalf("%v:\n%s", err, r.Stdout)
					}
				}
				if err := json.Unmarshal(doc, &rep); err != nil {
					t.Fatalf("%v:\n%s", err, r.Stdout)
				}
				transferMs = rep.Millis
				if rep.RetryWait == nil || json.Unmarshal(*rep.RetryWait, &wait) != nil ||
					wait.Retries != 5 || wait.Millis < 7000 || len(wait.Pages) != 1 || wait.Pages[0] != 2 {
					t.Errorf("retryWait is not the 5 retries of page 2 and their 7.75 s:\n%s", r.Stdout)
				}
			}
			if transferMs >= 3000 {
				t.Errorf("the transfer's time %.1f ms holds the retry wait (7.75 s):\n%s", transferMs, r.Stdout)
			}
		})
	}
}
