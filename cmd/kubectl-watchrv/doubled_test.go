package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// doubled finds a word repeated as a prefix: "Timeout: Timeout:",
// "forbidden: Forbidden:".
var doubled = regexp.MustCompile(`(?i)\b([a-z]+): ([a-z]+):`)

func hasDoubledPrefix(s string) bool {
	for _, m := range doubled.FindAllStringSubmatch(s, -1) {
		if strings.EqualFold(m[1], m[2]) {
			return true
		}
	}
	return false
}

// recordedStatuses are every Status the plugin's testdata recorded from
// real servers: list answers and the ERROR events of watches.
func recordedStatuses(t *testing.T) []metav1.Status {
	t.Helper()
	files, err := filepath.Glob("../../pkg/*/testdata/*.json*")
	if err != nil {
		t.Fatal(err)
	}
	var out []metav1.Status
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev struct {
				Type   string        `json:"type"`
				Object metav1.Status `json:"object"`
			}
			var st metav1.Status
			switch {
			case json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "ERROR":
				out = append(out, ev.Object)
			case json.Unmarshal(sc.Bytes(), &st) == nil && st.Kind == "Status":
				out = append(out, st)
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d recorded statuses found", len(out))
	}
	return out
}

// No error line says a prefix twice, whichever way a recorded Status
// reaches it: the one error path of every command (requestError, with
// WithFix for RV problems), the one line of a Status (StatusLine) and the
// watch's ERROR event error (issue 25, E26: "Timeout: Timeout:").
func TestNoErrorLineDoublesItsPrefix(t *testing.T) {
	_, o := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	for _, st := range recordedStatuses(t) {
		err := apierrors.FromObject(&st)
		lines := []string{
			o.requestError(err, "watch", "configmaps").Error(),
			diagnose.WithFix(err, diagnose.Context{Live: true}).Error(),
			diagnose.StatusLine(st.Code, string(st.Reason), st.Message),
		}
		for _, l := range lines {
			if hasDoubledPrefix(l) {
				t.Errorf("doubled prefix in %q (from %d %s %q)", l, st.Code, st.Reason, st.Message)
			}
		}
	}
	if !hasDoubledPrefix("504: Timeout: Timeout: Too large") {
		t.Fatal("the check itself finds nothing")
	}
}
