//go:build e2e

package krew

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// release is one `make dist` of the committed tree.
type release struct {
	dir     string // the dist directory
	version string
	mtime   int64 // the commit time, every archive entry's mtime
}

var (
	distOnce  sync.Once
	distFirst *release
	distErr   error
	srcDir    string
)

// firstDist runs `make dist` once per test process, on a copy of HEAD
// (git archive), so that other work in progress in the tree does not leak
// into the release. It builds the platforms of WATCHRV_RELEASE_PLATFORMS.
func firstDist(t *testing.T) *release {
	t.Helper()
	distOnce.Do(func() {
		if _, _, distErr = releasePlatforms(); distErr != nil {
			return
		}
		srcDir, distErr = os.MkdirTemp("", "watchrv-release-src-")
		if distErr != nil {
			return
		}
		root := framework.RepoRoot()
		script := fmt.Sprintf("git -C %q archive HEAD | tar -x -C %q", root, srcDir)
		if out, err := exec.Command("bash", "-c", script).CombinedOutput(); err != nil {
			distErr = fmt.Errorf("git archive HEAD: %v: %s", err, out)
			return
		}
		distFirst, distErr = makeDist(filepath.Join(os.TempDir(), "watchrv-dist-1-"+strconv.Itoa(os.Getpid())))
	})
	if distErr != nil {
		t.Fatal(distErr)
	}
	return distFirst
}

func makeDist(dir string) (*release, error) {
	out, err := exec.Command("git", "-C", framework.RepoRoot(), "log", "-1", "--format=%ct").Output()
	if err != nil {
		return nil, fmt.Errorf("commit time: %v", err)
	}
	mtime, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return nil, err
	}
	version, err := os.ReadFile(filepath.Join(srcDir, "VERSION"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("make", "dist")
	cmd.Dir = srcDir
	mode, _, err := releasePlatforms()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), "DIST_DIR="+dir, "DIST_PLATFORMS="+mode, "SOURCE_DATE_EPOCH="+strconv.FormatInt(mtime, 10))
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make dist: %v: %s", err, out)
	}
	fmt.Printf("make dist (DIST_PLATFORMS=%s) into %s took %s\n", mode, dir, time.Since(start).Round(time.Second))
	return &release{dir: dir, version: strings.TrimSpace(string(version)), mtime: mtime}, nil
}

type platform struct{ os, arch string }

// allPlatforms are those of plugin.yaml, which make dist builds by default.
var allPlatforms = []platform{
	{"darwin", "amd64"}, {"darwin", "arm64"}, {"linux", "amd64"},
	{"linux", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"},
}

// host is the platform these tests run on, the one krew really installs.
var host = platform{runtime.GOOS, runtime.GOARCH}

// releasePlatforms reads WATCHRV_RELEASE_PLATFORMS: "host" (the default,
// what make test builds: this machine's archive, twice) or "all" (make
// release-check: every platform of plugin.yaml, twice). It returns the
// DIST_PLATFORMS value for hack/dist.sh and the platforms to expect.
func releasePlatforms() (string, []platform, error) {
	switch v := os.Getenv("WATCHRV_RELEASE_PLATFORMS"); v {
	case "", "host":
		return "host", []platform{host}, nil
	case "all":
		return "all", allPlatforms, nil
	default:
		return "", nil, fmt.Errorf("WATCHRV_RELEASE_PLATFORMS=%q: want host or all", v)
	}
}

// platforms are those this run builds and checks.
func platforms(t *testing.T) []platform {
	t.Helper()
	_, ps, err := releasePlatforms()
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func (r *release) archive(goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return filepath.Join(r.dir, fmt.Sprintf("kubectl-watchrv_%s_%s_%s%s", r.version, goos, goarch, ext))
}

func (r *release) files(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestDistIsReproducible(t *testing.T) {
	first := firstDist(t)
	second, err := makeDist(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names := first.files(t)
	if got := second.files(t); strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("the two dists hold different files:\n  %v\n  %v", names, got)
	}
	if want := len(platforms(t)) + 2; len(names) != want {
		t.Errorf("dist holds %v, want %d archives, checksums.txt and plugin.yaml", names, want-2)
	}
	for _, n := range names {
		a, b := sha256Hex(t, filepath.Join(first.dir, n)), sha256Hex(t, filepath.Join(second.dir, n))
		if a != b {
			t.Errorf("%s differs between two make dist of the same commit: %s vs %s", n, a, b)
		}
	}
}

func TestDistArchivesAndChecksums(t *testing.T) {
	r := firstDist(t)
	sums, err := os.ReadFile(filepath.Join(r.dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(r.dir, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ps := platforms(t)
	if n := strings.Count(string(manifest), "\n    uri: "); n != len(ps) {
		t.Errorf("the release plugin.yaml lists %d platforms, want the %d built:\n%s", n, len(ps), manifest)
	}
	if strings.Contains(string(manifest), strings.Repeat("0", 64)) {
		t.Errorf("the release plugin.yaml keeps a placeholder sha256:\n%s", manifest)
	}
	for _, p := range ps {
		path := r.archive(p.os, p.arch)
		sum := sha256Hex(t, path)
		line := sum + "  " + filepath.Base(path)
		if !strings.Contains(string(sums), line+"\n") {
			t.Errorf("checksums.txt lacks %q", line)
		}
		if !strings.Contains(string(manifest), filepath.Base(path)+"\n    sha256: \""+sum+"\"") {
			t.Errorf("the release plugin.yaml does not give %s the sha256 %s", filepath.Base(path), sum)
		}
		bin := "kubectl-watchrv"
		if p.os == "windows" {
			bin += ".exe"
		}
		want := []string{"LICENSE 0644", "README.md 0644", bin + " 0755"}
		if got := archiveEntries(t, path, r.mtime); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s holds %v, want %v", filepath.Base(path), got, want)
		}
	}
}

// archiveEntries lists "name mode" of every entry, checking the fixed
// metadata that makes archives reproducible: owner 0/0 without names, and
// the commit time as mtime.
func archiveEntries(t *testing.T, path string, mtime int64) []string {
	t.Helper()
	var got []string
	if strings.HasSuffix(path, ".zip") {
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			if f.Modified.Unix() != mtime {
				t.Errorf("%s: %s has mtime %v, want the commit time %v", path, f.Name, f.Modified.Unix(), mtime)
			}
			got = append(got, fmt.Sprintf("%s %04o", f.Name, f.Mode().Perm()))
		}
		return got
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("%s: gzip header carries name %q and time %v, want none", path, gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != mtime {
			t.Errorf("%s: %s has uid %d gid %d uname %q gname %q mtime %d, want 0 0 \"\" \"\" %d", path, h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime.Unix(), mtime)
		}
		got = append(got, fmt.Sprintf("%s %04o", h.Name, h.Mode))
	}
	return got
}
