package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WATCHRV_MATRIX_BIN takes build-matrix.sh's output as it is (lines or
// spaces) and refuses a directory without its binary, naming it.
func TestParseMatrixBin(t *testing.T) {
	dir := t.TempDir()
	for _, b := range []string{"etcd", "kine", "kube-apiserver"} {
		if err := os.WriteFile(filepath.Join(dir, b), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := parseMatrixBin("etcd=" + dir + "\nv1.37=" + dir + "\nkine=" + dir + " v1.30=" + dir + "\n")
	if err != nil || len(got) != 4 || got["v1.30"] != dir {
		t.Fatalf("%v %v", got, err)
	}
	empty := t.TempDir()
	for text, want := range map[string]string{
		"v1.33=" + empty: "no kube-apiserver in " + empty,
		"kine=" + empty:  "no kine in " + empty,
		"v1.33":          "is not NAME=DIR",
		"mysql=" + dir:   `unknown binary name "mysql"`,
	} {
		if _, err := parseMatrixBin(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", text, err, want)
		}
	}
}
