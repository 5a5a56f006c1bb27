package diagnose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// tooLarge builds the error exactly as apiserver storage/errors.go
// NewTooLargeResourceVersionError does (that package is not a dependency).
func tooLarge(n, m uint64) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", n, m), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

func TestFromError(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		ctx        Context
		class      Class
		kind, conf string
		req        string
	}{
		{"expired window", apierrors.NewResourceExpired("too old resource version: 5 (9)"), Context{}, ClassExpired, KindWatchCacheWindow, ConfidenceHigh, "5"},
		{"snapshot is high from a Status", apierrors.NewResourceExpired("too old resource version: 5"), Context{}, ClassExpired, KindWatchCacheSnapshot, ConfidenceHigh, "5"},
		{"wrapped", fmt.Errorf("list failed: %w", apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")), Context{}, ClassExpired, KindEtcdCompactedExactList, ConfidenceHigh, ""},
		{"too large", tooLarge(20, 10), Context{}, ClassTooLarge, KindResourceVersionTooLarge, ConfidenceHigh, "20"},
		{"gone, continue", apierrors.NewGone(""), Context{Operation: OpListContinue}, ClassExpired, KindContinueExpired, ConfidenceLow, ""},
		{"expired no message, watch", apierrors.NewResourceExpired(""), Context{Operation: OpWatch, RequestedResourceVersion: "77"}, ClassExpired, KindGone, ConfidenceMedium, "77"},
		{"429", apierrors.NewTooManyRequests("Too many requests, please try again later.", 1), Context{}, ClassOther, KindTooManyRequests, ConfidenceHigh, ""},
		{"server timeout", apierrors.NewServerTimeout(schema.GroupResource{Resource: "pods"}, "list", 2), Context{}, ClassOther, KindRequestTimeout, "", ""},
		{"internal", apierrors.NewInternalError(errors.New("etcdserver: mvcc: required revision has been compacted")), Context{}, ClassOther, KindInternalErrorAtCompaction, ConfidenceMedium, ""},
		{"generic 500", apierrors.NewInternalError(errors.New("boom")), Context{}, ClassOther, KindServerError, "", ""},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, Context{}, ClassOther, KindConnectionReset, "", ""},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, Context{}, ClassOther, KindNetworkError, "", ""},
		{"deadline", context.DeadlineExceeded, Context{}, ClassOther, KindRequestTimeout, "", ""},
		{"eof", io.ErrUnexpectedEOF, Context{}, ClassOther, KindConnectionReset, "", ""},
		{"not found", apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "x"), Context{}, ClassUnrecognized, "", "", ""},
		{"plain", errors.New("something else"), Context{}, ClassUnrecognized, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := FromError(c.err, c.ctx)
			if d.Class != c.class || d.Kind != c.kind || (c.conf != "" && d.Confidence != c.conf) || d.RequestedResourceVersion != c.req {
				t.Fatalf("got %s/%s/%s req=%q, want %s/%s/%s req=%q", d.Class, d.Kind, d.Confidence, d.RequestedResourceVersion, c.class, c.kind, c.conf, c.req)
			}
		})
	}
	if d := FromError(nil, Context{}); d.Recognized() {
		t.Fatal("nil error recognized")
	}
}

func TestFromStatusTooLargeByCauseOnly(t *testing.T) {
	// Servers 1.17.0-1.18.5 sent the cause message without the cause type
	// (client-go reflector.go isTooLargeResourceVersionError).
	st := metav1.Status{Code: 504, Reason: metav1.StatusReasonTimeout, Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: "Too large resource version"}}}}
	d := FromStatus(st, Context{RequestedResourceVersion: "42"})
	if d.Class != ClassTooLarge || d.RequestedResourceVersion != "42" {
		t.Fatalf("got %+v", d)
	}
	// A fresh continue token in the Status metadata.
	st = metav1.Status{Code: 410, Reason: metav1.StatusReasonExpired, ListMeta: metav1.ListMeta{Continue: "abc"},
		Message: "The provided continue parameter is too old to display a consistent list result."}
	if d := FromStatus(st, Context{}); d.Kind != KindContinueExpiredInconsistent {
		t.Fatalf("got %s", d.Kind)
	}
}

func TestFromTextContext(t *testing.T) {
	d := FromTextContext("The resourceVersion for the provided watch is too old.", Context{RequestedResourceVersion: "1234"})
	if d.RequestedResourceVersion != "1234" || d.Kind != KindEtcdCompactedWatch {
		t.Fatalf("got %+v", d)
	}
}

func TestTooLargeHint(t *testing.T) {
	small := FromText("Timeout: Too large resource version: 1005, current: 1000")
	large := FromText("Timeout: Too large resource version: 90000000, current: 1000")
	if !contains(small.Why, "gap is small") || !contains(large.Why, "gap is large") {
		t.Fatalf("hints: %q / %q", small.Why, large.Why)
	}
}

