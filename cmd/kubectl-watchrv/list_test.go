package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
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
		{[]string{"list", "cm", "--rv", "99999999999999999999999"}, "--rv 99999999999999999999999 is larger than any revision"},
		// One limit for both (fresh try 7: 2^64 was told "at most 2^64-1").
		{[]string{"watch", "cm", "--rv", "18446744073709551616"}, "(at most 9223372036854775807)"},
		// The real length of a long value, though two layers echo it.
		{[]string{"list", "cm", "--rv", strings.Repeat("9", 300)}, "…[300 bytes] is larger than any revision"},
		{[]string{"watch", "cm", "--rv", strings.Repeat("9", 1000)}, "…[1000 bytes] is larger than any revision"},
		{[]string{"explain-error", "--rv", "abc", "x"}, "give the RV the request asked for"},
		{[]string{"watch", "cm", "--rv", "9223372036854775808"}, "is larger than any revision"},
		{[]string{"list", "cm", "--rv", "18446744073709551615"}, "is larger than any revision"},
		{[]string{"list", "cm", "--rv", ""}, `--rv "" is not a resourceVersion`},
		{[]string{"list", "cm", "--rv-match", "Exact"}, "--rv-match needs --rv"},
		{[]string{"list", "cm", "--rv", "5", "--rv-match", "Newest"}, `--rv-match "Newest" is not a match rule`},
		{[]string{"list", "cm", "--rv", "0", "--rv-match", "Exact"}, "0 means any"},
		{[]string{"list", "cm", "--limit", "0"}, "--limit 0 is not a page size"},
		{[]string{"list", "cm", "--limit", "-5"}, "--limit -5 is not a page size"},
		{[]string{"list", "cm", "--limit", "x"}, `--limit "x" is not a whole number`},
		{[]string{"list", "cm", "--rv-only", "--limit", "10"}, "cannot be combined with --limit"},
		{[]string{"list", "cm", "-o", "table"}, `unknown output format "table"`},
		{[]string{"list", "cm", "--endpoints", ","}, "--endpoints: no endpoint given: list host:port addresses, for example --endpoints 10.0.0.1:6443,10.0.0.2:6443"},
		{[]string{"list", "cm", "--endpoints", "10.0.0.1"}, `--endpoints: endpoint "10.0.0.1" is not host:port`},
		{[]string{"list", "cm", "--endpoints", ""}, "--endpoints: no endpoint given"},
		{[]string{"probe", "cm", "--endpoints", ""}, "--endpoints: no endpoint given"},
		{[]string{"probe", "cm", "--endpoints", ","}, "--endpoints: no endpoint given"},
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

// The mixed-servers warning of list names "list RESOURCE ... --servers"
// in the user's context (pkg/suggest); pasted through a shell, the plugin
// takes it (no usage error) with the scope and context it carries.
func TestListServersSuggestionIsAccepted(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	root, _ := newRootCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root.SetArgs([]string{"list", "cm", "a", "-n", "demo", "-l", "app in (x)", "--server", "https://127.0.0.1:1", "--request-timeout", "1s", "--token", "s3cret"})
	var o *ListOptions
	for _, c := range root.Commands() {
		if c.Name() == "list" {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				o = &ListOptions{RootOptions: &RootOptions{ConfigFlags: genericclioptions.NewConfigFlags(true)}}
				o.suggest = suggest.From(cmd.Flags(), os.Getenv)
				return nil
			}
		}
	}
	if err := root.Execute(); err != nil || o == nil {
		t.Fatal(err)
	}
	res := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	line := o.serversCommand(res, suggest.Scope{Namespace: "demo", LabelSelector: "app in (x)", Name: "a"})
	if strings.Contains(line, "s3cret") || !strings.HasPrefix(line, "kubectl watchrv list configmaps a -n demo -l 'app in (x)' --servers --request-timeout 1s --server https://127.0.0.1:1 --token") {
		t.Fatalf("suggested %s", line)
	}
	out, err := exec.Command("bash", "--norc", "-c", `kubectl() { printf '%s\0' "$@"; }; WATCHRV_TOKEN=s3cret `+line).Output()
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")[1:] // after "watchrv"
	_, errOut, code := runForTest(t, args...)
	if code == ExitUsage {
		t.Fatalf("the plugin refuses its own suggestion %q: %s", args, errOut)
	}
}
