//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAFailedDiscoveryDocumentIsSentOnce (adversary try 13): client-go's
// discovery asks again by itself for a document that failed (its memory
// cache for any 5xx, 429 or timeout, its mapper after a reset), and the
// plugin's look-ups read the same documents; each repeat of a hung or
// trickled document took its whole time bound again (a trickled 500 on
// /api: 30 s for a bound of 10 s). Across every command that resolves a
// type or reads all of discovery, and every way a document fails, the
// failed document is sent once, the run ends within about one bound, and
// the error is the document's: a 404 of /api/v1 (which client-go reads
// as an empty list) in the server's words, a valid document that lists
// no type as a type that does not exist, never "not a discovery
// document". A good document beside the failed one is sent once too
// (adversary try 16, A6: a 403 of /apis had the good /api sent 3 times,
// read again each time client-go's cached discovery was invalidated):
// every discovery document reaches the server at most once per run.
func TestAFailedDiscoveryDocumentIsSentOnce(t *testing.T) {
	const bound = 3 * time.Second
	commands := [][]string{
		{"list", "cm"}, {"list", "cm", "--rv-only"}, {"watch", "cm", "--timeout", "20s"}, {"probe", "cm"},
		{"streaming", "cm"}, {"probe", "--all"}, {"streaming", "--all"},
	}
	notADocument := "!is not a discovery document"
	for _, f := range []struct {
		fault framework.Fault
		path  string
		code  int
		words []string
		// within is the most the run may take; every repeat of the
		// document took a whole bound more.
		within time.Duration
		// more are commands of this fault only, beside commands.
		more [][]string
	}{
		{framework.FaultCoreDiscovery("hang"), "/api/v1", 4, []string{"raise --request-timeout", "/api/v1"}, bound + bound/2, nil},
		{framework.FaultRootDiscovery("api-500-trickle"), "/api", 1, []string{"the answer's status came, its body did not", "!no answer"}, bound + bound/2, nil},
		{framework.FaultCoreDiscovery("503"), "/api/v1", 1, []string{"503", "boom from server", notADocument}, bound, nil},
		{framework.FaultCoreDiscovery("429"), "/api/v1", 8, []string{"429", "!currently unable"}, bound, nil},
		// client-go's rest client retried a reset GET ten times, a second
		// apart, past the bound ("error from a previous attempt").
		{framework.FaultRootDiscovery("api-reset"), "/api", 4, []string{"reset the connection before its answer", "!error from a previous attempt", "!context deadline"}, bound / 2, nil},
		{framework.FaultCoreDiscovery("404"), "/api/v1", 9, []string{"404", "boom: no such path", notADocument, "!received empty response"}, bound, nil},
		// The good /api beside it (A6), for a name that is not one too.
		{framework.FaultRootDiscovery("apis-403"), "/apis", 7, []string{"apis forbidden for you", "RBAC permission"}, bound, [][]string{{"list", "configmapz"}}},
	} {
		for _, args := range append(append([][]string{}, commands...), f.more...) {
			f, args := f, append(append([]string{}, args...), "--request-timeout", bound.String())
			t.Run(string(f.fault)+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				s, err := framework.StartFaultServer(f.fault)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Close)
				kc, err := s.Kubeconfig(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 4*bound, args...)
				checkRun(t, r, faultCase{f.fault, args, f.code, append([]string{"discovery"}, f.words...), f.within})
				if n := s.Asked(f.path); n != 1 {
					t.Fatalf("GET %s was sent %d times in one run, want once", f.path, n)
				}
				// Every document, the good ones beside the failed one:
				// at most once (A6).
				for _, p := range []string{"/api", "/apis", "/api/v1"} {
					if n := s.Asked(p); n > 1 {
						t.Errorf("GET %s was sent %d times in one run beside the failed %s, want at most once", p, n, f.path)
					}
				}
				if f.fault == framework.FaultRootDiscovery("apis-403") && s.Asked("/api") != 1 {
					t.Errorf("the good /api was sent %d times beside the failed /apis, want once", s.Asked("/api"))
				}
			})
		}
	}
}

