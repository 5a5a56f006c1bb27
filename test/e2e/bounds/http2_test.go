//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestHTTP2EndsAreALostConnection (adversary try 14): a GOAWAY (with an
// error code, or the graceful one a kube-apiserver sends when it shuts
// down) or a RST_STREAM of the request, before its answer or in its body,
// in every command that reads (list, watch, --follow, probe, version,
// top): a connection lost (exit 4) in words, never net/http's frame text
// with exit 1, never "a body that cannot be read"; and --follow reconnects.
func TestHTTP2EndsAreALostConnection(t *testing.T) {
	const within = 30 * time.Second
	raw := []string{"!http2: ", "!stream error: stream ID", "!received from peer", "!cannot be read"}
	lost := append([]string{"the connection to the API server at https://127.0.0.1:", " broke: "}, raw...)
	for _, c := range []struct {
		fault framework.H2Fault
		on    string
		args  []string
		words []string
	}{
		{framework.H2GoAwayProtocol, "list", []string{"list", "cm", "--request-timeout", "5s"}, []string{"GOAWAY PROTOCOL_ERROR"}},
		{framework.H2GoAwayGraceful, "list", []string{"list", "cm", "--request-timeout", "5s"}, []string{"GOAWAY NO_ERROR", "shuts down"}},
		{framework.H2ResetStream, "list", []string{"list", "cm", "--request-timeout", "5s"}, []string{"RST_STREAM PROTOCOL_ERROR"}},
		{framework.H2ResetAfterHeaders, "list", []string{"list", "cm"}, []string{"broke off after", "RST_STREAM INTERNAL_ERROR"}},
		{framework.H2ResetStream, "list", []string{"probe", "cm", "--request-timeout", "5s"}, []string{"RST_STREAM PROTOCOL_ERROR"}},
		{framework.H2GoAwayGraceful, "watch", []string{"watch", "cm", "--rv", "5", "--timeout", "5s"}, []string{"GOAWAY NO_ERROR"}},
		{framework.H2GoAwayGraceful, "watch", []string{"watch", "cm", "--rv", "5", "--follow", "--timeout", "5s"}, []string{"GOAWAY NO_ERROR", "reconnect in"}},
		{framework.H2GoAwayProtocol, "version", []string{"version"}, []string{"GOAWAY PROTOCOL_ERROR"}},
		{framework.H2GoAwayProtocol, "metrics", []string{"top", "--once", "--interval", "1s"}, []string{"GOAWAY PROTOCOL_ERROR"}},
		// A refused stream is sent again by net/http: the words say how
		// many times, never a bare "no answer" (adversary try 15, F10).
		{framework.H2RefuseStream, "list", []string{"list", "cm", "--request-timeout", "5s"}, []string{"no answer within 5s", "times: the server refused its HTTP/2 stream each time"}},
		{framework.H2RefuseStream, "watch", []string{"watch", "cm", "--rv", "5", "--timeout", "5s"}, []string{"times: the server refused its HTTP/2 stream each time"}},
		{framework.H2RefuseStream, "version", []string{"version", "--request-timeout", "4s"}, []string{"times: the server refused its HTTP/2 stream each time"}},
	} {
		t.Run(string(c.fault)+" "+c.on+" "+strings.Join(c.args, " "), func(t *testing.T) {
			s, err := framework.StartH2FaultServer(c.fault, c.on)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			kc, err := s.Kubeconfig(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, c.args...)
			want := append(append([]string{}, c.words...), lost...)
			if c.fault == framework.H2RefuseStream {
				// Never answered within the time bound: a timeout's
				// words (exit 4 too), not a lost connection's.
				want = append(append([]string{}, c.words...), raw...)
			}
			if c.args[0] == "watch" && slicesContain(c.args, "--follow") {
				// The reconnects are on stdout; the last line is the error.
				if !strings.Contains(r.Stdout, "reconnect in") {
					t.Fatalf("--follow did not reconnect after the GOAWAY:\n%s\n%s", r.Stdout, r.Stderr)
				}
				want = append([]string{"GOAWAY NO_ERROR"}, lost...)
			}
			checkRun(t, r, faultCase{framework.Fault("h2-" + string(c.fault)), c.args, 4, want, within})
		})
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
