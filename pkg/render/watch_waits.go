package render

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// watchHeld says, on a reconnect or relist line, a wait the plugin added
// before it ("" for none): a line whose "in 0.0s" came after 10 s spent
// reading /version hid that wait (adversary try 25 F1).
func watchHeld(r WatchNoticeRecord) string {
	if r.HeldSeconds == 0 || r.HeldBy == "" {
		return ""
	}
	return fmt.Sprintf(" (after %.1fs %s)", r.HeldSeconds, r.HeldBy)
}

// stalledStreams is the Session line's count of streams the stall
// watchdog closed ("" for none): counted when closed, so a run cut before
// the reconnect still records them.
func stalledStreams(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s closed silent by --stall-timeout", text.Count(n, "stream"))
}

// watchTried says the RVs a relist listed from, in order, each as what it
// is: "" is a consistent read, never `RV ""`; and a relist that did not
// list from the RV the failed watch had says why (adversary try 25 F7:
// `(tried RV "")` right after the watch from RV 100 failed).
func watchTried(r WatchNoticeRecord) string {
	tried := make([]string, len(r.Tried))
	for i, t := range r.Tried {
		if t == "" {
			tried[i] = "a consistent read (no RV)"
		} else {
			tried[i] = fmt.Sprintf("RV %q", t)
		}
	}
	line := "listed from " + strings.Join(tried, ", then ")
	if len(r.Tried) == 1 && r.Tried[0] == "" && r.FromResourceVersion != "" && r.FromResourceVersion != "0" && !r.ServerBehind {
		// relist: only the watch from the last relist's RV failing again
		// gives a consistent read alone.
		line += fmt.Sprintf(", not from RV %q: the watch from it failed again right after the last relist", r.FromResourceVersion)
	}
	return line
}
