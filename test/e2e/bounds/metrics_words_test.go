//go:build e2e

package bounds

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A /metrics that is not read is said so in the plugin's words, in every
// command that reads it: never net/http's or context's ("context deadline
// exceeded" for a read never sent, "(Client.Timeout exceeded while
// awaiting headers)"), never the whole name[] query (adversary and user
// try 17).
func TestMetricsNotReadIsSaidInWords(t *testing.T) {
	hang := framework.ScriptAnswer{Hang: true}
	for _, c := range []struct {
		name   string
		script map[string]framework.ScriptAnswer
		args   []string
		words  string
	}{
		{"version and metrics hang", map[string]framework.ScriptAnswer{"/version": hang, "/metrics": hang}, []string{"list", "cm", "--request-timeout", "2s"}, "/metrics"},
		{"metrics hangs, list", map[string]framework.ScriptAnswer{"/metrics": hang}, []string{"list", "cm", "--request-timeout", "2s"}, "/metrics not read"},
		{"metrics hangs, probe", map[string]framework.ScriptAnswer{"/metrics": hang}, []string{"probe", "cm", "--metrics", "--request-timeout", "2s"}, "watch-cache metrics not shown: GET /metrics ("},
		{"metrics hangs, top", map[string]framework.ScriptAnswer{"/metrics": hang}, []string{"top", "--once", "--interval", "1s", "--request-timeout", "2s"}, "GET /metrics ("},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, kc := framework.ServeScript(t, c.script)
			host := s.Host()
			for _, args := range [][]string{c.args, append(append([]string{}, c.args...), "--endpoints", host)} {
				if args[0] == "list" && len(args) > 4 {
					continue // list --endpoints reads no /metrics
				}
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, args...)
				out := r.Stdout + r.Stderr
				for _, raw := range []string{"context deadline exceeded", "Client.Timeout exceeded", "name%5B%5D", "name[]="} {
					if strings.Contains(out, raw) {
						t.Fatalf("%v: exit %d, raw words %q:\n%s", args, r.Code, raw, out)
					}
				}
				if !strings.Contains(out, c.words) {
					t.Fatalf("%v: exit %d, no %q:\n%s", args, r.Code, c.words, out)
				}
			}
		})
	}
}

// A /metrics past one of its caps names its request as every other
// /metrics failure does (apiclient.RequestName: "GET /metrics (21
// families)"), in every command that reads it: never the 1.3 KB URL of
// its name[] query (adversary try 19: an endless body, too many series, a
// line of 2 MiB, an error body past its cap). Every line stays short.
func TestMetricsPastACapAreNamedShort(t *testing.T) {
	var many strings.Builder
	many.WriteString("# TYPE watch_cache_capacity gauge\n") // a family top and probe both read
	for i := 0; i <= 50_000; i++ {
		fmt.Fprintf(&many, "watch_cache_capacity{group=\"\",resource=\"r%d\"} 100\n", i)
	}
	text := func(body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "text/plain; version=0.0.4", Body: body}
	}
	endless, err := framework.StartFaultServer(framework.FaultEndlessMetrics)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(endless.Close)
	endlessKC, err := endless.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Each command and the request it names: top's 21 families, probe's
	// 12 (the server's version among them); list's own scan of two
	// families names none past its own cap, but its request is named when
	// the transport's cap ends it.
	commands := []struct {
		args  []string
		names string
	}{
		{[]string{"top", "--once", "--interval", "1s"}, "GET /metrics (21 families)"},
		{[]string{"probe", "cm", "--metrics"}, "GET /metrics (12 families)"},
		{[]string{"list", "cm"}, ""},
	}
	for _, c := range []struct {
		name   string
		kc     string
		script map[string]framework.ScriptAnswer
		list   string // what list says, "" its own words
	}{
		{name: "too many series", script: map[string]framework.ScriptAnswer{"/metrics": text(many.String())}},
		{name: "a 2 MiB line", script: map[string]framework.ScriptAnswer{"/metrics": text("# TYPE apiserver_request_total counter\napiserver_request_total{resource=\"" + strings.Repeat("a", 2<<20) + "\"} 1\n")}},
		{name: "an error body past its cap", script: map[string]framework.ScriptAnswer{"/metrics": {Code: 502, Type: "text/html", Body: "<html>" + strings.Repeat("bad gateway ", 300<<10/12)}}, list: "GET /metrics (2 families)"},
		{name: "an endless body", kc: endlessKC},
	} {
		kc := c.kc
		if kc == "" {
			c.script["/api/v1/namespaces/default/configmaps?watch"] = watchStarts
			_, kc = framework.ServeScript(t, c.script)
		}
		for _, cmd := range commands {
			t.Run(c.name+" "+cmd.args[0], func(t *testing.T) {
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*time.Minute, cmd.args...)
				out := r.Stdout + r.Stderr
				want := cmd.names
				if cmd.args[0] == "list" {
					want = c.list
				}
				if want != "" && !strings.Contains(out, want) {
					t.Errorf("exit %d: no %q:\n%s", r.Code, want, out)
				}
				if cmd.args[0] == "top" && !strings.Contains(r.Stderr, "the API server at http://127.0.0.1:") {
					t.Errorf("exit %d: top's line does not name the server:\n%s", r.Code, r.Stderr)
				}
				for _, line := range strings.Split(out, "\n") {
					if strings.Contains(line, "name%5B%5D") || strings.Contains(line, "name[]=") || len(line) > 600 {
						t.Errorf("exit %d: a line of %d bytes, or the name[] query:\n%.700s", r.Code, len(line), line)
					}
				}
			})
		}
	}
}
