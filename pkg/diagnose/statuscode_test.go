package diagnose

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// codeVerdict is what a status code alone says, for each code the
// classifier reads: the class and kind, and the confidence without and
// with a Status reason beside the code.
type codeVerdict struct {
	class              Class
	kind               string
	conf, confWithWhy  string
	reason             string // the Status reason written after the code ("410 Expired"), "" if none differs from the HTTP name
	withOpListContinue string // the kind with --operation list-continue ("" = kind)
	withOpListExact    string // the kind with --operation list-exact ("" = kind)
	withListAtRV       string // the kind of a list at --rv 500 ("" = kind)
}

var codeVerdicts = map[int]codeVerdict{
	410: {class: ClassExpired, kind: KindGone, conf: ConfidenceLow, confWithWhy: ConfidenceMedium, reason: "Expired",
		withOpListContinue: KindContinueExpired, withOpListExact: KindEtcdCompactedExactList},
	429: {class: ClassOther, kind: KindTooManyRequests, conf: ConfidenceMedium, confWithWhy: ConfidenceHigh, reason: "TooManyRequests"},
	500: {class: ClassOther, kind: KindServerError, conf: ConfidenceLow, confWithWhy: ConfidenceLow, reason: "InternalError"},
	502: {class: ClassOther, kind: KindServerError, conf: ConfidenceLow, confWithWhy: ConfidenceLow},
	503: {class: ClassOther, kind: KindServerError, conf: ConfidenceLow, confWithWhy: ConfidenceLow, reason: "ServiceUnavailable"},
	// A 504 to a list at an RV, its body lost, is how TooLarge looks from outside.
	504: {class: ClassOther, kind: KindRequestTimeout, conf: ConfidenceMedium, confWithWhy: ConfidenceHigh, reason: "Timeout",
		withListAtRV: KindResourceVersionTooLarge},
}

// codeForms are the ways a status code is written without a message: the
// plugin's own "410 Expired", curl's status line, client-go's request
// traces, the clients' renderings, and a bare code. withWhy says the form
// carries the Status reason.
var codeForms = []struct {
	name    string
	text    func(code int, reason string) string
	withWhy bool
}{
	{name: "bare", text: func(c int, _ string) string { return fmt.Sprint(c) }},
	{name: "bare, blanks", text: func(c int, _ string) string { return fmt.Sprintf("  %d\n", c) }},
	{name: "code and HTTP name", text: func(c int, _ string) string { return fmt.Sprintf("%d %s", c, http.StatusText(c)) }},
	{name: "code and reason", text: func(c int, r string) string { return fmt.Sprintf("%d %s", c, r) }, withWhy: true},
	{name: "code and reason in a sentence", text: func(c int, r string) string { return fmt.Sprintf("request failed: %d %s, retrying", c, r) }, withWhy: true},
	{name: "HTTP N", text: func(c int, _ string) string { return fmt.Sprintf("HTTP %d", c) }},
	{name: "HTTP/1.1 status line", text: func(c int, _ string) string { return fmt.Sprintf("HTTP/1.1 %d %s", c, http.StatusText(c)) }},
	{name: "HTTP/2 N", text: func(c int, _ string) string { return fmt.Sprintf("HTTP/2 %d", c) }},
	{name: "code N", text: func(c int, _ string) string { return fmt.Sprintf("code %d", c) }},
	{name: "code: N", text: func(c int, _ string) string { return fmt.Sprintf("code: %d", c) }},
	{name: "status code N", text: func(c int, _ string) string { return fmt.Sprintf("unexpected status code %d", c) }},
	{name: "status N", text: func(c int, _ string) string { return fmt.Sprintf("watch failed with status %d", c) }},
	{name: "JSON code", text: func(c int, _ string) string { return fmt.Sprintf(`{"error":"watch failed","code":%d}`, c) }},
	{name: "proxy's HTML page", text: func(c int, _ string) string {
		return fmt.Sprintf("<html>\n<head><title>%d %s</title></head>\n<body>\n<center><h1>%d %s</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>", c, http.StatusText(c), c, http.StatusText(c))
	}},
	{name: "request trace", text: func(c int, _ string) string {
		return fmt.Sprintf(`"Response" verb="GET" url="https://10.0.0.1:6443/api/v1/configmaps?limit=500" status="%d %s" milliseconds=3`, c, http.StatusText(c))
	}},
}

