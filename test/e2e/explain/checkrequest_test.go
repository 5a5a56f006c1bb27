//go:build e2e

package explain

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// --check sends the request the error answered, as the text's URL or
// --operation names it, whatever the Expired kind's words: an exact list is
// retried as that exact list, a watch as a watch, a list as a list not
// older than the RV (adversary: a watch cache's "too old resource version:
// 5 (100)" from an exact list was checked with a watch, and "a watch from
// RV 5 works" lowered the text). The scripted server records every
// request: the ones at the text's RV must all be the named request.
func TestCheckSendsTheRequestTheErrorNames(t *testing.T) {
	const base = "https://127.0.0.1:18081/api/v1/namespaces/default/configmaps"
	const path = "/api/v1/namespaces/default/configmaps"
	messages := []string{
		"too old resource version: 5 (100)",                      // WatchCacheWindow
		"too old resource version: 5",                            // WatchCacheSnapshot
		"The resourceVersion for the provided list is too old.",  // EtcdCompactedExactList
		"The resourceVersion for the provided watch is too old.", // EtcdCompactedWatch
		"etcdserver: mvcc: required revision has been compacted", // EtcdCompacted
	}
	ops := []struct {
		op, url, verb string
		want          func(q url.Values) bool
		says          string
	}{
		{"list-exact", base + "?resourceVersion=5&resourceVersionMatch=Exact", "list",
			func(q url.Values) bool { return q.Get("watch") == "" && q.Get("resourceVersionMatch") == "Exact" }, "an exact list at RV 5"},
		{"watch", base + "?resourceVersion=5&watch=true", "watch",
			func(q url.Values) bool { return q.Get("watch") != "" }, "a watch from RV 5"},
		// A list refused as too old read at the exact RV (client-go's
		// pager sends a limit: the legacy rule makes it exact): no list
		// not older than an RV is ever refused as too old.
		{"list", base + "?limit=500&resourceVersion=5", "list",
			func(q url.Values) bool { return q.Get("watch") == "" && q.Get("resourceVersionMatch") == "Exact" }, "an exact list at RV 5"},
	}
	for _, m := range messages {
		for _, o := range ops {
			for _, form := range []string{"url", "operation"} {
				var args []string
				if form == "url" {
					args = []string{fmt.Sprintf("failed to %s *v1.ConfigMap: Get %q: %s", o.verb, o.url, m)}
				} else {
					args = []string{"--operation", o.op, "--rv", "5", m}
				}
				name := fmt.Sprintf("%s / %s by %s", m, o.op, form)
				s, kc := framework.ServeScript(t, nil)
				r := framework.Run(t, kc, time.Minute, append([]string{"explain-error", "--check"}, args...)...)
				var atRV, wrong []string
				for _, req := range s.AskedRequests() {
					p, raw, _ := strings.Cut(req, "?")
					q, _ := url.ParseQuery(raw)
					if p != path || q.Get("resourceVersion") != "5" {
						continue
					}
					atRV = append(atRV, req)
					if !o.want(q) {
						wrong = append(wrong, req)
					}
				}
				if len(atRV) == 0 || len(wrong) > 0 {
					t.Errorf("%s: the server got %q at RV 5 (not %s: %q)\nexit %d\n%s%s", name, atRV, o.op, wrong, r.Code, r.Stdout, r.Stderr)
					continue
				}
				out := strings.Join(strings.Fields(r.Stdout), " ")
				if !strings.Contains(out, o.says) || (o.op != "watch" && strings.Contains(out, "a watch from RV")) {
					t.Errorf("%s: the output does not say it tried %s:\n%s", name, o.says, r.Stdout)
				}
			}
		}
	}
}
