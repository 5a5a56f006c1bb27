//go:build e2e

package bounds

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// pluginUA is how the audit log names the plugin's requests.
const pluginUA = "kubectl-watchrv/" + framework.PluginVersion

// auditedRequests are the request URIs of the plugin's requests in the
// audit log, one per request (audit ID), sorted.
func auditedRequests(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range framework.ReadAudit(t, cluster(t).APIServers[0].AuditLog) {
		if strings.HasPrefix(e.UserAgent, pluginUA) {
			out[e.AuditID] = e.RequestURI
		}
	}
	return out
}

// newSince are the request URIs audited that were not in before, sorted.
func newSince(before, now map[string]string) []string {
	var out []string
	for id, uri := range now {
		if _, ok := before[id]; !ok {
			out = append(out, uri)
		}
	}
	sort.Strings(out)
	return out
}

// vLine is one -v request line: "-v GET https://host/path?query ...".
var vLine = regexp.MustCompile(`^-v ([A-Z]+) (https?://[^/ ]+)(/\S*) (.*)$`)

// requestLines are the request URIs of the -v lines of a run that say how
// a request ended (a watch also has a line when its answer begins), sorted.
func requestLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		m := vLine.FindStringSubmatch(l)
		if m == nil || strings.HasSuffix(m[4], "(a watch: its bytes are counted as they stream)") {
			continue
		}
		out = append(out, m[3])
	}
	sort.Strings(out)
	return out
}

// The plugin's own count of requests is the API server's: for each
// command, the "cost" of its -o json document equals the requests the
// audit log recorded for it, and -v shows each of them (discovery and
// /metrics included), with the URI the server saw. The bytes are counted
// too, and are at least those of the documents the plugin printed from.
func TestLedgerMatchesTheAuditLog(t *testing.T) {
	shared := cluster(t)
	cs, ns := framework.Namespace(t, shared, "ledger")
	if err := framework.CreateConfigMaps(context.Background(), cs, ns, "cm", 12, 200, 4); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir() // one HOME: the first run reads discovery, the others its cache
	// revalidate: the discovery files are removed and the HTTP cache kept
	// (rm -rf ~/.kube/cache/discovery), so discovery asks again with
	// If-None-Match and the server answers 304, an answer client-go's
	// cache drops unread: counted, and shown all the same.
	const revalidate = "after rm -rf ~/.kube/cache/discovery: "
	for _, args := range [][]string{
		{"list", "cm", "-n", ns, "--limit", "5"},
		{"list", "cm", "-n", ns, "--rv-only"},
		{"watch", "cm", "-n", ns, "--rv", "list", "--timeout", "2s"},
		{"probe", "cm", "-n", ns},
		{"streaming", "cm", "-n", ns},
		{"version"},
		{revalidate, "list", "cm", "-n", ns, "--rv-only"},
		{revalidate, "probe", "--all"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			again := args[0] == revalidate
			if again {
				args = args[1:]
				if err := os.RemoveAll(filepath.Join(home, ".kube", "cache", "discovery")); err != nil {
					t.Fatal(err)
				}
			}
			before := auditedRequests(t)
			r := framework.RunInHome(t, home, shared.Kubeconfig, nil, 2*time.Minute, append(args, "-o", "json", "-v=6")...)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			cost := lastCost(t, r.Stdout)
			shown := requestLines(r.Stderr)
			var audited []string
			deadline := time.Now().Add(20 * time.Second)
			for {
				// A watch is audited when the server sees it end.
				if audited = newSince(before, auditedRequests(t)); len(audited) >= cost.Requests || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if cost.Requests != len(audited) {
				t.Fatalf("the plugin counted %d requests, the audit log has %d:\n%s", cost.Requests, len(audited), strings.Join(audited, "\n"))
			}
			if strings.Join(shown, "\n") != strings.Join(audited, "\n") {
				t.Fatalf("-v shows\n  %s\nthe audit log has\n  %s", strings.Join(shown, "\n  "), strings.Join(audited, "\n  "))
			}
			sum := 0
			for _, k := range cost.ByKind {
				sum += k.Requests
			}
			if sum != cost.Requests || cost.Bytes <= 0 {
				t.Fatalf("cost %+v: byKind does not add up or no byte counted", cost)
			}
			t.Logf("%d requests, %d bytes: %v", cost.Requests, cost.Bytes, audited)
		})
	}
	// The first run read discovery, and list reads what it needs of the
	// server: both show under -v like any request.
	// A fresh HOME: the cluster's shared one has its discovery cached.
	r := framework.RunInHome(t, t.TempDir(), shared.Kubeconfig, nil, time.Minute, "list", "cm", "-n", ns, "-v")
	shown := strings.Join(requestLines(r.Stderr), "\n")
	if r.Code != 0 || !strings.Contains(shown, "/api?") && !strings.Contains(shown, "/api\n") {
		t.Fatalf("exit %d; -v does not show discovery:\n%s", r.Code, r.Stderr)
	}
}

type costDoc struct {
	Requests int   `json:"requests"`
	Bytes    int64 `json:"bytes"`
	ByKind   map[string]struct {
		Requests int   `json:"requests"`
		Bytes    int64 `json:"bytes"`
	} `json:"byKind"`
}

// lastCost is the "cost" of the last JSON document of stdout (watch prints
// JSON lines, the summary last).
func lastCost(t *testing.T, stdout string) costDoc {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var last struct {
		Cost *costDoc `json:"cost"`
	}
	found := false
	for dec.More() {
		var doc struct {
			Cost *costDoc `json:"cost"`
		}
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
		}
		if doc.Cost != nil {
			last, found = doc, true
		}
	}
	if !found {
		t.Fatalf("no document carries \"cost\":\n%s", stdout)
	}
	return *last.Cost
}

// On a terminal, a run that sent more than one request ends with one line
// of its cost, whose count is the audit log's; piped, it prints none.
func TestCostLineOnATerminal(t *testing.T) {
	shared := cluster(t)
	_, ns := framework.Namespace(t, shared, "costline")
	bin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	before := auditedRequests(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	line := fmt.Sprintf("%s --kubeconfig %s list cm -n %s", bin, shared.Kubeconfig, ns)
	cmd := exec.CommandContext(ctx, "script", "-q", "-e", "-c", line, "/dev/null")
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	time.Sleep(time.Second)
	n := len(newSince(before, auditedRequests(t)))
	want := fmt.Sprintf("%d requests, ", n)
	m := regexp.MustCompile(`(\d+) requests, [0-9.]+ (B|KiB|MiB) read from the API server`).FindString(string(out))
	if n < 2 || !strings.HasPrefix(m, want) {
		t.Fatalf("the audit log has %d requests; the terminal shows %q in:\n%s", n, m, out)
	}
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-n", ns)
	if strings.Contains(r.Stderr, "read from the API server") {
		t.Fatalf("a cost line on a pipe:\n%s", r.Stderr)
	}
}
