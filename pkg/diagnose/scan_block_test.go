package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestAStatusOverSeveralLinesIsOneError: every recorded Status, printed
// over several lines as kubectl -v=6 prints an answer's body ("server
// response object: %s[{ ... }]") or as jq pretty-prints it, is one
// finding, of the kind the Status is as one line, at its first line
// (fresh user try 50 F3: its "reason": "Timeout" line was a second kind).
func TestAStatusOverSeveralLinesIsOneError(t *testing.T) {
	tried := 0
	for _, s := range samples {
		if _, _, ok := wholeStatus(s.text); !ok {
			continue
		}
		want := FromText(s.text)
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(s.text), "", "  "); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for form, log := range map[string]string{
			"kubectl -v=6": "I1207 21:04:08.482685    8949 round_trippers.go:560] GET https://127.0.0.1:1/api/v1/namespaces 200 OK in 3 milliseconds\n" +
				"I1207 21:04:08.483389    8949 helpers.go:246] server response object: %s[" + pretty.String() + "]\n",
			"jq": "$ jq . status.json\n" + pretty.String() + "\n",
		} {
			tried++
			var got []Finding
			if err := ScanLog(strings.NewReader(log), func(f Finding) { got = append(got, f) }); err != nil {
				t.Fatal(err)
			}
			first := 2
			if len(got) != 1 || got[0].Class != want.Class || got[0].Kind != want.Kind || got[0].Line != first {
				t.Errorf("%s as %s: %d findings %s, want one %s/%s at line %d", s.name, form, len(got), kinds(got), want.Class, want.Kind, first)
			}
		}
	}
	if tried == 0 {
		t.Fatal("no sample is a whole Status: the test checks nothing")
	}
}

// TestAKubectlTraceCountsEachAnswerOnce: a recorded kubectl -v=6 run of one
// TooLarge list (eleven 504 answers, the last one's Status over 16 lines,
// kubectl's error line) is eleven errors of one kind: one per answer,
// the body with the answer it came in, kubectl's echo of it none.
func TestAKubectlTraceCountsEachAnswerOnce(t *testing.T) {
	f, err := os.Open("testdata/toolarge-kubectl-v6.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Summarize(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Groups) != 1 || s.Groups[0].Class != ClassTooLarge || s.Findings != 11 {
		t.Fatalf("%d findings in %d groups, want 11 TooLarge in one: %+v", s.Findings, len(s.Groups), s.Groups)
	}
	want := "[2 4 6 8 10 12 14 16 18 20 23]"
	if got := fmt.Sprint(s.Groups[0].Lines); got != want {
		t.Fatalf("lines %s, want %s (each answer's line; the last answer's with its body)", got, want)
	}
}

func kinds(fs []Finding) string {
	var w []string
	for _, f := range fs {
		w = append(w, fmt.Sprintf("%s/%s@%d", f.Class, f.Kind, f.Line))
	}
	return "[" + strings.Join(w, " ") + "]"
}