// TestEveryCodeForm walks every form of every code the classifier reads,
// with and without the operation, and checks that ScanLog finds the same.
func TestEveryCodeForm(t *testing.T) {
	for code, v := range codeVerdicts {
		for _, f := range codeForms {
			if f.withWhy && v.reason == "" {
				continue // no Status reason of this code differs from its HTTP name
			}
			text := f.text(code, v.reason)
			for _, ctx := range []Context{
				{}, {Operation: OpWatch}, {Operation: OpList}, {Operation: OpListContinue}, {Operation: OpListExact},
				{Operation: OpList, RequestedResourceVersion: "500"}, {Operation: OpWatch, RequestedResourceVersion: "500"},
			} {
				t.Run(fmt.Sprintf("%d/%s/%s@%s", code, f.name, ctx.Operation, ctx.RequestedResourceVersion), func(t *testing.T) {
					d := FromTextContext(text, ctx)
					kind, conf, class := v.kind, v.conf, v.class
					if f.withWhy {
						conf = v.confWithWhy
					}
					switch {
					case ctx.Operation == OpListContinue && v.withOpListContinue != "":
						kind, conf = v.withOpListContinue, ConfidenceLow
					case ctx.Operation == OpListExact && v.withOpListExact != "":
						kind, conf = v.withOpListExact, ConfidenceLow
					case ctx.Operation == OpList && ctx.RequestedResourceVersion != "" && v.withListAtRV != "":
						kind, conf, class = v.withListAtRV, ConfidenceLow, ClassTooLarge
					case code == 410 && ctx.RequestedResourceVersion != "" && !f.withWhy:
						conf = ConfidenceMedium // a 410 to a request that carried an RV
					}
					if d.Class != class || d.Kind != kind || d.Confidence != conf || int(d.Code) != code {
						t.Fatalf("%q: got %s/%s/%s code %d, want %s/%s/%s code %d", text, d.Class, d.Kind, d.Confidence, d.Code, class, kind, conf, code)
					}
					if f.withWhy && d.Reason != v.reason {
						t.Errorf("%q: reason %q, want %q", text, d.Reason, v.reason)
					}
					if d.OldestResourceVersion != "" || d.CurrentResourceVersion != "" || d.Gap != "" {
						t.Errorf("%q: numbers the text does not have: oldest %q current %q gap %q", text, d.OldestResourceVersion, d.CurrentResourceVersion, d.Gap)
					}
				})
			}
			if line := strings.TrimSpace(text); !scanFinds(t, line) {
				t.Errorf("ScanLog does not find %q", line)
			}
		}
	}
}

func scanFinds(t *testing.T, line string) bool {
	t.Helper()
	found := 0
	if err := ScanLog(strings.NewReader(line), func(Finding) { found++ }); err != nil {
		t.Fatal(err)
	}
	return found > 0
}

// clientGoVerdicts is what each code gets from client-go's message for an
// answer without a Status body (apierrors.NewGenericServerResponse, as
// client-go rest/request.go newUnstructuredResponseError calls it): the
// codes of its switch, two it words generically (408, 412), and 5xx codes
// it words as "an error on the server (...)", without the code. said is
// the code the text says (0: none).
var clientGoVerdicts = []struct {
	code  int
	class Class
	kind  string
	conf  string
	said  int
}{
	{400, ClassUnrecognized, "", "", 400},
	{401, ClassUnrecognized, "", "", 401},
	{403, ClassUnrecognized, "", "", 0}, // the server's own message, empty here
	{404, ClassUnrecognized, "", "", 404},
	{405, ClassUnrecognized, "", "", 405},
	{406, ClassUnrecognized, "", "", 406},
	{408, ClassUnrecognized, "", "", 408},
	{409, ClassUnrecognized, "", "", 409}, // "the server reported a conflict": not the stale-RV wording of KindConflict
	{410, ClassExpired, KindGone, ConfidenceLow, 410},
	{412, ClassUnrecognized, "", "", 412},
	{415, ClassUnrecognized, "", "", 0}, // the server's own message, empty here
	{422, ClassUnrecognized, "", "", 422},
	{429, ClassOther, KindTooManyRequests, ConfidenceMedium, 429},
	{500, ClassOther, KindServerError, ConfidenceLow, 0},
	{501, ClassOther, KindServerError, ConfidenceLow, 0},
	{502, ClassOther, KindServerError, ConfidenceLow, 0},
	{503, ClassOther, KindServerError, ConfidenceLow, 503},
	{504, ClassOther, KindRequestTimeout, ConfidenceMedium, 504},
}

