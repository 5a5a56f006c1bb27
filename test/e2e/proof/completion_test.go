//go:build e2e

package proof

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The real kubectl completes "kubectl watchrv ..." through the helper that
// "completion kubectl" prints, subcommands and resource names alike (the
// names from the real server's discovery).
func TestKubectlCompletesThroughTheHelper(t *testing.T) {
	plugin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(plugin, filepath.Join(bin, "kubectl-watchrv")); err != nil {
		t.Fatal(err)
	}
	helper := framework.Run(t, "", time.Minute, "completion", "kubectl")
	if helper.Code != 0 {
		t.Fatalf("completion kubectl: %d %s", helper.Code, helper.Stderr)
	}
	if err := os.WriteFile(filepath.Join(bin, "kubectl_complete-watchrv"), []byte(helper.Stdout), 0o755); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		t.Helper()
		// kubectl drops its global flags before it calls a plugin's helper:
		// the plugin finds the cluster through KUBECONFIG, as in a shell.
		args := append([]string{"__complete", "watchrv"}, words...)
		cmd := exec.Command("kubectl", args...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir(), "KUBECONFIG="+shared.Kubeconfig)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := complete("pro"); !strings.Contains(out, "probe") {
		t.Fatalf("kubectl watchrv pro<TAB> does not offer probe:\n%s", out)
	}
	if out := complete("list", "config"); !strings.Contains(out, "configmaps") {
		t.Fatalf("kubectl watchrv list config<TAB> does not offer configmaps:\n%s", out)
	}
}
