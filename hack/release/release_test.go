package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The same inputs, packed twice, give the same bytes, whatever the files'
// own mtimes and modes on disk.
func TestPackIsReproducible(t *testing.T) {
	mtime := time.Unix(1780000000, 0).UTC()
	for _, goos := range []string{"linux", "windows"} {
		var archives [][]byte
		for run := 0; run < 2; run++ {
			src, out := t.TempDir(), t.TempDir()
			bin := "kubectl-watchrv"
			if goos == "windows" {
				bin += ".exe"
			}
			write(t, filepath.Join(src, "bin", bin), "binary", 0o700)
			write(t, filepath.Join(src, "LICENSE"), "license", 0o600)
			// A different disk mtime on each run must not matter.
			os.Chtimes(filepath.Join(src, "LICENSE"), time.Now(), time.Now().Add(time.Duration(run)*time.Hour))
			name, err := pack("v0.1.0", goos, "amd64", filepath.Join(src, "bin"), out, mtime, []string{filepath.Join(src, "LICENSE")})
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			archives = append(archives, b)
		}
		if !bytes.Equal(archives[0], archives[1]) {
			t.Errorf("%s: two packs of the same files differ", goos)
		}
	}
}

func TestWriteManifestFillsEverySHA256(t *testing.T) {
	v, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	sums := map[string]string{}
	for _, p := range []string{"linux_amd64.tar.gz", "linux_arm64.tar.gz", "darwin_amd64.tar.gz", "darwin_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		sums["kubectl-watchrv_"+version+"_"+p] = strings.Repeat(string("abcdef"[len(sums)]), 64)
	}
	out := filepath.Join(t.TempDir(), "plugin.yaml")
	if err := writeManifest("../../plugin.yaml", out, version, sums, false); err != nil {
		t.Fatalf("the checked-in plugin.yaml is not a usable template for %s: %v", version, err)
	}
	b, _ := os.ReadFile(out)
	for name, sum := range sums {
		if !strings.Contains(string(b), name+"\n    sha256: \""+sum+"\"") {
			t.Errorf("%s did not get its sha256", name)
		}
	}
	if strings.Contains(string(b), strings.Repeat("0", 64)) {
		t.Error("a placeholder sha256 is left in the release manifest")
	}
	if err := writeManifest("../../plugin.yaml", out, "v9.9.9", sums, false); err == nil || !strings.Contains(err.Error(), "spec.version") {
		t.Errorf("a VERSION that differs from spec.version was accepted: %v", err)
	}
	delete(sums, "kubectl-watchrv_"+version+"_windows_arm64.zip")
	if err := writeManifest("../../plugin.yaml", out, version, sums, false); err == nil {
		t.Error("a manifest naming an archive that was not built was accepted")
	}
}

// A partial build (make test: the host's archive only) gets a manifest that
// lists the platforms built, with their sums, and nothing else.
func TestWriteManifestPartialKeepsBuiltPlatformsOnly(t *testing.T) {
	v, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	template, err := os.ReadFile("../../plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(template), "  platforms:\n")
	sum := strings.Repeat("a", 64)
	for _, p := range []string{"linux_amd64.tar.gz", "linux_arm64.tar.gz", "darwin_amd64.tar.gz", "darwin_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		built := "kubectl-watchrv_" + version + "_" + p
		out := filepath.Join(t.TempDir(), "plugin.yaml")
		if err := writeManifest("../../plugin.yaml", out, version, map[string]string{built: sum}, true); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		got := string(b)
		osArch := strings.Split(strings.Split(p, ".")[0], "_")
		item := "  platforms:\n  - selector:\n      matchLabels:\n        os: " + osArch[0] + "\n        arch: " + osArch[1] + "\n"
		if !strings.HasPrefix(got, head+item) {
			t.Errorf("%s: the partial manifest is not the template's head, then that platform:\n%s", p, got)
		}
		if !strings.Contains(got, built+"\n    sha256: \""+sum+"\"") {
			t.Errorf("%s did not get its sha256:\n%s", built, got)
		}
		if n := strings.Count(got, "uri:"); n != 1 {
			t.Errorf("%s: the partial manifest has %d platforms, want 1:\n%s", p, n, got)
		}
		if !strings.HasSuffix(got, "    bin: kubectl-watchrv"+map[bool]string{true: ".exe"}[osArch[0] == "windows"]+"\n") {
			t.Errorf("%s: the item is not whole or the final newline is lost:\n%s", p, got)
		}
	}
	out := filepath.Join(t.TempDir(), "plugin.yaml")
	if err := writeManifest("../../plugin.yaml", out, version, map[string]string{"kubectl-watchrv_" + version + "_plan9_amd64.tar.gz": sum}, true); err == nil {
		t.Error("a partial build of an archive the template does not name was accepted")
	}
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}
