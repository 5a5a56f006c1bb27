//go:build linux

package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// Ctrl-C or SIGTERM while clients reads a pipe that stays open (as
// `tail -f audit.log |`): it prints the report of what it read, says so,
// and exits 130 (issue 25 item 27: it printed only "interrupted").
func TestClientsInterrupted(t *testing.T) {
	b, err := os.ReadFile(recordedAudit)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			p := startPlugin(t, r, "clients", "-f", "-")
			r.Close()
			feed(t, p, w, string(b))
			if code := p.stop(t, sig); code != ExitInterrupted {
				t.Fatalf("exit %d, want 130; stdout:\n%s\nstderr:\n%s", code, p.out.String(), p.err.String())
			}
			out, errOut := p.out.String(), p.err.String()
			if !strings.Contains(out, "Read stdin: 117 lines, 117 events") || !strings.Contains(out, "Requests: 53") || !strings.Contains(out, "relist-loop") || !strings.Contains(out, "interrupted: the report covers what was read before") {
				t.Errorf("stdout lacks the report of the 117 lines read:\n%s", out)
			}
			if !strings.HasSuffix(errOut, "interrupted\n") || !strings.Contains(errOut, "the report covers the 117 lines read before the signal") {
				t.Errorf("stderr %q: want the note and 'interrupted' last", errOut)
			}
		})
	}
	// Nothing read yet: nothing to report, still 130.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := startPlugin(t, r, "clients", "-f", "-")
	r.Close()
	waitBlocked(t, p, "pipe_read", "anon_pipe_read")
	if code := p.stop(t, syscall.SIGINT); code != ExitInterrupted || p.out.String() != "" || p.err.String() != "interrupted\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 130, nothing, 'interrupted'", code, p.out.String(), p.err.String())
	}
}