// TestADiscoveryDocumentOfNoTypeIsNoFailure: a valid document that lists
// no resource type (client-go's memory cache keeps it as "received empty
// response"; aggregated APIs such as metrics-server answer so) says the
// type does not exist (exit 9), and is not a failed part of discovery.
func TestADiscoveryDocumentOfNoTypeIsNoFailure(t *testing.T) {
	const within = 10 * time.Second
	var cases []faultCase
	for _, args := range [][]string{{"list", "cm"}, {"watch", "cm", "--timeout", "5s"}, {"probe", "cm"}, {"streaming", "cm"}} {
		cases = append(cases, faultCase{framework.FaultCoreDiscovery("none"), args, 9, []string{`the server doesn't have a resource type "cm"`, "!discovery", "!received empty response"}, within})
	}
	cases = append(cases, faultCase{framework.FaultCoreDiscovery("none"), []string{"probe", "--all"}, 1, []string{"discovery lists no resource that supports list and watch", "!part of discovery failed", "!received empty response"}, within})
	runFaultCases(t, cases, memoryLimit)
}

// TestAFailedGroupIsTheAnswerForANameItMayServe (adversary tries 12 to
// 14): a name without a group that is in none of the discovery read
// while a group version failed ("deployments" when apps/v1 answered 403
// or 504) is that failure, in the server's words and with its class,
// never "doesn't have a resource type" (exit 9); a typo of a name that
// was read keeps exit 9 with its suggestion; the document is sent once.
func TestAFailedGroupIsTheAnswerForANameItMayServe(t *testing.T) {
	const within = 15 * time.Second
	var cases []faultCase
	for _, args := range [][]string{{"list", "deployments"}, {"watch", "deployments", "--timeout", "5s"}, {"probe", "deploy"}, {"streaming", "deployments"}} {
		cases = append(cases,
			faultCase{framework.FaultGroupDiscovery("403"), args, 7, []string{"apps/v1", "apps is forbidden for you", "!doesn't have a resource type"}, within},
			faultCase{framework.FaultGroupDiscovery("504"), args, 4, []string{"apps/v1", "raise --request-timeout", "!doesn't have a resource type"}, within},
			faultCase{framework.FaultGroupDiscovery("html"), args, 1, []string{"apps/v1", "is not a discovery document of apps/v1 (its body is not the JSON of one)", "!Go value", "!doesn't have a resource type"}, within},
		)
	}
	cases = append(cases,
		faultCase{framework.FaultGroupDiscovery("hang"), []string{"list", "deployments", "--request-timeout", "3s"}, 4, []string{"apps/v1", "no answer within 3s", "raise --request-timeout"}, 6 * time.Second},
		faultCase{framework.FaultGroupDiscovery("403"), []string{"list", "configmapz"}, 9, []string{`did you mean "configmaps"`, "apps/v1"}, within},
	)
	// A typo of a name that was read is a typo whatever the failed group
	// did: a 504, no answer, or a body past its cap (adversary try 15,
	// F8: the last two exited 4 and 13).
	for _, f := range []string{"504", "hang", "endless"} {
		cases = append(cases, faultCase{framework.FaultGroupDiscovery(f), []string{"list", "configmapz", "--request-timeout", "3s"}, 9, []string{`did you mean "configmaps"`, "apps/v1"}, 6 * time.Second})
	}
	runFaultCases(t, cases, memoryLimit)
}

// TestAnAllRunAfterAPartialDiscoveryIsPartial: probe --all and streaming
// --all when apps/v1's discovery failed read the rest, and the run is
// partial (exit 12) on the terminal and in -o json|yaml, whose document
// names the failed group version (adversary try 14: "failed": 0, apps/v1
// named nowhere).
func TestAnAllRunAfterAPartialDiscoveryIsPartial(t *testing.T) {
	// Two group versions fail (apps/v1 403, batch/v1 500): both are
	// named (adversary try 15: batch/v1 was lost beside apps/v1).
	s, err := framework.StartFaultServer(framework.FaultGroupDiscovery("two"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	kc, err := s.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"probe", "--all"}, {"probe", "--all", "-o", "json"}, {"probe", "--all", "-o", "yaml"}, {"streaming", "--all", "-o", "json"}} {
		r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, args...)
		code, words := 12, []string{"part of discovery failed", "apps/v1", "batch/v1", "apps is forbidden for you"}
		if args[0] == "streaming" {
			// The fault server does not stream: an informer would hang
			// there, which is exit 1 before a partial run
			// (docs/exit-codes.md).
			code, words = 1, []string{"will hang"}
		}
		checkRun(t, r, faultCase{framework.FaultGroupDiscovery("two"), args, code, words, 30 * time.Second})
		if len(args) > 2 && (!strings.Contains(r.Stdout, "discoveryFailed") || !strings.Contains(r.Stdout, "apps/v1") || !strings.Contains(r.Stdout, "batch/v1")) {
			t.Errorf("%v: the document does not say that the discovery of apps/v1 failed:\n%s", args, r.Stdout)
		}
	}
}
