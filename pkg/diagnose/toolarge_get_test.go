package diagnose

import (
	"strings"
	"testing"
)

// A GET of one object with a resourceVersion is answered TooLarge as a
// list is (504, reason Timeout, cause ResourceVersionTooLarge): its 504
// lines are TooLarge, and the Status body after the last one is that
// request's answer (fresh user try 52 F1: 11 RequestTimeout and a
// TooLarge with no request, --check then asked the default resource).
// Recorded traces (testdata/README.md).
func TestAGetWithAnRVIsAnsweredTooLargeAsAListIs(t *testing.T) {
	for _, tc := range []struct {
		file               string
		resource, ns, name string
		op                 string
	}{
		{"toolarge-get-clusterrole-kubectl-v6.log", "clusterroles", "", "admin", ""},
		{"toolarge-get-configmap-kubectl-v6.log", "configmaps", "demo", "a", ""},
		{"toolarge-list-exact-kubectl-v6.log", "configmaps", "demo", "", OpListExact},
	} {
		t.Run(tc.file, func(t *testing.T) {
			lines := readLines(t, tc.file)
			text := strings.Join(lines, "\n")
			var got []Finding
			if err := ScanLog(strings.NewReader(text), func(f Finding) { got = append(got, f) }); err != nil {
				t.Fatal(err)
			}
			if len(got) != 11 {
				t.Fatalf("%d findings, want 11 (one per answer)", len(got))
			}
			for _, f := range got {
				if f.Kind != KindResourceVersionTooLarge || f.Request == nil || f.Request.Resource != tc.resource || f.Request.Name != tc.name || f.RequestedResourceVersion != "99999" {
					t.Errorf("line %d: %s request %+v RV %q, want TooLarge of %s %q at 99999", f.Line, f.Kind, f.Request, f.RequestedResourceVersion, tc.resource, tc.name)
				}
			}
			if last := got[10]; last.Line != 23 || last.Confidence != ConfidenceHigh {
				t.Errorf("last finding line %d %s, want the Status body at line 23, high", last.Line, last.Confidence)
			}
			d, r := ReadText(text, Context{})
			if d.Kind != KindResourceVersionTooLarge || d.Confidence != ConfidenceHigh || d.Request == nil ||
				d.Request.Resource != tc.resource || d.Request.Namespace != tc.ns || d.Request.Name != tc.name || d.Operation != tc.op ||
				r.Findings != 11 || r.Kinds != 1 || r.Line != 23 {
				t.Errorf("ReadText: %s %s op %q request %+v, %+v", d.Kind, d.Confidence, d.Operation, d.Request, r)
			}
			// The 504 line alone, its body lost: TooLarge, low.
			one := classifyText(lines[1], Context{})
			if one.Kind != KindResourceVersionTooLarge || one.Confidence != ConfidenceLow {
				t.Errorf("the 504 line alone: %s %s, want ResourceVersionTooLarge low", one.Kind, one.Confidence)
			}
		})
	}
}
