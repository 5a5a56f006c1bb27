package render

import (
	"fmt"

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