// TestClientGoMessages: client-go's own words for every code, built by the
// library itself, bare and as kubectl prints them.
func TestClientGoMessages(t *testing.T) {
	for _, v := range clientGoVerdicts {
		err := apierrors.NewGenericServerResponse(v.code, "get", schema.GroupResource{Resource: "configmaps"}, "", "", 0, true)
		for _, text := range []string{err.Error(), "Error from server: " + err.Error(), `E1204 18:33:13.123456 1 reflector.go:166] "Unhandled Error" err="failed to list *v1.ConfigMap: ` + err.Error() + `"`} {
			d := FromText(text)
			if d.Class != v.class || d.Kind != v.kind || int(d.Code) != v.said || (v.conf != "" && d.Confidence != v.conf) {
				t.Errorf("%d %q: got %s/%s/%s code %d, want %s/%s/%s code %d", v.code, text, d.Class, d.Kind, d.Confidence, d.Code, v.class, v.kind, v.conf, v.said)
			}
			if got := scanFinds(t, text); got != d.Recognized() {
				t.Errorf("%d %q: ScanLog finds it: %v, FromText: %v", v.code, text, got, d.Recognized())
			}
		}
		// The Go API reads the Status client-go built: the same verdict.
		if g := FromError(err, Context{}); g.Class != v.class || g.Kind != v.kind {
			t.Errorf("%d: FromError %s/%s, FromText %s/%s", v.code, g.Class, g.Kind, v.class, v.kind)
		}
	}
	// The --operation row of docs/explain-error.md: it refines a bare 410.
	gone := apierrors.NewGenericServerResponse(410, "get", schema.GroupResource{Resource: "configmaps"}, "", "", 0, true).Error()
	for op, kind := range map[string]string{OpWatch: KindGone, OpList: KindGone, OpListContinue: KindContinueExpired, OpListExact: KindEtcdCompactedExactList} {
		if d := FromTextContext(gone, Context{Operation: op}); d.Kind != kind || d.Confidence != ConfidenceLow {
			t.Errorf("--operation %s: %s/%s, want %s/low", op, d.Kind, d.Confidence, kind)
		}
	}
}

// TestNumbersThatAreNotCodes: a 410 (or another code) that is not said to
// be a status is not read as one, whatever the operation.
func TestNumbersThatAreNotCodes(t *testing.T) {
	for _, text := range []string{
		`resourceVersion: "410"`,
		`"resourceVersion":"410"`,
		`metadata: {resourceVersion: 410}`,
		`items: 410`,
		`returned 410 items`,
		`2026-12-04T18:04:10.410Z`,
		`I1204 18:04:10.410215       1 reflector.go:376] Listing and watching *v1.ConfigMap from k8s.io/client-go/informers/factory.go:160`,
		`time="2026-12-04T04:10:41Z" level=info msg="synced 504 objects"`,
		`18:04:10.410 Gone fishing`,
		`k3s[10410]: started`,
		`retrying in 410 milliseconds`,
		`unable to decode 500 bytes`,
		`code410`,
		`command terminated with exit code 137`,
		`resourceVersion=410`,
		`410410`,
		`v1.410 Gone`,
	} {
		for _, op := range []string{"", OpWatch, OpListContinue, OpListExact} {
			d := FromTextContext(text, Context{Operation: op, RequestedResourceVersion: ""})
			if d.Recognized() || d.Code != 0 {
				t.Errorf("%q (operation %q): got %s/%s code %d, want Unrecognized without a code", text, op, d.Class, d.Kind, d.Code)
			}
		}
		if scanFinds(t, text) {
			t.Errorf("ScanLog finds %q", text)
		}
	}
}
