package streaming

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The observations below are those of real runs against kube-apiserver
// v1.37.2 in test/e2e/streaming (configmaps, the aggregated gadgets, a
// user without grants); Judge turns them into client-go v0.37.2's behavior.
func TestJudge(t *testing.T) {
	n := 37
	cases := []struct {
		name     string
		r        Result
		status   Status
		informer Informer
	}{
		{"configmaps", Result{InitialObjects: 37, ListCount: &n, ListResourceVersion: "266", BookmarkResourceVersion: "266", BookmarkReceived: true, BookmarkMillis: 11.5}, StatusCorrect, InformerWorks},
		{"gadgets held open", Result{InitialObjects: 3, StreamMillis: 3000, FirstEventMillis: 40}, StatusBroken, InformerHangs},
		{"forbidden", Result{Code: 403, Reason: "Forbidden", Message: `configmaps is forbidden: User "nobody" cannot watch resource "configmaps" in API group "" in the namespace "default"`}, StatusError, InformerUnknown},
		{"throttled", Result{Code: 429, Reason: "TooManyRequests"}, StatusError, InformerUnknown},
		{"ended at once, no event", Result{StreamEnded: true, StreamMillis: 20}, StatusBroken, InformerFallsBack},
		{"ended after events", Result{StreamEnded: true, StreamMillis: 20, FirstEventMillis: 5, InitialObjects: 3}, StatusBroken, InformerHangs},
	}
	for _, c := range cases {
		Judge(&c.r)
		if c.r.Status != c.status || c.r.Informer != c.informer || c.r.Explanation == "" {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", c.name, c.r.Status, c.r.Informer, c.r.Explanation, c.status, c.informer)
		}
	}
}

func TestJudgeCountMismatchIsIncorrect(t *testing.T) {
	n := 3
	r := Result{InitialObjects: 2, ListCount: &n, ListResourceVersion: "103", BookmarkResourceVersion: "103", BookmarkReceived: true}
	r.Problems = append(r.Problems, "the informer's store from the stream differs from a list at the same RV 103: 1 missing (ns/c)")
	Judge(&r)
	if r.Status != StatusIncorrect || r.Informer != InformerWorks {
		t.Fatalf("got %+v", r)
	}
	v := Summarize([]Result{r})
	if strings.Contains(v.Summary, "will work") || !strings.Contains(v.Summary, "will sync a wrong state (one that does not match a list, or whose RV no watch resumes from) on ") || len(v.Incorrect) != 1 || len(v.Works) != 1 {
		t.Errorf("verdict %+v", v)
	}
}

func TestSummarize(t *testing.T) {
	v := Summarize([]Result{
		{Resource: "gadgets.fake.watchrv.test", Informer: InformerHangs},
		{Resource: "configmaps", Informer: InformerWorks},
		{Resource: "secrets", Informer: InformerFallsBack},
	})
	want := "informers built with client-go >= 1.35 will hang on gadgets.fake.watchrv.test; will fall back to list+watch on secrets; will work on configmaps"
	if v.Summary != want {
		t.Fatalf("got %q\nwant %q", v.Summary, want)
	}
}

// A row whose state was not compared with a list (its list failed) is
// said so in the verdict: "will work" alone claims what was not checked.
func TestSummarizeSaysWhatWasNotCompared(t *testing.T) {
	v := Summarize([]Result{{Resource: "configmaps", Informer: InformerWorks, Status: StatusUnverified}})
	want := "informers built with client-go >= 1.35 will sync a state that was not compared with a list (unverified: see its note) on configmaps"
	if v.Summary != want {
		t.Fatalf("got %q\nwant %q", v.Summary, want)
	}
}

// A row whose own request failed (403, 429, no answer) was not measured:
// the cluster verdict says it is unknown, never what its informer will do
// (fresh user try 30 F3: "will fall back to list+watch" of 63 forbidden
// rows, whose run said none could be measured).
func TestSummarizeLeavesAFailedRequestUnknown(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("nope"))
	v := Summarize([]Result{
		{Resource: "configmaps", Informer: InformerWorks},
		{Resource: "secrets", Informer: InformerFallsBack, Err: forbidden},
	})
	want := "informers built with client-go >= 1.35 will work on configmaps; cannot be judged (the check failed) on secrets"
	if v.Summary != want || len(v.FallsBack) != 0 {
		t.Fatalf("got %q (falls back: %v)\nwant %q", v.Summary, v.FallsBack, want)
	}
}

// Every resource is in one clause of the verdict: a verdict never says
// two things of one resource (adversary try 41 F8: "will work on
// configmaps, endpoints; 1 sync a state that does not match a list
// (endpoints)"), whatever its informer and status.
func TestSummarizeNamesEachResourceOnce(t *testing.T) {
	informers := []Informer{InformerWorks, InformerFallsBack, InformerHangs, InformerRetries, InformerUnknown}
	statuses := []Status{StatusCorrect, StatusIncorrect, StatusUnverified, StatusBroken, StatusRefused}
	var results []Result
	for i, inf := range informers {
		for j, st := range statuses {
			if (st == StatusIncorrect || st == StatusUnverified) && inf != InformerWorks {
				continue // Judge gives these only to a stream whose bookmark came
			}
			results = append(results, Result{Resource: fmt.Sprintf("r%d%d", i, j), Informer: inf, Status: st})
		}
	}
	v := Summarize(results)
	for _, r := range results {
		if n := len(regexp.MustCompile(`\b`+r.Resource+`\b`).FindAllString(v.Summary, -1)); n != 1 {
			t.Errorf("%s (%s, %s) is named %d times in %q", r.Resource, r.Informer, r.Status, n, v.Summary)
		}
	}
}
