package main

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

var (
	versionLine = regexp.MustCompile(`^\s*version:\s*(\S+)\s*$`)
	uriLine     = regexp.MustCompile(`^\s*uri:\s*(\S+)\s*$`)
	sha256Line  = regexp.MustCompile(`^(\s*sha256:\s*)\S+\s*$`)
)

// writeManifest copies the manifest template line by line, replacing the
// sha256 that follows each uri with the sum of the archive the uri names.
// Text, not YAML, is rewritten so the release copy keeps the template's
// comments and layout. Every platform of the template must have been built,
// and every archive built must be in the template.
func writeManifest(template, out, version string, sums map[string]string) error {
	b, err := os.ReadFile(template)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	used := map[string]bool{}
	pending := "" // archive named by the last uri, waiting for its sha256
	sawVersion := false
	for i, l := range lines {
		if m := versionLine.FindStringSubmatch(l); m != nil && !sawVersion {
			sawVersion = true
			if m[1] != version {
				return fmt.Errorf("%s has spec.version %s but VERSION is %s: update %s", template, m[1], version, template)
			}
		}
		if m := uriLine.FindStringSubmatch(l); m != nil {
			pending = path.Base(m[1])
			if _, ok := sums[pending]; !ok {
				return fmt.Errorf("%s names %s, which was not built", template, pending)
			}
			if !strings.Contains(m[1], "/"+version+"/") {
				return fmt.Errorf("%s: uri %s is not under the release %s", template, m[1], version)
			}
		}
		if m := sha256Line.FindStringSubmatch(l); m != nil {
			if pending == "" {
				return fmt.Errorf("%s line %d: sha256 without a uri before it", template, i+1)
			}
			lines[i] = m[1] + `"` + sums[pending] + `"`
			used[pending] = true
			pending = ""
		}
	}
	if !sawVersion {
		return fmt.Errorf("%s has no spec.version", template)
	}
	for name := range sums {
		if !used[name] {
			return fmt.Errorf("%s was built but %s has no platform for it", name, template)
		}
	}
	return os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o644)
}
