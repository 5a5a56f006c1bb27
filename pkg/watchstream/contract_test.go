package watchstream

import (
	"slices"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The Watch contract on the real v1.37.2 streams of testdata, and on the
// same recorded events in orders no real server sends (adversary try 20
// #4): the server's own streams pass; a change at or below a state's end
// bookmark (a streaming list's, or a watch's from RV unset), below a bookmark, below the change before it or
// below the watch's start breaks it, and so does an object the request
// excluded. (A state newer than its end bookmark needs an RV no recording
// has: test/e2e/bounds TestAnswersThatBreakTheContractFail.)
func TestRecordedStreamsAreJudgedByTheWatchContract(t *testing.T) {
	list, seed := readStream(t, "streaming.jsonl"), readStream(t, "seed.jsonl")
	if len(list) != 3 || !list[2].IsInitialEventsEnd() || len(seed) != 8 {
		t.Fatalf("the recorded streams changed: %d and %d events", len(list), len(seed))
	}
	// A watch from RV unset, with bookmarks and without: the server ends
	// the first's state with the initial-events-end bookmark at RV 220, and
	// marks no end of the second's (v1.37.2, as every server from v1.35).
	unsetEnded, unset := readStream(t, "unset-bookmarks.jsonl"), readStream(t, "unset.jsonl")
	if len(unsetEnded) != 3 || !unsetEnded[2].IsInitialEventsEnd() || len(unset) != 2 {
		t.Fatalf("the recorded unset-RV streams changed: %d and %d events", len(unsetEnded), len(unset))
	}
	end := list[2] // the initial-events-end bookmark at RV 221
	progress := end
	progress.Object.Annotations = nil // the same bookmark, as a progress one
	capture := apiclient.Target{Resource: apiclient.Resource{Namespaced: true}, Namespace: "capture"}
	streaming := Options{SendInitialEvents: true}
	from213 := Options{ResourceVersion: "213", RVSet: true, AllowBookmarks: true}
	cat := func(s ...[]Event) []Event { return slices.Concat(s...) }
	// at is ev as the server would have sent it at another RV.
	at := func(ev Event, rv string) []Event {
		ev.Object.ResourceVersion = rv
		return []Event{ev}
	}
	for _, c := range []struct {
		name   string
		target apiclient.Target
		opts   Options
		events []Event
		at     int    // the index of the first breach (-1: none)
		breach string // its words
	}{
		{"the server's streaming list", capture, streaming, list, -1, ""},
		{"the server's changes from RV 213", capture, from213, seed, -1, ""},
		{"a progress bookmark inside the state", capture, streaming, cat(list[:1], []Event{progress}, list[1:]), -1, ""},
		{"changes at or below the end bookmark's RV", capture, streaming, cat(list, seed), 3, "out of order: RV 214 is not after RV 221 (the initial-events-end bookmark, the state's RV)"},
		{"a change below a bookmark", capture, from213, cat(seed[:1], []Event{progress}, seed[1:]), 2, "out of order: RV 215 is not after RV 221 (the bookmark before it)"},
		{"a change below the one before it", capture, from213, cat(seed[1:2], seed[:1]), 1, "out of order: RV 214 is not after RV 215 (this stream's change before it)"},
		{"a change below the start", capture, Options{ResourceVersion: "219", RVSet: true}, seed[5:], 0, "out of order: RV 219 is not after RV 219 (the RV this watch started from)"},
		{"the server's state from RV unset, and its end", capture, Options{AllowBookmarks: true}, unsetEnded, -1, ""},
		{"changes at or below the end bookmark of a watch from RV unset", capture, Options{AllowBookmarks: true}, cat(unsetEnded, seed), 3, "out of order: RV 214 is not after RV 220 (the initial-events-end bookmark, the state's RV)"},
		{"changes after a state with no end marker: never judged", capture, Options{}, cat(unset, seed), -1, ""},
		// An end whose RV no watch starts from, or older than the state:
		// the changes after it are held to the state's newest object
		// (adversary try 44 F1), and so is a bookmark (never back).
		{"a change below the state after an end with RV \"abc\"", capture, streaming, cat(list[:2], at(end, "abc"), seed[5:]), 3, "out of order: RV 219 is not after RV 221 (the newest object of the initial state"},
		{"a change below the state after an end with no RV", capture, Options{AllowBookmarks: true}, cat(list[:2], at(end, ""), seed[5:]), 3, "out of order: RV 219 is not after RV 221 (the newest object of the initial state"},
		{"a bookmark below the state after an end with no RV", capture, streaming, cat(list[:2], at(end, ""), at(progress, "3")), 3, "out of order: the bookmark's RV 3 is before RV 221 (the newest object of the initial state"},
		{"an end older than the state, and a change at its newest", capture, streaming, cat(list[:2], at(end, "220"), seed[7:]), 2, "newer than its initial-events-end bookmark's RV 220"},
		{"a bookmark below the change before it", capture, from213, cat(seed[:3], at(progress, "215")), 3, "out of order: the bookmark's RV 215 is before RV 216 (this stream's change before it)"},
		{"a bookmark at the change before it", capture, from213, cat(seed[:3], at(progress, "216"), seed[3:]), -1, ""},
		{"an object of another namespace", apiclient.Target{Resource: apiclient.Resource{Namespaced: true}, Namespace: "other"}, streaming, list, 0, `outside the request: object "capture/a" is in namespace "capture", not "other"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := NewContract(c.target, c.opts)
			at, breach := -1, ""
			for i, e := range c.events {
				if why := k.Judge(e); why != "" && at < 0 {
					at, breach = i, why
				}
			}
			if at != c.at || !strings.Contains(breach, c.breach) {
				t.Fatalf("first breach at %d: %q; want at %d: %q", at, breach, c.at, c.breach)
			}
		})
	}
	// The state ends at its end bookmark, never at a progress one.
	k := NewContract(capture, streaming)
	for _, e := range []Event{list[0], progress, list[1]} {
		k.Judge(e)
	}
	if !k.InState() {
		t.Fatal("a progress bookmark ended the streaming list's state")
	}
	if k.Judge(end); k.InState() {
		t.Fatal("the initial-events-end bookmark did not end the state")
	}
	// So does a watch's from RV unset or 0, whatever the request: the
	// marker is read wherever the server sends it.
	for _, o := range []Options{{AllowBookmarks: true}, {ResourceVersion: "0", RVSet: true, AllowBookmarks: true}} {
		k := NewContract(capture, o)
		for _, e := range unsetEnded[:2] {
			k.Judge(e)
		}
		if k.Judge(progress); !k.InState() {
			t.Fatalf("%+v: a progress bookmark ended the state", o)
		}
		if k.Judge(unsetEnded[2]); k.InState() {
			t.Fatalf("%+v: the initial-events-end bookmark did not end the state", o)
		}
	}
}
