package diagnose

import (
	"testing"
)

// The plugin's own list error for a compacted exact list (WithFix drops the
// server's period: "too old: Do not list ...") is still recognized when it
// is pasted into explain-error.
func TestOwnExactListErrorIsRecognized(t *testing.T) {
	line := "error: Expired: The resourceVersion for the provided list is too old: Do not list at an old exact RV: list with resourceVersion unset (consistent) or \"0\" (any), or use resourceVersionMatch=NotOlderThan, then watch from that list's resourceVersion."
	d := FromText(line)
	if d.Class != ClassExpired || d.Kind != KindEtcdCompactedExactList {
		t.Fatalf("got %s/%s, want Expired/%s", d.Class, d.Kind, KindEtcdCompactedExactList)
	}
}
