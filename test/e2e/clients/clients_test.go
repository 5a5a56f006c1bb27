//go:build e2e

// Package clients tests "kubectl watchrv clients" on the audit log of a
// real kube-apiserver that real clients (client-go informers, a poller,
// kubectl get -w, the plugin) have just used.
package clients

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// truth is one client's requests, counted from the audit log by the test
// itself (each auditID once, whatever stages are recorded).
type truth struct {
	requests, lists, pages, watches, gets, other int64
	objects                                      int64
	fullReads                                    int64 // lists and streaming lists
	verbs                                        map[string]bool
}

type rawEvent struct {
	AuditID    string `json:"auditID"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	Level      string `json:"level"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ResponseObject *struct {
		Items []json.RawMessage `json:"items"`
	} `json:"responseObject"`
}

func readTruth(t *testing.T, path string) (map[string]*truth, map[string]bool) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*truth{}
	levels := map[string]bool{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e rawEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("the real audit log has a line the test cannot read: %v", err)
		}
		levels[e.Level] = true
		key := e.User.Username + " / " + e.UserAgent
		tr := out[key]
		if tr == nil {
			tr = &truth{verbs: map[string]bool{}}
			out[key] = tr
		}
		if e.ResponseObject != nil && e.Verb == "list" {
			tr.objects += int64(len(e.ResponseObject.Items))
		}
		if seen[e.AuditID] {
			continue
		}
		seen[e.AuditID] = true
		tr.requests++
		tr.verbs[e.Verb] = true
		u, err := url.ParseRequestURI(e.RequestURI)
		if err != nil {
			t.Fatal(err)
		}
		switch e.Verb {
		case "list":
			if u.Query().Get("continue") != "" {
				tr.pages++
			} else {
				tr.lists++
				tr.fullReads++
			}
		case "watch":
			tr.watches++
			if u.Query().Get("sendInitialEvents") == "true" {
				tr.fullReads++
			}
		case "get":
			tr.gets++
		default:
			tr.other++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out, levels
}