func TestCompareNow(t *testing.T) {
	exp := FromText("too old resource version: 100 (150)")
	tl := FromText("Timeout: Too large resource version: 500, current: 400")
	cases := []struct {
		d                    Diagnosis
		req, cur             string
		behind, ahead, words string
	}{
		// Nothing tried: the verdict claims nothing about a retry.
		{exp, "100", "900", "800", "", "RV 100 is 800 behind the current RV 900"},
		{exp, "1000", "900", "", "100", "does not come from this cluster"},
		{tl, "500", "450", "", "50", "never had it"},
		{tl, "500", "600", "100", "", "was a lag"},
		{tl, "", "600", "", "", "pass --rv"},
		{tl, "x", "600", "", "", "cannot be compared"},
	}
	for _, c := range cases {
		got := CompareNow(c.d, c.req, Now{ResourceVersion: c.cur}, nil)
		if contains(got.Verdict, "checked") || contains(got.Verdict, "fails the same way") || contains(got.Verdict, "succeeds now") {
			t.Errorf("nothing was tried, yet the verdict claims a result: %s", got.Verdict)
		}
		if got.Behind != c.behind || got.Ahead != c.ahead || !contains(got.Verdict, c.words) {
			t.Errorf("CompareNow(%s, %s, %s) = %+v", c.d.Kind, c.req, c.cur, got)
		}
	}
}

// A check says what it tried and what came back, and only that: an exact
// list from an expired watch RV may well succeed (seen on v1.37.2), so the
// verdict never claims it fails.
func TestCompareNowSaysOnlyWhatWasTried(t *testing.T) {
	exp := FromText("too old resource version: 214 (518)")
	got := CompareNow(exp, "214", Now{ResourceVersion: "900"}, &Tried{Request: "a watch from RV 214", Works: false, Answer: "ERROR event 410 Expired"})
	if !contains(got.Verdict, "tried: a watch from RV 214 fails (ERROR event 410 Expired)") || contains(got.Verdict, "exact list") {
		t.Fatalf("verdict: %s", got.Verdict)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// H43 (issue 25): the TooLarge verdict of --check names who served the
// consistent read only from what the caller knows of the server; told
// nothing, it names no server and no storage it cannot tell apart (the
// watch cache serves that read on cache-on cells; kine is not etcd).
func TestCompareNowNamesOnlyTheKnownServer(t *testing.T) {
	tl := FromText("Timeout: Too large resource version: 500, current: 400")
	unknown := CompareNow(tl, "500", Now{ResourceVersion: "450"}, nil).Verdict
	named := strings.ReplaceAll(unknown, "storage (etcd, or a shim such as kine)", "storage")
	if contains(named, "etcd") || contains(named, "watch cache") || named == unknown {
		t.Errorf("told nothing, the verdict names a server: %s", unknown)
	}
	served := "served by the watch cache once it has caught up with storage (etcd, or a shim such as kine) (ConsistentListFromCache on)"
	known := CompareNow(tl, "500", Now{ResourceVersion: "450", Storage: "storage (etcd, or a shim such as kine)", ServedBy: served}, nil)
	if !contains(known.Verdict, served) || known.ServedBy != served || contains(known.Verdict, "straight from etcd") {
		t.Errorf("the verdict does not say what it was told: %+v", known)
	}
}

// The request a client's line names (client-go's "failed to list *T",
// "watch of *T ended with") is a claim the server's wording must agree
// with: a watch-window wording under "failed to list", or a snapshot
// wording under "watch of", tells no story of the other request.
func TestTheRequestNamedAndTheWordingAgree(t *testing.T) {
	for _, c := range []struct{ text, kind, op string }{
		{"W1201 reflector.go:158] watch of *v1.Pod ended with: too old resource version: 12", KindTooOldResourceVersion, OpWatch},
		{"failed to list *v1.Pod: too old resource version: 12 (100)", KindTooOldResourceVersion, OpList},
		{"W1201 reflector.go:158] watch of *v1.Pod ended with: too old resource version: 12 (100)", KindWatchCacheWindow, OpWatch},
		{"failed to list *v1.Pod: too old resource version: 12", KindWatchCacheSnapshot, OpList},
		{"W1202 reflector.go:492] watch of *v1.Pod ended with: Timeout: Too large resource version: 100, current: 50", KindResourceVersionTooLarge, OpWatch},
	} {
		d := FromText(c.text)
		if d.Kind != c.kind || d.Operation != c.op {
			t.Errorf("%q: kind %s, operation %s; want %s, %s", c.text, d.Kind, d.Operation, c.kind, c.op)
		}
		if c.kind == KindResourceVersionTooLarge && d.Confidence != ConfidenceLow {
			t.Errorf("%q: a watch never gets TooLarge, yet confidence %s", c.text, d.Confidence)
		}
		if c.kind == KindTooOldResourceVersion && (d.Confidence != ConfidenceLow || strings.Contains(d.What, "asked for the events") || strings.Contains(d.What, "exact list at RV")) {
			t.Errorf("%q: tells a story it cannot know: %s (%s)", c.text, d.What, d.Confidence)
		}
	}
}
