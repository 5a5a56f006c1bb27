//go:build e2e

package bounds

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// serversCommands is every command that dials the servers the
// EndpointSlices of Service default/kubernetes list.
var serversCommands = [][]string{
	{"list", "configmaps", "--servers"},
	{"probe", "configmaps", "--servers"},
	{"top", "--servers", "--once", "--interval", "1s"},
	{"explain-error", "--check", "--servers", "too old resource version: 1 (50)"},
	{"probe", "--all", "--servers"},
}

const (
	// maxServers is the bound documented in docs/exit-codes.md (13).
	maxServers = 64
	// slicesMemoryLimit is the address space of these runs: before the
	// bound, 120,000 addresses (a 2 MB answer) took 1.7 GB and died under
	// it with "fatal error: out of memory" and 180 MB of goroutine stacks
	// (adversary try 19).
	slicesMemoryLimit = 3_000_000_000
	// slicesMoreRSS is the most resident memory a run over hostile slices
	// may take beyond a run over one address. (A child's peak counts the
	// test process's, up to its exec: the answers are written as they go,
	// so that the test process stays small, and the runs are compared.)
	slicesMoreRSS = 64 << 20 // bytes
)

// serversRun runs args with --request-timeout 5s, under slicesMemoryLimit.
func serversRun(t *testing.T, kc string, args ...string) framework.Result {
	t.Helper()
	return framework.RunUnderMemoryLimit(t, slicesMemoryLimit, kc, 3*time.Minute, append(args, "--request-timeout", "5s")...)
}

