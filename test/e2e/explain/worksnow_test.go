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

// An Expired text whose request works now on a real server (a watch from
// a recent RV replays to the current RV; the watch cache on and off) is
// no fact about "this API server": low, one note that it works here, the
// headline and What/Why/Fix told as the text's claim (adversary try 29 F3:
// "the oldest RV this API server can still serve is 380" stayed high).
func TestCheckedRequestThatWorksIsNoExpiry(t *testing.T) {
	onCacheCells(t, "explain-works", func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64) {
		start := rvA
		w.Create("b", nil)
		e := explain(t, c, nil, "--check", "--resource", "configmaps", "-n", ns, fmt.Sprintf("too old resource version: %d (%d)", start, start+1))
		notes := strings.Join(e.Notes, "\n")
		if e.Confidence != "low" || strings.Count(notes, "works on this server") != 1 || !strings.HasPrefix(e.Summary, "the text says: ") {
			t.Errorf("%s: confidence %s, headline %q, notes %q: want low, one note that it works here, the headline as the text's claim", cell, e.Confidence, e.Summary, e.Notes)
		}
		if e.Check == nil || !strings.Contains(e.Check.Verdict, "works") {
			t.Errorf("%s: the check did not say the watch works: %+v", cell, e.Check)
		}
		claim := fmt.Sprintf("RV %d could no longer be served", start)
		for name, p := range map[string]string{"what": e.What, "why": e.Why, "fix": e.Fix} {
			if !strings.HasPrefix(p, "If ") || !strings.Contains(p, claim) {
				t.Errorf("%s: %s states the expiry as fact:\n%s", cell, name, p)
			}
		}
	})
}

// A TooLarge text checked on a server whose /metrics shows no watch cache
// for the resource: its lag is no watch cache's, so the verdict does not
// name one (fresh user try 29 F6); with a watch cache, the lag verdict
// stands. Neither lowers the text: storage answers a list from an RV it
// has not reached with the same 504 words, so the missing watch cache
// does not contradict them (fresh user try 30 F2: this very server
// answered the same 504 in Checked now, and the Note said the error came
// from "another server or another setup").
func TestCheckedTooLargeWeighsTheWatchCache(t *testing.T) {
	onCacheCells(t, "explain-toolarge", func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64) {
		cur := rvA
		e := explain(t, c, nil, "--check", "--resource", "configmaps", "-n", ns, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur, cur-10))
		off := strings.HasSuffix(cell, "cache-off")
		notes := strings.Join(e.Notes, "\n")
		noted := strings.Contains(notes, "no watch cache for configmaps now")
		if e.Check == nil {
			t.Fatalf("%s: no check", cell)
		}
		catching := strings.Contains(e.Check.Verdict, "a watch cache catching up")
		if noted || catching == off || e.Confidence == "low" {
			t.Errorf("%s: confidence %s, notes %q, verdict %q: want a watch cache blamed only where one serves (%v), and the text not lowered", cell, e.Confidence, e.Notes, e.Check.Verdict, !off)
		}
		if strings.HasPrefix(e.Summary, "the text says: ") {
			t.Errorf("%s: the text's claim is made conditional, though nothing measured contradicts it: %q", cell, e.Summary)
		}
		// The Why names this server's own watch cache as a source only
		// where it has one (fresh user try 44 F2).
		if own := strings.Contains(e.Why, "this server's watch cache still catching up"); own == off {
			t.Errorf("%s: the Why names this server's watch cache as a source: %v, want %v:\n%s", cell, own, !off, e.Why)
		}
		// Its row among the servers (--endpoints: the kubeconfig's own
		// address) says the same of its watch cache: CACHE RV none where
		// it has none, in the table and in -o json (fresh user try 44 F1).
		u, err := url.Parse(c.APIServers[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+10, cur)
		across := explain(t, c, nil, "--check", "--resource", "configmaps", "-n", ns, "--endpoints", u.Host, text)
		want := map[bool]string{true: "off", false: "on"}[off]
		if across.Servers == nil || len(across.Servers.Servers) != 1 || across.Servers.Servers[0].WatchCache != want {
			t.Errorf("%s: --endpoints %s: servers %+v: want its row's watchCache %q", cell, u.Host, across.Servers, want)
		} else if f := strings.Join(across.Servers.Findings, "\n"); strings.Contains(f, "watch cache") && off {
			t.Errorf("%s: a finding names watch caches of a server without one: %s", cell, f)
		}
		if off {
			// Whatever the class asked (fresh user try 45 F1: an Expired
			// text's row said CACHE RV -).
			expired := framework.Run(t, c.Kubeconfig, time.Minute, "explain-error", "--check", "--resource", "configmaps", "-n", ns, "--endpoints", u.Host, fmt.Sprintf("too old resource version: %d (%d)", cur-1, cur))
			if row := strings.Fields(rowOf(expired.Stdout, "1 "+u.Host)); len(row) < 3 || row[2] != "none" {
				t.Errorf("%s: an Expired text's row %q: want CACHE RV none:\n%s%s", cell, row, expired.Stdout, expired.Stderr)
			}
		}
		human := framework.Run(t, c.Kubeconfig, time.Minute, "explain-error", "--check", "--resource", "configmaps", "-n", ns, "--endpoints", u.Host, text)
		row := strings.Fields(rowOf(human.Stdout, "1 "+u.Host))
		if len(row) < 3 || (row[2] == "none") != off {
			t.Errorf("%s: exit %d, row %q: want CACHE RV none only without a watch cache (%v):\n%s", cell, human.Code, row, off, human.Stdout)
		}
		// An RV ahead, checked with a --request-timeout shorter than the
		// watch cache's hold of such a list (fresh user try 41 F2: exit 4
		// "check that the cluster is up"): the check stands, exit 0; the
		// held list is said held where a watch cache holds it, refused
		// at once where storage answers.
		for _, bound := range []string{"2s", "3s"} {
			// 3 s races the hold's own 504 (adversary try 44 F4): held,
			// or refused as the text was; never a failure.
			r := framework.Run(t, c.Kubeconfig, time.Minute, "explain-error", "--check", "--resource", "configmaps", "-n", ns, "--request-timeout", bound, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+50, cur))
			held := strings.Contains(r.Stdout, "was held until")
			if r.Code != 0 || strings.Contains(r.Stdout+r.Stderr, "cluster is up") || held && off || bound == "2s" && held == off {
				t.Errorf("%s: --request-timeout %s: exit %d, held said %v: want 0, and the list held only where a watch cache holds it (%v):\n%s%s", cell, bound, r.Code, held, !off, r.Stdout, r.Stderr)
			}
		}
	})
}

// rowOf is the line of out that starts with prefix, after its indent.
func rowOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
