//go:build e2e

package bounds

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// streaming judges a stream only when one existed: a streaming watch
// whose answer never began is no answer (exit 4, "raise --deadline"),
// whatever the list did, never "informers will hang", which is what an
// informer does on a stream that was answered and then sent no bookmark
// (fresh user try 20 #1: a server that answered nothing was said to make
// informers hang, exit 1). And the list to compare with, when it failed,
// says so in LIST and NOTE (and listError), never a bare "-".
func TestStreamingJudgesOnlyAStreamThatWasAnswered(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	hang := framework.ScriptAnswer{Hang: true}
	list := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`}
	end := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"100","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"}
	// silent answers the watch (its head goes out) and sends nothing.
	silent := framework.ScriptAnswer{Code: 200, Type: "application/json", Write: func(w io.Writer) {
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Second)
	}}
	// trickle sends the list's 31 objects one each 100ms, then the end
	// bookmark: a live stream that a 1s deadline cuts (adversary try 21
	// F3: "will hang", exit 1); someThenSilent sends 3 and goes silent.
	list31 := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: configMapList(31)}
	trickle := framework.ScriptAnswer{Code: 200, Type: "application/json", Write: func(w io.Writer) {
		sendObjects(w, 31, 100*time.Millisecond)
		_, _ = io.WriteString(w, end.Body)
	}}
	someThenSilent := framework.ScriptAnswer{Code: 200, Type: "application/json", Write: func(w io.Writer) {
		sendObjects(w, 3, 0)
		time.Sleep(20 * time.Second)
	}}
	for _, c := range []struct {
		name        string
		list, watch framework.ScriptAnswer
		code        int
		line        string // in stderr's one line ("" when the exit is 0)
		status      streaming.Status
		informer    streaming.Informer
		listFailed  bool
	}{
		{"nothing answered", hang, hang, 4, "no answer to the streaming watch of configmaps within the deadline (1s): it was sent and no response headers came", streaming.StatusError, streaming.InformerUnknown, true},
		{"the list answered, the watch not", list, hang, 4, "no answer to the streaming watch of configmaps within the deadline (1s)", streaming.StatusError, streaming.InformerUnknown, false},
		{"the watch answered, the list not", hang, end, 0, "", streaming.StatusUnverified, streaming.InformerWorks, true},
		{"the watch answered and sent nothing", list, silent, 1, "will hang on configmaps", streaming.StatusBroken, streaming.InformerHangs, false},
		{"the watch still sending the state at the deadline", list31, trickle, 4, "was still sending its initial state when the deadline (1s) ended it: ", streaming.StatusError, streaming.InformerUnknown, false},
		{"the watch sent some objects and went silent", list31, someThenSilent, 1, "will hang on configmaps", streaming.StatusBroken, streaming.InformerHangs, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: c.list, path + "?watch": c.watch})
			args := []string{"streaming", "cm", "--deadline", "1s"}
			r := framework.Run(t, kc, time.Minute, args...)
			line := lastLine(r.Stderr)
			if r.Code != c.code || !strings.Contains(line, c.line) {
				t.Errorf("exit %d, last line %q: want %d and %q", r.Code, line, c.code, c.line)
			}
			if c.code == 4 && (!strings.Contains(line, "raise --deadline") || strings.Contains(r.Stdout+r.Stderr, "hang")) {
				t.Errorf("no answer must name --deadline and claim no hang:\n%s\n%s", r.Stdout, r.Stderr)
			}
			if c.code != 0 && strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
				t.Errorf("want one error line, got %q", r.Stderr)
			}
			if c.listFailed && (!strings.Contains(r.Stdout, " failed ") || !strings.Contains(r.Stdout, "the list failed: ")) {
				t.Errorf("the list's failure is not in LIST and NOTE:\n%s", r.Stdout)
			}
			if c.status == streaming.StatusUnverified && !strings.Contains(r.Stdout, "(raise --deadline to compare the state)") {
				t.Errorf("the list bounded by six deadlines must name --deadline:\n%s", r.Stdout)
			}
			j := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
			var rep render.StreamingReport
			if err := json.Unmarshal([]byte(j.Stdout), &rep); err != nil || len(rep.Resources) != 1 {
				t.Fatalf("exit %d, stdout not one row of JSON: %v\n%s", j.Code, err, j.Stdout)
			}
			row := rep.Resources[0]
			if j.Code != c.code || row.Status != c.status || row.Informer != c.informer || (row.ListError != "") != c.listFailed {
				t.Errorf("-o json: exit %d, %s/%s, listError %q: want %d, %s/%s, list failed %v", j.Code, row.Status, row.Informer, row.ListError, c.code, c.status, c.informer, c.listFailed)
			}
		})
	}
}

// configMapList is a list at RV 100 of n configmaps, cm-0 to cm-(n-1).
func configMapList(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"metadata":{"name":"cm-%d","namespace":"default","uid":"u-%d","resourceVersion":"%d"}}`, i, i, 10+i)
	}
	return `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + strings.Join(items, ",") + `]}`
}

// sendObjects answers the watch's head, then sends configMapList(n)'s
// objects as ADDED events, each flushed, every gap; it stops when the
// client has gone.
func sendObjects(w io.Writer, n int, gap time.Duration) {
	w.(http.Flusher).Flush()
	for i := range n {
		ev := fmt.Sprintf(`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%d","namespace":"default","uid":"u-%d","resourceVersion":"%d"}}}`+"\n", i, i, 10+i)
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		time.Sleep(gap)
	}
}

