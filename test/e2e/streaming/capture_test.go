//go:build e2e

package streaming

import (
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestCaptureHumanOutput logs the human output that docs/streaming.md
// shows (run with -v to read it); it checks only the exit codes.
func TestCaptureHumanOutput(t *testing.T) {
	for _, c := range []struct {
		code int
		args []string
	}{
		{0, []string{"streaming", "configmaps", "-n", "default"}},
		{1, []string{"streaming", gadgets, "-n", framework.ExtensionNamespace, "--deadline", "3s"}},
		{7, []string{"streaming", "configmaps", "-n", "default", "--kubeconfig", cluster.UserKubeconfig}},
		{0, []string{"probe", "configmaps", "-n", "default", "--metrics"}},
	} {
		r := framework.Run(t, cluster.Kubeconfig, 2*time.Minute, c.args...)
		t.Logf("$ kubectl watchrv %v\n%s%s(exit %d)", c.args, r.Stdout, r.Stderr, r.Code)
		if r.Code != c.code {
			t.Errorf("exit %d, want %d", r.Code, c.code)
		}
	}
}
