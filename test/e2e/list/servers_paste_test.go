//go:build e2e

package list

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// suggestedLine is a command the plugin suggested in its prose: the
// connection flags come last, so the line ends with --kubeconfig PATH (the
// tests' runs give it).
var suggestedLine = regexp.MustCompile(`kubectl watchrv [^()]*?--kubeconfig [^ ();]+`)

// Issue 25, items 2 and 3, on a server without its watch cache
// (--watch-cache=false), named with --endpoints (its EndpointSlices do not
// lead to it): every command the per-server view suggests is whole and
// carries --endpoints, and pasted, it runs; and the reconnect verdict
// says what was measured of the server's cache, never "within every
// cache".
func TestServersSuggestionsPasteWithEndpoints(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	cs, ns := framework.Namespace(t, c, "srv-paste")
	if err := framework.CreateConfigMaps(context.Background(), cs, ns, "cm", 3, 100, 3); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(c.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	endpoints := u.Host
	pasted := 0
	for _, args := range [][]string{
		{"list", "cm", "-n", ns, "--endpoints", endpoints},
		{"probe", "configmaps", "-n", ns, "--endpoints", endpoints},
	} {
		r := framework.Run(t, c.Kubeconfig, 2*time.Minute, args...)
		if r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
		if strings.Contains(r.Stdout, "within every cache") || strings.Contains(r.Stdout, "within the watch cache") {
			t.Errorf("%v: a watch cache claimed on a server without one:\n%s", args, r.Stdout)
		}
		if args[0] == "list" && !strings.Contains(r.Stdout, "no server answers 504 (the RV is at most the one its rv=0 list returned, from its watch cache or, where it has none, from storage)") {
			t.Errorf("%v: the reconnect verdict:\n%s", args, r.Stdout)
		}
		lines := suggestedLine.FindAllString(r.Stdout+r.Stderr, -1)
		if args[0] == "list" && len(lines) == 0 {
			t.Fatalf("%v: no command suggested:\n%s", args, r.Stdout)
		}
		for _, line := range lines {
			if !strings.Contains(line, "--endpoints "+endpoints) {
				t.Errorf("%v suggests %q, without the user's --endpoints", args, line)
			}
			p := framework.RunPasted(t, line, nil, 2*time.Minute)
			if p.Code != 0 {
				t.Errorf("pasted %q: exit %d:\n%s%s", line, p.Code, p.Stdout, p.Stderr)
			}
			pasted++
		}
	}
	t.Logf("%d suggested commands pasted", pasted)
}
