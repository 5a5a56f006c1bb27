package main

import (
	"strings"
	"testing"
)

// Issue 25: what the demo says of the restart follows the server's
// --watch-cache: a server without its watch cache has none to start anew.
func TestRestartLineFollowsTheCacheSetting(t *testing.T) {
	if off := restartLine(516, false); strings.Contains(off, "watch cache starts") || !strings.Contains(off, "--watch-cache=false") {
		t.Errorf("--watch-cache=false: %q", off)
	}
	if on := restartLine(516, true); !strings.Contains(on, "its watch cache starts anew") {
		t.Errorf("with its watch cache: %q", on)
	}
	if (&demo{}).cacheSetting() != "off" || (&demo{watchCache: true}).cacheSetting() != "on" {
		t.Error("clients --watch-cache does not follow the server's")
	}
}
