package clients

import (
	"os"
	"strings"
	"testing"
)

// Every watch start mode, on the real lines of testdata/README.md: each
// is counted by what the server sent (adversary try 22 F9: a watch with
// sendInitialEvents=false and a legacy one from resourceVersion unset or 0,
// which gets the whole collection, were both "RV unset"/"RV 0"), and a
// client whose answered watches each sent the whole collection, back to
// back, is a relist loop, whichever mode sent it; one whose watches sent
// none, or were refused (v1.33: a 422 for any sendInitialEvents), is not.
func TestWatchStartModesOnRecordedServers(t *testing.T) {
	type want struct {
		modes WatchModes // the mode counts only
		loop  bool
	}
	const n = 5 // watches of each client
	state := func(zero bool) WatchModes {
		w := WatchModes{Total: n, StateAndChanges: n, Unset: n}
		if zero {
			w.Unset, w.Zero = 0, n
		}
		return w
	}
	changes := func(zero bool) WatchModes {
		w := WatchModes{Total: n, ChangesOnly: n, Unset: n}
		if zero {
			w.Unset, w.Zero = 0, n
		}
		return w
	}
	for _, server := range []struct {
		file      string
		watchList bool // the WatchList gate is on: sendInitialEvents is served
	}{
		{"testdata/watch-modes-v1.37-etcd-cache-on.log", true},
		{"testdata/watch-modes-v1.33-etcd-cache-on.log", false},
	} {
		b, err := os.ReadFile(server.file)
		if err != nil {
			t.Fatal(err)
		}
		m := byName(analyze(t, b, Options{}))
		for agent, w := range map[string]want{
			"legacy-unset":  {state(false), true},
			"legacy-zero":   {state(true), true},
			"changes-unset": {changes(false), false},
			"changes-zero":  {changes(true), false},
			"streaming":     {WatchModes{Total: n, Streaming: n}, server.watchList},
			"exact":         {WatchModes{Total: n, Exact: n}, false},
		} {
			name := "admin / watchrv-e2e-watch-" + agent
			c, ok := m[name]
			if !ok {
				t.Fatalf("%s: no %s", server.file, name)
			}
			g := c.Watches
			got := WatchModes{Total: g.Total, Unset: g.Unset, Zero: g.Zero, Exact: g.Exact, Streaming: g.Streaming, StateAndChanges: g.StateAndChanges, ChangesOnly: g.ChangesOnly}
			if got != w.modes {
				t.Errorf("%s, %s: watches counted %+v, want %+v", server.file, name, got, w.modes)
			}
			loop := ""
			for _, p := range c.Patterns {
				if p.Name == PatternRelistLoop {
					loop = p.Evidence
					if p.Count != n-1 {
						t.Errorf("%s, %s: %d relists, want %d: %s", server.file, name, p.Count, n-1, p.Evidence)
					}
				}
			}
			switch {
			case w.loop && loop == "":
				t.Errorf("%s, %s: each of its %d watches sent the whole collection, back to back: no relist-loop (%s)", server.file, name, n, names(c.Patterns))
			case !w.loop && loop != "":
				t.Errorf("%s, %s: its watches sent no state, or were refused; yet %s", server.file, name, loop)
			case w.modes.StateAndChanges > 0 && !strings.Contains(loop, "legacy watches from RV unset or 0, which get the whole collection as ADDED events: 4 of them"):
				t.Errorf("%s, %s: the evidence does not say which relists were legacy watches: %s", server.file, name, loop)
			}
			if w.modes.Streaming > 0 && !server.watchList && g.Error != n {
				t.Errorf("%s, %s: %d ended with an error, want the %d refused", server.file, name, g.Error, n)
			}
		}
	}
}