func runClients(t *testing.T, args ...string) clients.Report {
	t.Helper()
	r := framework.Run(t, "", 2*time.Minute, append([]string{"clients", "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("clients %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	var rep clients.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("clients -o json: %v\n%s", err, r.Stdout)
	}
	return rep
}

func find(rep clients.Report, user, agentPrefix string) *clients.Client {
	for i, c := range rep.Clients {
		if c.User == user && strings.HasPrefix(c.UserAgent, agentPrefix) {
			return &rep.Clients[i]
		}
	}
	return nil
}

func patternNames(c *clients.Client) []string {
	var out []string
	for _, p := range c.Patterns {
		out = append(out, p.Name+"("+p.Resource+")")
	}
	sort.Strings(out)
	return out
}

func TestClients(t *testing.T) {
	tr := runTraffic(t)
	keep(t, tr)
	truths, levels := readTruth(t, tr.auditLog)
	for _, l := range []string{"Metadata", "Request", "RequestResponse"} {
		if !levels[l] {
			t.Errorf("the audit log has no event at level %s: the policy did not apply", l)
		}
	}
	rep := runClients(t, "-f", tr.auditLog)
	if len(rep.Unreadable) != 0 {
		t.Errorf("unreadable lines in a real audit log: %v at %v", rep.Unreadable, rep.BadLines)
	}

	kubectlAgent := "kubectl/"
	who := []struct {
		name, user, agent string
		patterns          []string
	}{
		{"healthy informer", "admin", informerAgent, nil},
		{"looping informer", "nobody", informerAgent, []string{"relist-loop(configmaps)", "stale-reconnect(configmaps)"}},
		{"poller", "admin", pollerAgent, []string{"consistent-read-pressure(configmaps)", "polling(configmaps)"}},
		{"kubectl get -w", "admin", kubectlAgent, nil},
		{"plugin", "admin", pluginAgent, nil},
	}
	for i := 1; i <= herdSize; i++ {
		who = append(who, struct {
			name, user, agent string
			patterns          []string
		}{fmt.Sprint("herd informer ", i), "admin", fmt.Sprintf("%s-%d", herdAgent, i), []string{"stale-reconnect(configmaps)"}})
	}
	for _, w := range who {
		c := find(rep, w.user, w.agent)
		if c == nil {
			t.Errorf("%s (%s / %s) not found among %d clients", w.name, w.user, w.agent, len(rep.Clients))
			continue
		}
		want := truths[c.User+" / "+c.UserAgent]
		if want == nil {
			t.Errorf("%s: not in the test's own reading of the log", w.name)
			continue
		}
		got := []int64{c.Requests, c.Lists.Total, c.Lists.Continue, c.Watches.Total, c.Gets, c.Other}
		exp := []int64{want.requests, want.lists, want.pages, want.watches, want.gets, want.other}
		if !equal(got, exp) {
			t.Errorf("%s: requests, lists, pages, watches, gets, other = %v, the audit log has %v", w.name, got, exp)
		}
		if ps := patternNames(c); strings.Join(ps, " ") != strings.Join(w.patterns, " ") {
			t.Errorf("%s: patterns %v, want %v", w.name, ps, w.patterns)
		}
		switch w.name {
		case "poller":
			if c.Objects == nil || *c.Objects != want.objects || want.objects < pollLists {
				t.Errorf("poller: objects %v, the RequestResponse events hold %d", c.Objects, want.objects)
			}
			if c.Lists.Total != pollLists || c.Watches.Total != 0 {
				t.Errorf("poller: %d lists, %d watches; it made %d lists and no watch", c.Lists.Total, c.Watches.Total, pollLists)
			}
			for _, p := range c.Patterns {
				if p.Name == clients.PatternPolling && (p.Count != pollLists || p.PeriodSeconds < 0.8 || p.PeriodSeconds > 1.2) {
					t.Errorf("polling: count %d every %.3fs, want %d every ~1s", p.Count, p.PeriodSeconds, pollLists)
				}
				if p.Name == clients.PatternConsistentReads && !strings.Contains(p.Evidence, "not known") {
					t.Errorf("consistent-read-pressure without --server-version must say it is not known: %s", p.Evidence)
				}
			}
		case "looping informer":
			// Every list after its first followed a watch that the cut
			// and the compaction ended.
			if got := c.Lists.Total + c.Watches.Streaming; got != relists+1 || got != want.fullReads {
				t.Errorf("looping informer: %d lists and streaming lists, the audit log has %d, want %d (1 + %d relists)", got, want.fullReads, relists+1, relists)
			}
			for _, p := range c.Patterns {
				if p.Name == clients.PatternRelistLoop && p.Count != relists {
					t.Errorf("relist-loop count %d, want %d: %s", p.Count, relists, p.Evidence)
				}
			}
		case "plugin":
			for v := range want.verbs {
				if v != "get" && v != "list" && v != "watch" {
					t.Errorf("the plugin sent a %q request: it must only get, list and watch", v)
				}
			}
			if c.Other != 0 {
				t.Errorf("the plugin's report shows %d requests other than get/list/watch", c.Other)
			}
		}
	}

	// The herd: the three informers behind the proxy the test cut once,
	// each relisting once, and no one else (the loop's relists were over
	// more than a herd's window before).
	t.Run("herd", func(t *testing.T) {
		if len(rep.Herds) != 1 {
			t.Fatalf("%d herds, want 1: %+v", len(rep.Herds), rep.Herds)
		}
		h := rep.Herds[0]
		want := fmt.Sprintf("%d clients relisted %d times", herdSize, herdSize)
		if h.Count != herdSize || !strings.Contains(h.Evidence, want) || h.Last.Sub(h.First) >= 10*time.Second {
			t.Errorf("herd: %+v, want %q within 10 s", h, want)
		}
		for i := 1; i <= herdSize; i++ {
			if a := fmt.Sprintf("admin / %s-%d", herdAgent, i); !strings.Contains(h.Evidence, a) {
				t.Errorf("the herd does not name %s: %s", a, h.Evidence)
			}
		}
		t.Logf("herd: %s", h.Evidence)
	})

	// Who served the poller's consistent lists: the version and the watch
	// cache decide, and this server ran with configmaps#0 (no cache for
	// configmaps: every list read etcd). Only what is given is claimed.
	t.Run("server version and watch cache decide consistent-read pressure", func(t *testing.T) {
		for _, c := range []struct {
			args     []string
			patterns string
			storage  int64
			unknown  int64
		}{
			{[]string{"--server-version", "v1.30.14"}, "consistent-read-pressure(configmaps) polling(configmaps)", pollLists, 0},
			{[]string{"--server-version", "v1.37.2"}, "consistent-read-pressure(configmaps) polling(configmaps)", 0, pollLists},
			{[]string{"--server-version", "v1.37.2", "--watch-cache-sizes", "configmaps#0"}, "consistent-read-pressure(configmaps) polling(configmaps)", pollLists, 0},
			{[]string{"--server-version", "v1.37.2", "--watch-cache", "on"}, "polling(configmaps)", 0, 0},
		} {
			p := find(runClients(t, append([]string{"-f", tr.auditLog}, c.args...)...), "admin", pollerAgent)
			if p == nil {
				t.Fatal("poller not found")
			}
			if got := strings.Join(patternNames(p), " "); got != c.patterns || p.StorageLists != c.storage || p.StorageUnknown != c.unknown {
				t.Errorf("%v: patterns %s, %d storage lists, %d not known; want %s, %d, %d", c.args, got, p.StorageLists, p.StorageUnknown, c.patterns, c.storage, c.unknown)
			}
		}
	})

	t.Run("table output", func(t *testing.T) {
		r := framework.Run(t, "", time.Minute, "clients", "-f", tr.auditLog)
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		for _, s := range []string{"nobody / " + informerAgent, "relist-loop", "polling", "Per minute"} {
			if !strings.Contains(r.Stdout, s) {
				t.Errorf("the table lacks %q:\n%s", s, r.Stdout)
			}
		}
		t.Logf("\n%s", r.Stdout)
	})
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// keep copies the audit log to WATCHRV_RECORD_AUDIT (a directory) when set:
// how the unit tests' testdata was recorded.
func keep(t *testing.T, tr traffic) {
	dir := os.Getenv("WATCHRV_RECORD_AUDIT")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(tr.auditLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "audit.log"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
