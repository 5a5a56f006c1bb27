// Package framework starts a real etcd and real kube-apiservers on loopback
// for the end-to-end tests and the demo, and tears them down afterwards.
package framework

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// RepoRoot is the root of the plugin's repository.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Binaries returns the directory holding kube-apiserver and etcd: the
// WATCHRV_CLUSTER_BIN directory when set, else the cache that
// test/cluster/build.sh fills (a no-op when already built).
func Binaries() (string, error) {
	binOnce.Do(func() {
		if d := os.Getenv("WATCHRV_CLUSTER_BIN"); d != "" {
			binDir = d
		} else {
			cmd := exec.Command("bash", filepath.Join(RepoRoot(), "test", "cluster", "build.sh"))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				binErr = fmt.Errorf("building kube-apiserver and etcd failed: %v: %s", err, lastLines(errb.String(), 20))
				return
			}
			binDir = strings.TrimSpace(lastLines(out.String(), 1))
		}
		for _, b := range []string{"kube-apiserver", "etcd"} {
			if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
				binErr = fmt.Errorf("no %s in %s: %v", b, binDir, err)
			}
		}
	})
	return binDir, binErr
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
