package framework

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var (
	matrixOnce sync.Once
	matrixDirs map[string]string
	matrixErr  error
)

// MatrixBinaries returns the directory of each binary of the server matrix,
// by name: "etcd", "kine", and one per kube-apiserver minor ("v1.30",
// "v1.33", "v1.35", "v1.36", "v1.37"). They come from WATCHRV_MATRIX_BIN when set
// (the NAME=DIR lines that test/cluster/build-matrix.sh prints, separated by
// newlines or spaces), else from running build-matrix.sh (a no-op when
// everything is built already).
func MatrixBinaries() (map[string]string, error) {
	matrixOnce.Do(func() {
		text := os.Getenv("WATCHRV_MATRIX_BIN")
		if text == "" {
			cmd := exec.Command("bash", filepath.Join(RepoRoot(), "test", "cluster", "build-matrix.sh"))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				matrixErr = fmt.Errorf("building the server matrix failed: %v: %s", err, lastLines(errb.String(), 20))
				return
			}
			text = out.String()
		}
		matrixDirs, matrixErr = parseMatrixBin(text)
	})
	return matrixDirs, matrixErr
}

// parseMatrixBin reads NAME=DIR fields; every DIR must hold its binary.
func parseMatrixBin(text string) (map[string]string, error) {
	dirs := map[string]string{}
	for _, f := range strings.Fields(text) {
		name, dir, ok := strings.Cut(f, "=")
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("WATCHRV_MATRIX_BIN: %q is not NAME=DIR (the lines test/cluster/build-matrix.sh prints)", f)
		}
		bin := "kube-apiserver"
		switch {
		case name == "etcd" || name == "kine":
			bin = name
		case !strings.HasPrefix(name, "v1."):
			return nil, fmt.Errorf("WATCHRV_MATRIX_BIN: unknown binary name %q", name)
		}
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return nil, fmt.Errorf("WATCHRV_MATRIX_BIN: no %s in %s: %v", bin, dir, err)
		}
		dirs[name] = dir
	}
	return dirs, nil
}
