//go:build e2e

package proof

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestBadInputIsRefusedClearly: every command, fed bad flags, arguments or
// input, exits non-zero with exactly one line that names the problem (and,
// for usage errors, points to --help); none panics or prints a Go stack.
func TestBadInputIsRefusedClearly(t *testing.T) {
	garbage := make([]byte, 64<<10)
	rand.New(rand.NewSource(1)).Read(garbage)
	kc := shared.Kubeconfig
	cases := []struct {
		name       string
		kubeconfig string
		stdin      []byte
		args       []string
		code       int
		want       string
	}{
		// list
		{"list bad rv", kc, nil, []string{"list", "cm", "--rv", "abc"}, 2, "is not a resourceVersion"},
		{"list negative rv", kc, nil, []string{"list", "cm", "--rv", "-1"}, 2, "is not a resourceVersion"},
		{"list huge rv", kc, nil, []string{"list", "cm", "--rv", "123456789012345678901234567890"}, 2, "is larger than any revision"},
		{"list negative limit", kc, nil, []string{"list", "cm", "--limit", "-1"}, 2, "is not a page size"},
		{"list huge limit", kc, nil, []string{"list", "cm", "--limit", "99999999999999999999"}, 2, "is out of range"},
		{"list conflicting", kc, nil, []string{"list", "cm", "--rv-only", "--limit", "5"}, 2, "cannot be combined"},
		{"list match without rv", kc, nil, []string{"list", "cm", "--rv-match", "Exact"}, 2, "needs --rv"},
		{"list unknown resource", kc, nil, []string{"list", "confgmaps"}, 9, "did you mean"},
		{"list unknown output", kc, nil, []string{"list", "cm", "-o", "csv"}, 2, "unknown output format"},
		{"list no resource", kc, nil, []string{"list"}, 2, "RESOURCE"},
		{"list missing kubeconfig", "", nil, []string{"--kubeconfig", "/nonexistent/kubeconfig", "list", "cm"}, 2, "kubeconfig"},
		{"list empty resource", kc, nil, []string{"list", ""}, 2, "RESOURCE is empty"},
		// list takes TYPE/NAME as kubectl get does (pods/log is the pod "log"); probe wants a type.
		{"probe subresource", kc, nil, []string{"probe", "pods/log"}, 2, "subresources"},
		{"list bad label selector", kc, nil, []string{"list", "cm", "-l", "a in (b"}, 2, "refused the request as invalid"},
		{"list bad field selector", kc, nil, []string{"list", "cm", "--field-selector", "spec.nosuch=x"}, 2, "refused the request as invalid"},
		{"list unknown context", kc, nil, []string{"list", "cm", "--context", "nosuch"}, 2, "choose a context with --context"},
		// watch
		{"watch bad rv", kc, nil, []string{"watch", "cm", "--rv", "abc"}, 2, "abc"},
		{"watch negative rv", kc, nil, []string{"watch", "cm", "--rv", "-5"}, 2, "-5"},
		{"watch negative max-events", kc, nil, []string{"watch", "cm", "--max-events", "-1"}, 2, "max-events"},
		{"watch negative timeout", kc, nil, []string{"watch", "cm", "--timeout", "-1s"}, 2, "timeout"},
		{"watch negative stall-timeout", kc, nil, []string{"watch", "cm", "--follow", "--stall-timeout", "-1s"}, 2, "stall-timeout"},
		{"watch bad until", kc, nil, []string{"watch", "cm", "--until", "CREATED"}, 2, "CREATED"},
		{"watch unknown resource", kc, nil, []string{"watch", "podz"}, 9, "doesn't have a resource type"},
		{"watch unknown output", kc, nil, []string{"watch", "cm", "-o", "wide-ish"}, 2, "output"},
		{"watch too many args", kc, nil, []string{"watch", "cm", "a", "b"}, 2, "--help"},
		{"watch bad selector follow", kc, nil, []string{"watch", "cm", "-l", "a in (b", "--follow"}, 2, "refused the request as invalid"},
		// probe
		{"probe bad qps", kc, nil, []string{"probe", "cm", "--qps", "0"}, 2, "qps"},
		{"probe NaN qps", kc, nil, []string{"probe", "cm", "--qps", "NaN"}, 2, "not a rate"},
		{"probe wrapping future-ahead", kc, nil, []string{"probe", "cm", "--future", "--future-ahead", "18446744073709551615"}, 2, "future-ahead"},
		{"probe negative max-requests", kc, nil, []string{"probe", "cm", "--max-requests", "-3"}, 2, "max-requests"},
		{"probe all with resource", kc, nil, []string{"probe", "cm", "--all"}, 2, "--all"},
		{"probe interval without duration", kc, nil, []string{"probe", "cm", "--interval", "1s"}, 2, "duration"},
		{"probe no resource", kc, nil, []string{"probe"}, 2, "RESOURCE"},
		{"probe unknown resource", kc, nil, []string{"probe", "widgetz"}, 9, "doesn't have a resource type"},
		{"probe unknown output", kc, nil, []string{"probe", "cm", "-o", "table"}, 2, "output"},
		// explain-error
		{"explain empty stdin", kc, []byte{}, []string{"explain-error", "-"}, 2, "stdin"},
		{"explain missing file", kc, nil, []string{"explain-error", "-f", "/nonexistent/log"}, 2, "/nonexistent/log"},
		{"explain binary garbage", kc, garbage, []string{"explain-error", "-"}, 3, "unrecognized"},
		{"explain bad operation", kc, nil, []string{"explain-error", "--operation", "delete", "x"}, 2, "operation"},
		{"explain unknown output", kc, nil, []string{"explain-error", "-o", "xml", "too old resource version: 1 (2)"}, 2, "output"},
		// root
		{"unknown command", kc, nil, []string{"lsit", "cm"}, 2, "lsit"},
		{"unknown global flag", kc, nil, []string{"--colour", "list", "cm"}, 2, "--colour"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each run only reads, on its own
			r := framework.RunInput(t, c.kubeconfig, c.stdin, time.Minute, c.args...)
			if r.Code != c.code {
				t.Fatalf("exit code: want %d, got %d; stderr: %s", c.code, r.Code, r.Stderr)
			}
			stderr := strings.TrimRight(r.Stderr, "\n")
			if strings.HasPrefix(stderr, "watching ") {
				// watch names its request before sending it; the error is the one line after.
				stderr = stderr[strings.IndexByte(stderr, '\n')+1:]
			}
			if strings.Count(stderr, "\n") != 0 {
				t.Fatalf("want exactly one line on stderr, got:\n%s", r.Stderr)
			}
			if !strings.HasPrefix(stderr, "error: ") && c.code != 3 {
				t.Fatalf("want an error line, got %q", stderr)
			}
			if !strings.Contains(strings.ToLower(stderr+r.Stdout), strings.ToLower(c.want)) {
				t.Fatalf("the message should name %q: %q", c.want, stderr)
			}
			if c.code == 2 && !strings.Contains(stderr, "--help") && !bytes.Contains([]byte(stderr), []byte("kubeconfig")) && c.stdin == nil && !strings.Contains(stderr, "-f") {
				t.Fatalf("a usage error should point to --help: %q", stderr)
			}
		})
	}
}
