package render

import (
	"bytes"
	"io"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
)

// The summary's header says how the watch stopped in words, for every end
// (issue 25, F34: "Summary (until after 7ms)").
func TestWatchSummaryHeaderSaysHowItStopped(t *testing.T) {
	for ended, want := range map[string]string{
		"until":                        "Summary (stopped at --until after 7ms)",
		"max-events":                   "Summary (stopped at --max-events after 7ms)",
		string(follow.EndStreamEnd):    "Summary (the server ended the stream after 7ms)",
		string(follow.EndStallTimeout): "Summary (stopped at --stall-timeout after 7ms)",
		string(follow.EndTimeout):      "Summary (timeout after 7ms)",
		string(follow.EndInterrupted):  "Summary (interrupted after 7ms)",
		string(follow.EndError):        "Summary (error after 7ms)",
	} {
		s := NewWatchSummary("")
		s.Ended, s.DurationSeconds = ended, 0.007
		var out bytes.Buffer
		if err := NewPrinter(&out, io.Discard, "", true).WatchSummary(s); err != nil {
			t.Fatal(err)
		}
		if got := strings.SplitN(out.String(), "\n", 2)[0]; got != want {
			t.Errorf("ended %q: header %q, want %q", ended, got, want)
		}
	}
}

// Every reason for no resume point has its own words: a 500 PrevKv=nil or
// a future start RV is never "answered Expired or TooLarge" (issue 25,
// H39 and D18).
func TestWatchSummaryNamesWhyThereIsNoResumePoint(t *testing.T) {
	for _, c := range []struct{ why, want, not string }{
		{follow.NoResumeStartAhead, "the start RV is ahead of the server's current RV", "Expired"},
		{follow.NoResumeChangeLost, "storage lost a change after the last RV (PrevKv=nil)", "Expired"},
		{follow.NoResumeRVProblem, "answered Expired or TooLarge", ""},
		// No state came: never "the state came in key order" (try 17).
		{follow.NoResumeListIncomplete, "the List did not complete", "key order"},
		{follow.NoResumeNothingAnswered, "no watch was answered", "key order"},
		// Answered, with an RV no storage gives: never "did not complete"
		// nor "list again" (adversary try 25 F2).
		{follow.NoResumeListRVNotStorage, "the List completed, and its resourceVersion is no storage's RV", "did not complete"},
	} {
		got := resumeLabel(follow.ResumeFromNone, c.why)
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("%s: %q, want %q (and never %q)", c.why, got, c.want, c.not)
		}
	}
}

// An ERROR event's note writes its Status once: the 504 TooLarge message
// the API server builds already starts with its reason (issue 25, E26:
// "504 Timeout: Timeout: Too large resource version").
func TestWatchEventNoteDoesNotDoubleTheReason(t *testing.T) {
	st := metav1.Status{Code: 504, Reason: metav1.StatusReasonTimeout, Message: "Timeout: Too large resource version: 99999999, current: 535"}
	var out bytes.Buffer
	p := NewPrinter(&out, io.Discard, "", true)
	if err := p.WatchEvent(WatchEventRecord{Record: RecordEvent, Type: "ERROR", Status: &diagnose.SentStatus{Status: st, CodeSent: true}}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "Timeout: Timeout:") || !strings.Contains(got, "504 Timeout: Too large resource version: 99999999, current: 535") {
		t.Fatalf("the note doubles or loses the reason: %q", got)
	}
}

// The list of --rv list is followed by the watch it leads to, with every
// query parameter (issue 25, F34: the watch URL was never printed).
func TestWatchListedNoticeNamesTheWatchRequest(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, io.Discard, "", true)
	url := "/api/v1/namespaces/demo/configmaps?labelSelector=app%3Ddemo&resourceVersion=561&watch=1"
	if err := p.WatchNotice(NewWatchNoticeRecord(follow.Notice{Kind: follow.NoticeListed, ListResourceVersion: "561", Items: 2, URL: url}, nil)); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "listed 2 objects at RV 561; watching the changes after it: "+url) {
		t.Fatalf("the listed line lacks the watch request: %q", got)
	}
}

// A watch answered with no event, or with no object of the state, never
// says the state came (adversary F6); and a reason without words of its
// own is said as none, never as another's (no elimination).
func TestWatchSummaryNeverClaimsAStateThatDidNotCome(t *testing.T) {
	for _, c := range []struct{ why, want string }{
		{follow.NoResumeNoEvent, "no event came"},
		{follow.NoResumeNoState, "no object of the state came"},
		{"a-reason-with-no-words", "no resume point"},
	} {
		got := resumeLabel(follow.ResumeFromNone, c.why)
		if !strings.Contains(got, c.want) || strings.Contains(got, "key order") || strings.Contains(got, "state came in") {
			t.Errorf("%s: %q, want %q and no claim that the state came", c.why, got, c.want)
		}
	}
	if got := resumeLabel(follow.ResumeFromNone, follow.NoResumeStateInKeyOrder); !strings.Contains(got, "the state came in key order") {
		t.Errorf("state-in-key-order: %q", got)
	}
}
