//go:build e2e

package krew

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

const krewVersion = "v0.4.3"

var (
	toolsOnce sync.Once
	toolsDir  string
	toolsErr  error
)

// krewTools installs krew and validate-krew-manifest v0.4.3 once into a
// cache outside the tree (go install; a no-op when already there).
func krewTools(t *testing.T) string {
	t.Helper()
	toolsOnce.Do(func() {
		home, err := os.UserHomeDir()
		if err != nil {
			toolsErr = err
			return
		}
		toolsDir = filepath.Join(home, ".cache", "kubectl-watchrv", "tools", "krew-"+krewVersion)
		for _, tool := range []string{"krew", "validate-krew-manifest"} {
			if _, err := os.Stat(filepath.Join(toolsDir, tool)); err == nil {
				continue
			}
			cmd := exec.Command("go", "install", "sigs.k8s.io/krew/cmd/"+tool+"@"+krewVersion)
			cmd.Env = append(os.Environ(), "GOBIN="+toolsDir, "GOFLAGS=")
			if out, err := cmd.CombinedOutput(); err != nil {
				toolsErr = err
				t.Logf("go install %s: %s", tool, out)
				return
			}
		}
	})
	if toolsErr != nil {
		t.Fatalf("installing krew %s: %v", krewVersion, toolsErr)
	}
	return toolsDir
}

// krewEnv is a fresh KREW_ROOT with an empty local index (krew refuses list
// and uninstall without one, and a real index would need the network).
type krewEnv struct {
	t    *testing.T
	krew string
	root string
	env  []string
}

func newKrewEnv(t *testing.T, extraEnv ...string) *krewEnv {
	t.Helper()
	k := &krewEnv{t: t, krew: filepath.Join(krewTools(t), "krew"), root: t.TempDir()}
	index := filepath.Join(k.root, "index", "default")
	if out, err := exec.Command("git", "init", "-q", index).CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v: %s", index, err, out)
	}
	if err := os.MkdirAll(filepath.Join(index, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is needed on PATH to prove plugin discovery: %v", err)
	}
	// PATH: the krew bin dir and kubectl only, so that no other
	// kubectl-watchrv can be what kubectl finds.
	k.env = append([]string{
		"KREW_ROOT=" + k.root,
		"KREW_NO_UPGRADE_CHECK=1",
		"HOME=" + t.TempDir(),
		"PATH=" + filepath.Join(k.root, "bin") + string(os.PathListSeparator) + filepath.Dir(kubectl) + string(os.PathListSeparator) + "/usr/bin:/bin",
		"KUBECONFIG=" + shared.Kubeconfig,
		"NO_COLOR=1",
	}, extraEnv...)
	return k
}

// run runs a command with the krew environment and returns its combined
// output and exit code.
func (k *krewEnv) run(name string, args ...string) (string, int) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = k.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		k.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out.String(), 0
}

func TestReleaseManifestPassesKrewValidation(t *testing.T) {
	r := firstDist(t)
	krewTools(t)
	for _, m := range []string{filepath.Join(framework.RepoRoot(), "plugin.yaml"), filepath.Join(r.dir, "plugin.yaml")} {
		out, err := exec.Command("bash", filepath.Join(framework.RepoRoot(), "hack", "krew-check.sh"), m).CombinedOutput()
		if err != nil {
			t.Errorf("krew validation of %s failed: %v\n%s", m, err, out)
		}
	}
}

func TestKrewInstallRunUninstall(t *testing.T) {
	r := firstDist(t)
	k := newKrewEnv(t)
	manifest := filepath.Join(r.dir, "plugin.yaml")
	out, code := k.run(k.krew, "install", "--manifest="+manifest, "--archive="+r.archive(host.os, host.arch))
	if code != 0 || !strings.Contains(out, "Installed plugin: watchrv") {
		t.Fatalf("krew install exited %d:\n%s", code, out)
	}

	out, code = k.run("kubectl", "watchrv", "version")
	if code != 0 || !strings.Contains(out, "Plugin Version: "+r.version) || !strings.Contains(out, "Server Version: v1.37.2") {
		t.Errorf("kubectl watchrv version through kubectl's plugin discovery exited %d:\n%s", code, out)
	}
	bin := filepath.Join(k.root, "bin", "kubectl-watchrv")
	out, code = k.run("kubectl", "plugin", "list")
	if code != 0 || !strings.Contains(out, bin) {
		t.Errorf("kubectl plugin list (exit %d) does not list %s:\n%s", code, bin, out)
	}
	out, code = k.run(k.krew, "list")
	if code != 0 || !regexp.MustCompile(`(?m)^(detached/)?watchrv`).MatchString(out) {
		t.Errorf("krew list (exit %d) does not list watchrv:\n%s", code, out)
	}

	out, code = k.run(k.krew, "uninstall", "watchrv")
	if code != 0 {
		t.Fatalf("krew uninstall watchrv exited %d:\n%s", code, out)
	}
	if _, err := os.Lstat(bin); !os.IsNotExist(err) {
		t.Errorf("%s is still there after krew uninstall (%v)", bin, err)
	}
	if out, code = k.run("kubectl", "watchrv", "version", "--client"); code == 0 {
		t.Errorf("kubectl watchrv still runs after krew uninstall:\n%s", out)
	}
}

