//go:build e2e

package docs

import (
	"regexp"
	"strconv"
	"strings"
)

// What legitimately changes from one run of the same command on the same
// history: resourceVersions (etcd revisions also move with the API server's
// own writes), UIDs, timestamps, durations and ages. Normalizing every number
// is deliberate: the check is about what the command says and how it lays it
// out, which is where docs drift from code.
var (
	uidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// shortUIDRE: the watch table shows the first 8 hex digits of a UID.
	shortUIDRE  = regexp.MustCompile(`\b[0-9a-f]{8}\b`)
	timestampRE = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?`)
	clockRE     = regexp.MustCompile(`\b\d\d:\d\d:\d\d(\.\d+)?\b`)
	durationRE  = regexp.MustCompile(`\b(\d+(\.\d+)?(ns|µs|us|ms|s|m|h))+\b`)
	// A byte count's unit follows its size (0B, 4.3KB, 1.2 MiB): a
	// capture of a rate must not drift with it.
	sizeRE       = regexp.MustCompile(`\b\d+(\.\d+)? ?(B|KB|MB|GB|KiB|MiB|GiB)\b`)
	numberRE     = regexp.MustCompile(`\d+(\.\d+)?`)
	horizontalWS = regexp.MustCompile(`[ \t]+`)
	clusterDirRE = regexp.MustCompile(`watchrv-cluster-\d+`)
	factsFromRE  = regexp.MustCompile(`gates (read from /metrics|and cache from /metrics <duration> ago, kept <duration>)`)
	// Table rulers grow and shrink with the widths of numbers.
	rulerRE = regexp.MustCompile(`[-─═]{3,}`)
)

func normalize(s string) string {
	// The cluster's directory is a random number, which can be 8 digits
	// and so pass for a short UID (test-long: "watchrv-cluster-<uid>"
	// against a checked-in "watchrv-cluster-#").
	s = clusterDirRE.ReplaceAllString(s, "watchrv-cluster-#")
	s = uidRE.ReplaceAllString(s, "<uid>")
	s = shortUIDRE.ReplaceAllString(s, "<uid>")
	s = timestampRE.ReplaceAllString(s, "<time>")
	s = clockRE.ReplaceAllString(s, "<time>")
	s = durationRE.ReplaceAllString(s, "<duration>")
	// Whether a run read the server's facts or found them kept depends on
	// the runs before it in the same cluster's 10 minutes, not on what
	// the command says (list's "Server:" line).
	s = factsFromRE.ReplaceAllString(s, "gates <read or kept>")
	s = sizeRE.ReplaceAllString(s, "<size>")
	s = numberRE.ReplaceAllString(s, "#")
	s = rulerRE.ReplaceAllString(s, "---")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(horizontalWS.ReplaceAllString(l, " "))
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// firstDifference returns the first line where two normalized texts differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n    checked in: " + wl + "\n    now prints: " + gl
		}
	}
	return ""
}
