package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// goBinary is a program of this repository that the tests run: built once
// per test process (go build is slow, and every test needs the same build),
// unless its environment variable names a binary already built.
type goBinary struct {
	envVar string   // a path here skips the build
	name   string   // the file name of the build
	pkg    string   // the package to build, relative to the repository root
	flags  []string // extra go build flags

	once sync.Once
	path string
	err  error
}

// Path builds the program on the first call and returns its path.
func (b *goBinary) Path() (string, error) {
	b.once.Do(func() {
		if p := os.Getenv(b.envVar); p != "" {
			b.path = p
			return
		}
		dir, err := os.MkdirTemp("", "watchrv-"+b.name+"-")
		if err != nil {
			b.err = err
			return
		}
		builtMu.Lock()
		builtDirs = append(builtDirs, dir)
		builtMu.Unlock()
		b.path = filepath.Join(dir, b.name)
		args := append(append([]string{"build", "-o", b.path}, b.flags...), b.pkg)
		cmd := exec.Command("go", args...)
		cmd.Dir = RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building %s: %v: %s", b.pkg, err, out)
		}
	})
	return b.path, b.err
}

var (
	builtMu   sync.Mutex
	builtDirs []string
)

// RemoveBuiltBinaries removes the directories of the programs this process
// built (never a binary named by an environment variable). A long-lived
// process (the demo) calls it on exit; a later Path builds again.
func RemoveBuiltBinaries() {
	builtMu.Lock()
	defer builtMu.Unlock()
	for _, d := range builtDirs {
		os.RemoveAll(d)
	}
	builtDirs = nil
}
