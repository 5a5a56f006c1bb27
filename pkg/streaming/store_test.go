package streaming

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// recorded reads the real streams of one collection (namespace capture of
// kube-apiserver v1.37.2, test/e2e/watch TestCaptureWatchStreams), one
// event a line as the server sent it: streaming.jsonl is the server's
// streaming list at RV 221 (ADDED a@219, ADDED c@221, the initial-events-end
// bookmark), seed.jsonl the changes that led there (b created then deleted,
// c deleted and created again).
func recorded(t *testing.T) map[string]string {
	t.Helper()
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join("..", "watchstream", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	st, seed := read("streaming.jsonl"), read("seed.jsonl")
	if len(st) != 3 || len(seed) != 8 {
		t.Fatalf("the recorded streams changed: %d and %d events", len(st), len(seed))
	}
	return map[string]string{
		"a":        st[0],   // ADDED a@219
		"c":        st[1],   // ADDED c@221, the second c (a new UID)
		"end":      st[2],   // BOOKMARK 221, k8s.io/initial-events-end
		"a@214":    seed[0], // MODIFIED a@214: a before its last two writes
		"b":        seed[1], // DELETED b@215
		"oldc@216": seed[2], // ADDED c@216: the first c, deleted at 220
	}
}

// as is a recorded event with another type: a recorded object in a
// sequence no real server sends.
func as(t *testing.T, typ, line string) string {
	t.Helper()
	var ev map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	ev["type"], _ = json.Marshal(typ)
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// frames is a watch body: the events one a line, as the server frames them.
func frames(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// C11 (issue 25): the check compares the state an informer would hold
// (client-go v0.37.2's watchList store, by namespace/name, UID and RV)
// with the list, not a count of ADDED events. The list is the real
// server's own state at RV 221 (its streaming list, streaming.jsonl).
func TestStreamedStateIsComparedAsAnInformerHoldsIt(t *testing.T) {
	ev := recorded(t)
	real, err := watchstream.ReadAll(bytes.NewReader(frames([]string{ev["a"], ev["c"]})))
	if err != nil {
		t.Fatal(err)
	}
	list := []apiclient.ItemMeta{real[0].Object, real[1].Object}
	bookmark := ev["end"]
	progress := strings.Replace(ev["end"], `,"annotations":{"k8s.io/initial-events-end":"true"}`, "", 1)
	if progress == bookmark {
		t.Fatal("the recorded bookmark has no initial-events-end annotation")
	}
	as := func(typ, line string) string { return as(t, typ, line) }
	added, modified, deleted := watchstream.EventAdded, watchstream.EventModified, watchstream.EventDeleted
	cases := []struct {
		name    string
		events  []string
		status  Status
		objects int
		problem string // in the first problem
	}{
		{"the real stream", []string{ev["a"], ev["c"], bookmark}, StatusCorrect, 2, ""},
		{"ADDED a twice, c never sent", []string{ev["a"], ev["a"], bookmark}, StatusIncorrect, 1, "1 missing (capture/c)"},
		{"ADDED a, ADDED c, DELETED c", []string{ev["a"], ev["c"], as(deleted, ev["c"]), bookmark}, StatusIncorrect, 1, "1 missing (capture/c)"},
		{"MODIFIED a before any ADDED, then ADDED c", []string{as(modified, ev["a"]), ev["c"], bookmark}, StatusCorrect, 2, ""},
		{"DELETED of an object never sent", []string{ev["b"], ev["a"], ev["c"], bookmark}, StatusCorrect, 2, ""},
		{"a sent twice, the older first", []string{as(added, ev["a@214"]), ev["c"], ev["a"], bookmark}, StatusCorrect, 2, ""},
		{"a sent twice, the newer first", []string{ev["a"], ev["c"], as(added, ev["a@214"]), bookmark}, StatusIncorrect, 2, "1 changed (capture/a: RV 214 in the stream, 219 in the list)"},
		{"c under its old UID", []string{ev["a"], ev["oldc@216"], bookmark}, StatusIncorrect, 2, "capture/c: UID 5c23b286-2134-4e4a-a2c4-abaeda57a440 in the stream"},
		{"an object the list does not hold", []string{ev["a"], ev["c"], as(added, ev["b"]), bookmark}, StatusIncorrect, 3, "1 extra (capture/b)"},
		{"the end bookmark first", []string{bookmark, ev["a"], ev["c"]}, StatusIncorrect, 0, "2 missing (capture/a; capture/c)"},
		{"a progress bookmark in between", []string{ev["a"], progress, ev["c"], bookmark}, StatusCorrect, 2, ""},
		{"no end bookmark", []string{ev["a"], ev["c"], progress}, StatusBroken, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := replayCheck(t, frames(c.events), list, "221")
			if r.Status != c.status || r.InitialObjects != c.objects {
				t.Fatalf("got %s with %d objects, want %s with %d: %+v", r.Status, r.InitialObjects, c.status, c.objects, r)
			}
			first := ""
			if len(r.Problems) > 0 {
				first = r.Problems[0]
			}
			if (c.problem == "") != (first == "") || !strings.Contains(first, c.problem) {
				t.Fatalf("problem %q, want one with %q", first, c.problem)
			}
			if r.Status == StatusIncorrect && (r.Difference == nil || r.Difference.Empty()) {
				t.Fatalf("incorrect without the difference: %+v", r)
			}
		})
	}
}

// replayCheck runs the stream part of Check on a recorded body and
// compares with a list at listRV (the bookmark's own RV: no exact list is
// needed, so no request is sent).
func replayCheck(t *testing.T, body []byte, list []apiclient.ItemMeta, listRV string) Result {
	t.Helper()
	n := len(list)
	r := Result{ListCount: &n, ListResourceVersion: listRV}
	store := NewStore()
	ctx, sw := apiclient.StartStopwatch(context.Background())
	consume(ctx, watchstream.FromReader(bytes.NewReader(body)), streamingList(), sw, maxStoredBeyondList+n, time.Minute, &r, store)
	r.InitialObjects, r.AddedEvents = store.Len(), store.Added
	if r.BookmarkReceived {
		if err := compare(context.Background(), nil, allNamespaces, Options{}, &r, store, list); err != nil {
			t.Fatal(err)
		}
	}
	Judge(&r)
	return r
}

// streamingList is the contract of the check's streaming watch, of a
// namespaced collection across all namespaces with no selector (the
// recordings are configmaps): no namespace or selector to hold its
// objects to.
func streamingList() *watchstream.Contract {
	return watchstream.NewContract(allNamespaces, watchstream.Options{SendInitialEvents: true})
}

// allNamespaces is the target of the recordings: configmaps, -A.
var allNamespaces = apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}}

// A stream that sends objects without end is read into a bounded store:
// the check stops at the limit and says so.
func TestEndlessInitialEventsAreBounded(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 50; i++ {
		b.WriteString(`{"type":"ADDED","object":{"metadata":{"namespace":"x","name":"o` + strings.Repeat("x", i) + `","resourceVersion":"5"}}}` + "\n")
	}
	r := Result{}
	store := NewStore()
	ctx, sw := apiclient.StartStopwatch(context.Background())
	consume(ctx, watchstream.FromReader(&b), streamingList(), sw, 10, time.Minute, &r, store)
	Judge(&r)
	if store.Len() != 11 || r.Status != StatusError || !strings.Contains(r.Error, "more than 10 distinct objects") {
		t.Fatalf("store %d, %s: %s", store.Len(), r.Status, r.Error)
	}
}