func TestKrewRejectsWrongSHA256(t *testing.T) {
	r := firstDist(t)
	k := newKrewEnv(t)
	archive := r.archive(host.os, host.arch)
	good := sha256Hex(t, archive)
	manifest, err := os.ReadFile(filepath.Join(r.dir, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("0", 64)
	tampered := strings.Replace(string(manifest), good, wrong, 1)
	if tampered == string(manifest) {
		t.Fatalf("the release manifest does not hold the archive's sha256 %s", good)
	}
	path := filepath.Join(t.TempDir(), "plugin.yaml")
	if err := os.WriteFile(path, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := k.run(k.krew, "install", "--manifest="+path, "--archive="+archive)
	if code == 0 || !strings.Contains(out, "checksum does not match") {
		t.Errorf("krew install with a wrong sha256 exited %d, want a checksum refusal:\n%s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(k.root, "bin", "kubectl-watchrv")); !os.IsNotExist(err) {
		t.Errorf("a plugin with a wrong sha256 was installed anyway (%v)", err)
	}
}

// TestEveryPlatformInstalls installs each archive built as krew on that
// platform would (KREW_OS, KREW_ARCH): the manifest's files and bin fit every
// archive. Under make test that is the host's archive; make release-check
// (WATCHRV_RELEASE_PLATFORMS=all) does all six.
func TestEveryPlatformInstalls(t *testing.T) {
	r := firstDist(t)
	manifest := filepath.Join(r.dir, "plugin.yaml")
	for _, p := range platforms(t) {
		t.Run(p.os+"_"+p.arch, func(t *testing.T) {
			k := newKrewEnv(t, "KREW_OS="+p.os, "KREW_ARCH="+p.arch)
			out, code := k.run(k.krew, "install", "--manifest="+manifest, "--archive="+r.archive(p.os, p.arch))
			if code != 0 {
				t.Fatalf("krew install for %s/%s exited %d:\n%s", p.os, p.arch, code, out)
			}
			bin := "kubectl-watchrv"
			if p.os == "windows" {
				bin += ".exe"
			}
			store := filepath.Join(k.root, "store", "watchrv", r.version)
			for _, f := range []string{bin, "LICENSE"} {
				if _, err := os.Stat(filepath.Join(store, f)); err != nil {
					t.Errorf("%s/%s: %s not installed: %v", p.os, p.arch, f, err)
				}
			}
			if _, err := os.Stat(filepath.Join(k.root, "bin", bin)); err != nil {
				t.Errorf("%s/%s: no %s in krew's bin dir: %v", p.os, p.arch, bin, err)
			}
		})
	}
}

// TestKrewInstallsFromManifestURL follows docs/install.md: krew install
// --manifest-url with the release's plugin.yaml, here served on loopback.
// Unlike --manifest, --manifest-url first updates krew's index from GitHub:
// --no-update-index keeps the test on loopback.
func TestKrewInstallsFromManifestURL(t *testing.T) {
	r := firstDist(t)
	k := newKrewEnv(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(r.dir)))
	defer srv.Close()
	out, code := k.run(k.krew, "install", "--no-update-index", "--manifest-url="+srv.URL+"/plugin.yaml", "--archive="+r.archive(host.os, host.arch))
	if code != 0 || !strings.Contains(out, "Installed plugin: watchrv") {
		t.Fatalf("krew install --manifest-url exited %d:\n%s", code, out)
	}
	if out, code = k.run("kubectl", "watchrv", "version", "--client"); code != 0 || !strings.Contains(out, r.version) {
		t.Errorf("kubectl watchrv version --client after install from a URL exited %d:\n%s", code, out)
	}
}

// TestKrewRefusesTheTemplate: the plugin.yaml at the repository root is the
// template with zero sha256s, not something to install from (docs/install.md
// says so).
func TestKrewRefusesTheTemplate(t *testing.T) {
	r := firstDist(t)
	k := newKrewEnv(t)
	out, code := k.run(k.krew, "install", "--manifest="+filepath.Join(framework.RepoRoot(), "plugin.yaml"), "--archive="+r.archive(host.os, host.arch))
	if code == 0 || !strings.Contains(out, "checksum does not match") {
		t.Errorf("krew install from the template plugin.yaml exited %d, want a checksum refusal:\n%s", code, out)
	}
}
