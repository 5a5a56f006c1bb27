//go:build e2e

package streaming

import (
	"net/url"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

const gadgetsPath = "/apis/" + framework.ExtensionGroup + "/" + framework.ExtensionVersion + "/namespaces/" + framework.ExtensionNamespace + "/" + framework.ExtensionResource

// requestsSince returns the queries of the extension server's requests on
// the gadgets collection made after n earlier requests.
func requestsSince(n int) []url.Values {
	var out []url.Values
	for _, r := range agg.Extension.Requests()[n:] {
		if r.Path == gadgetsPath {
			q, _ := url.ParseQuery(r.RawQuery)
			out = append(out, q)
		}
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
