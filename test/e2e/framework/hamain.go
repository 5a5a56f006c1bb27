package framework

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// MainHA is the TestMain of an e2e package that shares one HA control plane
// (see StartHA): it starts it into *shared, builds the plugin, runs the tests
// and fails the package if anything tried to leave loopback (a CONNECT target
// the proxy refused, or a server that logged a dial to a non-loopback
// address). A control plane that cannot start fails the package loudly.
func MainHA(m *testing.M, shared **HA, o HAOptions) {
	if o.Logf == nil {
		o.Logf = func(f string, a ...any) { fmt.Printf(f+"\n", a...) }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	h, err := StartHA(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: cannot start the real etcd + HA kube-apiservers: %v\n", err)
		os.Exit(1)
	}
	*shared = h
	if _, err := PluginBinary(); err != nil {
		h.Stop()
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := h.LoopbackOnly(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	h.Stop()
	os.Exit(code)
}

// StartHAT starts an HA control plane for one test and stops it when the
// test ends; it fails the test if the control plane cannot start, and at the
// end if anything tried to leave loopback.
func StartHAT(t testing.TB, o HAOptions) *HA {
	t.Helper()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := StartHA(ctx, o)
	if err != nil {
		t.Fatalf("cannot start the real etcd + HA kube-apiservers: %v", err)
	}
	t.Cleanup(func() {
		if err := h.LoopbackOnly(); err != nil {
			t.Error(err)
		}
		h.Stop()
	})
	return h
}

// LoopbackOnly returns an error naming every attempt seen so far to reach an
// address outside loopback: CONNECT targets the proxy refused, and dials to
// non-loopback addresses in the servers' logs.
func (h *HA) LoopbackOnly() error {
	var problems []string
	if r := h.Proxy.Refused(); len(r) > 0 {
		problems = append(problems, fmt.Sprintf("the CONNECT proxy refused %v", r))
	}
	dials, err := h.Cluster.NonLoopbackDials()
	if err != nil {
		return fmt.Errorf("scanning the server logs for dials: %w", err)
	}
	for _, d := range dials {
		problems = append(problems, "dial outside loopback: "+d)
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("traffic tried to leave loopback:\n%s", joinLines(problems))
}

func joinLines(ss []string) string {
	out := ""
	for _, s := range ss {
		out += "  " + s + "\n"
	}
	return out
}

// AuditCounts returns, per server, how many requests with this User-Agent
// it completed (audit stage ResponseComplete): which server a request
// really reached, whatever address or balancer it went through.
func (h *HA) AuditCounts(t testing.TB, userAgent string) []int {
	t.Helper()
	out := make([]int, len(h.Cluster.APIServers))
	for i, a := range h.Cluster.APIServers {
		for _, e := range ReadAudit(t, a.AuditLog) {
			if e.UserAgent == userAgent && e.Stage == "ResponseComplete" {
				out[i]++
			}
		}
	}
	return out
}

// WaitAuditCounts polls AuditCounts for up to 5 s until it equals want (a
// server writes the audit event of a request just after the response) and
// returns the last counts.
func (h *HA) WaitAuditCounts(t testing.TB, userAgent string, want []int) []int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := h.AuditCounts(t, userAgent)
		if equalInts(got, want) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func equalInts(a, b []int) bool {
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