// A stream held open without the bookmark gets a verdict that does not
// depend on --deadline: one that sent the whole state and then only
// changes (a server ignoring sendInitialEvents: the legacy watch's ADDED
// state, then changes, never the bookmark) hangs an informer, exit 1, at
// 2s as at 5s (it was "still sending its initial state ... raise
// --deadline to see it finish", exit 4, at any deadline: adversary try 22
// F7, stillArriving looked only at the time of the last event). And one
// still adding new objects at the cut is arriving, exit 4, "raise
// --deadline", at 3s as at 5s, though it holds more than the list did: a
// collection that grew between the list and the stream (adversary try 23
// F1: "will hang", exit 1, on a stream that a longer deadline sees end).
func TestStreamingVerdictOfAStreamWithoutBookmarkIsNotTheDeadlines(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	list2 := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: configMapList(2)}
	// legacy: ADDED cm-0, ADDED cm-1, then MODIFIED cm-0 every 0.5s.
	legacy := framework.ScriptAnswer{Code: 200, Type: "application/json", Write: func(w io.Writer) {
		sendObjects(w, 2, 0)
		for rv := 200; rv < 320; rv++ {
			ev := fmt.Sprintf(`{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-0","namespace":"default","uid":"u-0","resourceVersion":"%d"}}}`+"\n", rv)
			if !sendEvent(w, ev) {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}}
	// grown: the list held 20; the stream sends 60 distinct ADDED objects,
	// one every 0.1s (the collection grew), then the end bookmark.
	list20 := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: configMapList(20)}
	grown := framework.ScriptAnswer{Code: 200, Type: "application/json", Write: func(w io.Writer) {
		sendObjects(w, 60, 100*time.Millisecond)
		end := `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"200","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
		if sendEvent(w, end) {
			time.Sleep(20 * time.Second)
		}
	}}
	for _, c := range []struct {
		name        string
		list, watch framework.ScriptAnswer
		deadlines   [2]string
		code        int
		verdict     string // -o json's exit and status/informer
		line        string
		// informer: run a real client-go informer on the same server,
		// which must not sync (and not fall back to a list) either.
		informer bool
	}{
		{"the whole state, then only changes", list2, legacy, [2]string{"2s", "5s"}, 1, "exit 1, broken/hangs",
			"no initial-events-end bookmark after the whole state (2 of the list's 2) and ", true},
		{"a collection grown after the list, its new objects still coming", list20, grown, [2]string{"3s", "5s"}, 4, "exit 4, error/unknown",
			"more than the list's 20 (the collection grew after the list)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: c.list, path + "?watch": c.watch})
			var verdicts []string
			for _, deadline := range c.deadlines {
				r := framework.Run(t, kc, time.Minute, "streaming", "cm", "--deadline", deadline)
				line, out := lastLine(r.Stderr), r.Stdout+r.Stderr
				if r.Code != c.code || !strings.Contains(line, c.line) {
					t.Errorf("--deadline %s: exit %d, last line %q: want %d, %q", deadline, r.Code, line, c.code, c.line)
				}
				hangs := c.code == 1
				if hangs && (!strings.Contains(line, "will hang on configmaps: ") || strings.Contains(out, "still sending") || strings.Contains(out, "raise --deadline")) {
					t.Errorf("--deadline %s: want hangs, never the deadline's no answer:\n%s", deadline, out)
				}
				if !hangs && (!strings.Contains(line, "was still sending its initial state") || !strings.Contains(line, "raise --deadline") || strings.Contains(out, "hang ")) {
					t.Errorf("--deadline %s: want the deadline's no answer naming --deadline, never a hang:\n%s", deadline, out)
				}
				if hangs && !strings.Contains(r.Stdout, c.line) {
					t.Errorf("--deadline %s: the row's NOTE does not say what the stream sent:\n%s", deadline, r.Stdout)
				}
				j := framework.Run(t, kc, time.Minute, "streaming", "cm", "--deadline", deadline, "-o", "json")
				var rep render.StreamingReport
				if err := json.Unmarshal([]byte(j.Stdout), &rep); err != nil || len(rep.Resources) != 1 {
					t.Fatalf("exit %d, stdout not one row of JSON: %v\n%s", j.Code, err, j.Stdout)
				}
				row := rep.Resources[0]
				verdicts = append(verdicts, fmt.Sprintf("exit %d, %s/%s", j.Code, row.Status, row.Informer))
				if !strings.Contains(row.Explanation+row.Error, c.line) {
					t.Errorf("--deadline %s: explanation %q, error %q, want %q", deadline, row.Explanation, row.Error, c.line)
				}
			}
			if verdicts[0] != c.verdict || verdicts[1] != c.verdict {
				t.Errorf("verdicts at %s and %s: %q, want %q at both", c.deadlines[0], c.deadlines[1], verdicts, c.verdict)
			}
			if c.informer {
				informerHangs(t, kc)
			}
		})
	}
}

// sendEvent writes one event line and flushes it; false when the client
// has gone.
func sendEvent(w io.Writer, ev string) bool {
	if _, err := io.WriteString(w, ev); err != nil {
		return false
	}
	w.(http.Flusher).Flush()
	return true
}

// informerHangs runs a real client-go informer (test/e2e/informer) on
// the configmaps of default through kc for 8 s: "hangs" is what it does
// (no sync, and no fallback to a list), not a guess.
func informerHangs(t *testing.T, kc string) {
	t.Helper()
	in, err := framework.StartInformer(kc, "default", t.TempDir(), "informer")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Stop(5 * time.Second) }()
	_, recs, err := in.WaitFor(8*time.Second, func(r framework.InformerRecord) bool { return r.Type == "synced" })
	if err == nil {
		t.Fatalf("a real informer synced where the plugin says it hangs: %+v", recs)
	}
	var streaming, lists int
	for _, r := range recs {
		switch {
		case r.Type == "request" && r.Verb == "watch" && r.SendInitialEvents:
			streaming++
		case r.Type == "request" && r.Verb == "list":
			lists++
		}
	}
	if streaming == 0 || lists != 0 {
		t.Errorf("the informer sent %d streaming watches and %d lists, want >= 1 and 0 (no fallback): %+v", streaming, lists, recs)
	}
}
