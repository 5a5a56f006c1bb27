// Command release packs the binaries that hack/dist.sh cross-compiled into
// reproducible archives, writes their checksums, and writes the release krew
// manifest: a copy of plugin.yaml whose sha256 fields are those archives'.
//
//	go run ./hack/release -version v0.1.0 -build dist/build -out dist \
//	    -mtime 1780000000 -manifest plugin.yaml LICENSE README.md
//
// Two runs over the same binaries and files give byte-identical archives:
// entries are sorted, every mtime is -mtime (the commit time), owners are
// 0/0 with no names, modes are fixed, and gzip carries no name and no time.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	version := flag.String("version", "", "release version, e.g. v0.1.0 (must equal spec.version of the manifest)")
	buildDir := flag.String("build", "dist/build", "directory holding <os>_<arch>/kubectl-watchrv[.exe]")
	outDir := flag.String("out", "dist", "where archives, checksums.txt and plugin.yaml go")
	mtime := flag.Int64("mtime", 0, "modification time of every archive entry, in Unix seconds (use the commit time)")
	manifest := flag.String("manifest", "plugin.yaml", "the krew manifest template")
	partial := flag.Bool("partial", false, "only some platforms were built: the release manifest lists those only (make test's host-only build)")
	flag.Parse()
	if *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "release: -version and the extra files to pack (LICENSE README.md) are required")
		os.Exit(2)
	}
	if err := release(*version, *buildDir, *outDir, time.Unix(*mtime, 0).UTC(), *manifest, *partial, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "release: "+err.Error())
		os.Exit(1)
	}
}

func release(version, buildDir, outDir string, mtime time.Time, manifest string, partial bool, extras []string) error {
	platforms, err := os.ReadDir(buildDir)
	if err != nil {
		return fmt.Errorf("no binaries to pack: %w (run hack/dist.sh)", err)
	}
	sums := map[string]string{} // archive file name -> sha256
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p.Name(), "_")
		if !p.IsDir() || !ok {
			continue
		}
		name, err := pack(version, goos, goarch, filepath.Join(buildDir, p.Name()), outDir, mtime, extras)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", goos, goarch, err)
		}
		sum, err := fileSHA256(filepath.Join(outDir, name))
		if err != nil {
			return err
		}
		sums[name] = sum
	}
	if len(sums) == 0 {
		return fmt.Errorf("no <os>_<arch> directories in %s", buildDir)
	}
	if err := writeChecksums(filepath.Join(outDir, "checksums.txt"), sums); err != nil {
		return err
	}
	return writeManifest(manifest, filepath.Join(outDir, "plugin.yaml"), version, sums, partial)
}

// pack writes kubectl-watchrv_<version>_<os>_<arch>.tar.gz (.zip on windows)
// holding the binary and the extra files, and returns its name.
func pack(version, goos, goarch, binDir, outDir string, mtime time.Time, extras []string) (string, error) {
	bin := "kubectl-watchrv"
	if goos == "windows" {
		bin += ".exe"
	}
	entries := []entry{{path: filepath.Join(binDir, bin), name: bin, mode: 0o755}}
	for _, e := range extras {
		entries = append(entries, entry{path: e, name: filepath.Base(e), mode: 0o644})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	base := fmt.Sprintf("kubectl-watchrv_%s_%s_%s", version, goos, goarch)
	if goos == "windows" {
		return base + ".zip", writeZip(filepath.Join(outDir, base+".zip"), entries, mtime)
	}
	return base + ".tar.gz", writeTarGz(filepath.Join(outDir, base+".tar.gz"), entries, mtime)
}

func fileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// writeChecksums writes the sha256sum format, sorted by file name, so that
// `sha256sum -c checksums.txt` verifies a download.
func writeChecksums(path string, sums map[string]string) error {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