// sliceServer starts a TLS server that answers EndpointSlicesPath with
// slices; it returns its kubeconfig.
func sliceServer(t *testing.T, slices framework.ScriptAnswer) string {
	s := framework.StartTLSScriptServer(map[string]framework.ScriptAnswer{framework.EndpointSlicesPath: slices})
	t.Cleanup(s.Close)
	kc, err := s.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// loopbackSlices lists n addresses of 127.0.0.0/8 at port 1: refused at
// once, on loopback only.
func loopbackSlices(n int) framework.ScriptAnswer {
	return framework.EndpointSliceList(framework.LoopbackAddrs(n), 1)
}

// EndpointSlices that list more API servers than the plugin dials in one
// run: every --servers command refuses them before it dials any, exit 13,
// with one line that names the count, the bound and --endpoints, and its
// memory stays that of a run over one address; at the bound itself every
// server is dialled. Too many --endpoints by hand are bad input (exit 2).
func TestEndpointSlicesPastTheServerBoundAreRefused(t *testing.T) {
	one := serversRun(t, sliceServer(t, loopbackSlices(1)), "list", "configmaps", "--servers")
	if one.Code != 4 {
		t.Fatalf("one refused server: exit %d, want 4:\n%s", one.Code, one.Stderr)
	}
	for _, c := range []struct {
		addrs  int
		slices framework.ScriptAnswer
		args   [][]string
	}{
		// 120 slices of 1,000 (a 2 MB answer); one past the bound; one
		// endpoint of 3,000,000 addresses (45 MB: read as it streams).
		{120_000, loopbackSlices(120_000), serversCommands},
		{maxServers + 1, loopbackSlices(maxServers + 1), serversCommands[:1]},
		{3_000_000, framework.OneEndpointSlice(3_000_000, 1), serversCommands[:1]},
	} {
		kc := sliceServer(t, c.slices)
		want := fmt.Sprintf("list %s addresses, more than the %d API servers the plugin dials in one run", thousands(c.addrs), maxServers)
		for _, args := range c.args {
			t.Run(fmt.Sprintf("%d %s", c.addrs, strings.Join(args[:2], " ")), func(t *testing.T) {
				r := serversRun(t, kc, args...)
				line := strings.TrimSpace(r.Stderr)
				t.Logf("exit %d, %d MiB (one address: %d MiB), %s: %s", r.Code, r.MaxRSS>>20, one.MaxRSS>>20, r.Duration.Round(time.Millisecond), line)
				switch {
				case r.Code != 13:
					t.Fatalf("exit %d, want 13 (an answer past a bound); stderr:\n%.2000s", r.Code, r.Stderr)
				case strings.Contains(line, "\n") || !strings.HasPrefix(line, "error: ") || !strings.Contains(line, want) || !strings.Contains(line, "--endpoints"):
					t.Fatalf("want one error line with %q and --endpoints; stderr:\n%.2000s", want, r.Stderr)
				case r.MaxRSS > one.MaxRSS+slicesMoreRSS:
					t.Fatalf("took %d MiB, more than %d MiB over a run of one address (%d MiB)", r.MaxRSS>>20, slicesMoreRSS>>20, one.MaxRSS>>20)
				}
			})
		}
	}
	t.Run("at the bound", func(t *testing.T) {
		kc := sliceServer(t, loopbackSlices(maxServers))
		r := serversRun(t, kc, "list", "configmaps", "--servers")
		if r.Code != 4 || strings.Count(r.Stdout, ":1 ") < maxServers {
			t.Fatalf("exit %d, want 4 (every one of the %d servers refused), with a row each:\n%s\n%s", r.Code, maxServers, r.Stdout, r.Stderr)
		}
	})
	t.Run("by hand", func(t *testing.T) {
		var eps []string
		for _, a := range framework.LoopbackAddrs(maxServers + 1) {
			eps = append(eps, a+":1")
		}
		r := framework.Run(t, "", time.Minute, "list", "configmaps", "--server", "https://127.0.0.1:1", "--endpoints", strings.Join(eps, ","))
		want := fmt.Sprintf("%d endpoints given, more than the %d API servers the plugin dials in one run", maxServers+1, maxServers)
		if r.Code != 2 || !strings.Contains(r.Stderr, want) {
			t.Fatalf("exit %d, want 2 with %q:\n%s", r.Code, want, r.Stderr)
		}
	})
}

// Addresses of IPv4 and IPv6 EndpointSlices that are no IP address of the
// slice's family (a name, a port, a zone, control characters, the other
// family) are neither resolved nor dialled, in every --servers command:
// each is a row that says so, defanged, and the other servers are
// measured (adversary try 19: 999.1.1.1 went to the resolver, and control
// characters gave net/url's words with "https://https://"). The only name
// here is localhost: a run without the check must not send a name to DNS.
func TestEndpointSliceAddressesThatAreNoIPAreNotDialled(t *testing.T) {
	// The server the slices list: every httptest server has the same
	// certificate, so the kubeconfig's CA verifies it too.
	metrics := framework.ScriptAnswer{Code: 200, Type: "text/plain", Body: "# TYPE apiserver_storage_objects gauge\napiserver_storage_objects{resource=\"configmaps\"} 1\n"}
	member := framework.StartTLSScriptServer(map[string]framework.ScriptAnswer{"/metrics": metrics})
	defer member.Close()
	port, _ := strconv.Atoi(member.Host()[strings.LastIndex(member.Host(), ":")+1:])
	notIPv4 := []string{"localhost", "127.0.0.1:5", "127.0.0.9\x1b[31mRED\u009b2J", "::1", "127.0.0.1%lo", "::ffff:127.0.0.1"}
	notIPv6 := []string{"127.0.0.2", "fe80::1%lo"}
	s := framework.StartTLSScriptServer(map[string]framework.ScriptAnswer{
		framework.EndpointSlicesPath: framework.EndpointSlicesOf(
			framework.SliceSpec{AddressType: "IPv4", Addrs: append([]string{"127.0.0.1"}, notIPv4...), Port: port},
			framework.SliceSpec{AddressType: "IPv6", Addrs: append([]string{"::1"}, notIPv6...), Port: port},
		),
		"/metrics": metrics,
	})
	defer s.Close()
	kc, err := s.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range serversCommands {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			r := serversRun(t, kc, args...)
			out := r.Stdout + r.Stderr
			if r.Code != 12 {
				t.Errorf("exit %d, want 12 (the servers with an IP address measured, the others failed)", r.Code)
			}
			for _, bad := range []string{"https://https://", "://https://", "net/url", "lookup", "no such host", "host must be", "\x1b", "\u009b", "localhost:" + strconv.Itoa(port)} {
				if strings.Contains(out, bad) {
					t.Errorf("the output holds %q", bad)
				}
			}
			for _, good := range []string{"127.0.0.1:" + strconv.Itoa(port), "not an IPv4 address", "not an IPv6 address", `127.0.0.9\x1b[31mRED\u009b2J`, "fe80::1%lo"} {
				if !strings.Contains(out, good) {
					t.Errorf("the output does not hold %q", good)
				}
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			}
		})
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
