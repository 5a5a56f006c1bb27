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
// comments and layout. Every archive built must be in the template, and
// every platform of the template must have been built, unless partial: a
// partial build (make test builds the host's archive only) gets a manifest
// of the platforms it built, never a placeholder sha256.
func writeManifest(template, out, version string, sums map[string]string, partial bool) error {
	b, err := os.ReadFile(template)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	if partial {
		if lines, err = keepBuiltPlatforms(lines, sums); err != nil {
			return fmt.Errorf("%s: %w", template, err)
		}
	}
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

var (
	platformsLine = regexp.MustCompile(`^(\s*)platforms:\s*$`)
	itemLine      = regexp.MustCompile(`^(\s*)- `)
)

// keepBuiltPlatforms drops the items of spec.platforms whose uri names an
// archive that was not built. An item runs from its "- " line to the next
// item at the same indentation, or to the first line indented no deeper
// than "platforms:" (the end of the list).
func keepBuiltPlatforms(lines []string, sums map[string]string) ([]string, error) {
	if n := len(lines); n > 0 && lines[n-1] == "" {
		// The file's final newline belongs to the file, not to the last item.
		kept, err := keepBuiltPlatforms(lines[:n-1], sums)
		return append(kept, ""), err
	}
	start, indent := -1, ""
	for i, l := range lines {
		if m := platformsLine.FindStringSubmatch(l); m != nil {
			start, indent = i+1, m[1]
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no spec.platforms")
	}
	kept := append([]string(nil), lines[:start]...)
	var item []string
	itemIndent := ""
	flush := func() {
		for _, l := range item {
			if m := uriLine.FindStringSubmatch(l); m != nil {
				if _, ok := sums[path.Base(m[1])]; ok {
					kept = append(kept, item...)
				}
				break
			}
		}
		item = nil
	}
	n := 0
	i := start
	for ; i < len(lines); i++ {
		l := lines[i]
		if m := itemLine.FindStringSubmatch(l); m != nil && (itemIndent == "" || m[1] == itemIndent) && len(m[1]) >= len(indent) {
			flush()
			itemIndent = m[1]
			item = []string{l}
			n++
			continue
		}
		if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " ")) <= len(indent) && !strings.HasPrefix(l, itemIndent+"- ") {
			break
		}
		item = append(item, l)
	}
	flush()
	if n == 0 {
		return nil, fmt.Errorf("spec.platforms has no items")
	}
	return append(kept, lines[i:]...), nil
}
