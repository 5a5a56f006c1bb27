package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// runForTest runs the command line with buffers and no kubeconfig.
func runForTest(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	var out, errb bytes.Buffer
	code := run(args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb})
	return out.String(), errb.String(), code
}

// Bad list flags are refused before any request: one line, the fix, exit 2.
func TestListRejectsBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"list"}, "expected one RESOURCE"},
		{[]string{"list", "a", "b", "c"}, "expected one RESOURCE"},
		{[]string{"list", "cm", "--rv", "abc"}, `--rv "abc" is not a resourceVersion`},
		{[]string{"list", "cm", "--rv", "-1"}, `--rv "-1" is not a resourceVersion`},
		{[]string{"list", "cm", "--rv", "99999999999999999999999"}, "is not a resourceVersion"},
		{[]string{"list", "cm", "--rv", ""}, `--rv "" is not a resourceVersion`},
		{[]string{"list", "cm", "--rv-match", "Exact"}, "--rv-match needs --rv"},
		{[]string{"list", "cm", "--rv", "5", "--rv-match", "Newest"}, `--rv-match "Newest" is not a match rule`},
		{[]string{"list", "cm", "--rv", "0", "--rv-match", "Exact"}, "0 means any"},
		{[]string{"list", "cm", "--limit", "0"}, "--limit 0 is not a page size"},
		{[]string{"list", "cm", "--limit", "-5"}, "--limit -5 is not a page size"},
		{[]string{"list", "cm", "--limit", "x"}, "invalid argument"},
		{[]string{"list", "cm", "--rv-only", "--limit", "10"}, "cannot be combined with --limit"},
		{[]string{"list", "cm", "-o", "table"}, `unknown output format "table"`},
		{[]string{"list", "cm", "--endpoints", ","}, "--endpoints: no endpoint given: list host:port addresses, for example --endpoints 10.0.0.1:6443,10.0.0.2:6443"},
		{[]string{"list", "cm", "--endpoints", "10.0.0.1"}, `--endpoints: endpoint "10.0.0.1" is not host:port`},
		{[]string{"list", "cm", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"list", "cm", "a", "--field-selector", "status=x,metadata.name=b"}, "both select metadata.name"},
		{[]string{"version", "-o", "xml"}, `unknown output format "xml"`},
		{[]string{"completion"}, "name one shell"},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, errOut, code := runForTest(t, c.args...)
			if code != ExitUsage {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, ExitUsage, errOut)
			}
			if out != "" {
				t.Fatalf("nothing belongs on stdout, got %q", out)
			}
			line := strings.TrimSuffix(errOut, "\n")
			if strings.Contains(line, "\n") || !strings.HasPrefix(line, "error: ") || !strings.Contains(line, c.want) {
				t.Fatalf("want one line with %q, got %q", c.want, errOut)
			}
			if !strings.Contains(line, "--help") {
				t.Fatalf("a usage error should point to --help: %q", line)
			}
		})
	}
}

// metadata.namespace is not metadata.name: NAME goes with it.
func TestNameWithANamespaceFieldSelector(t *testing.T) {
	_, errOut, code := runForTest(t, "list", "cm", "a", "-A", "--field-selector", "metadata.namespace=x", "--server", "https://127.0.0.1:1", "--request-timeout", "2s")
	if code == ExitUsage || strings.Contains(errOut, "both select") {
		t.Fatalf("refused: exit %d %s", code, errOut)
	}
}

// Issue 25 F32, as a class: every command that takes RESOURCE refuses
// several types in one argument (cm,secrets) before any request, naming
// each, with exit 2 (not "the server doesn't have a resource type").
func TestOneResourceTypeAtATime(t *testing.T) {
	for _, args := range [][]string{
		{"list", "cm,secrets"}, {"list", "cm,secrets", "a"}, {"watch", "cm,secrets"}, {"probe", "cm,secrets"}, {"streaming", "cm,secrets"},
	} {
		out, errOut, code := runForTest(t, append(args, "--server", "https://127.0.0.1:1", "--request-timeout", "2s")...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, `"cm,secrets" names 2 resource types`) || !strings.Contains(errOut, "cm, secrets") || strings.Contains(errOut, "doesn't have") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
}

func TestVersionClientOnly(t *testing.T) {
	out, errOut, code := runForTest(t, "version", "--client", "-o", "json")
	if code != 0 || !strings.Contains(out, `"clientVersion": "`+version+`"`) || errOut != "" {
		t.Fatalf("version --client: code %d, out %q, err %q", code, out, errOut)
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out, errOut, code := runForTest(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "watchrv") {
			t.Fatalf("completion %s: code %d, %d bytes, err %q", sh, code, len(out), errOut)
		}
	}
}
