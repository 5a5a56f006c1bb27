package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 16 item 17: a client-go informer logs `"Watch close" ...
// totalItems=N` (info level) each time a watch ends normally, every 5 to
// 10 minutes; explain-error -f counted those as errors ("5 errors of 2
// kinds" on the demo's own controller log). These are real informer logs
// (client-go v0.37.2, recorded by test/e2e/informerlog): no "Watch close"
// line is a finding, and the real errors in them still are.
func TestScanLogIgnoresNormalWatchCloseOfRecordedInformerLogs(t *testing.T) {
	files, err := filepath.Glob("../../test/e2e/informerlog/testdata/*.log")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded informer logs: %v", err)
	}
	closes := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		normal := map[int]bool{}
		for i, l := range lines {
			if strings.Contains(l, `"Watch close" `) && strings.Contains(l, "totalItems=") {
				normal[i+1] = true
				closes++
			}
		}
		found := 0
		if err := ScanLog(strings.NewReader(string(b)), func(fd Finding) {
			found++
			if normal[fd.Line] {
				t.Errorf("%s line %d, a normal watch end, counted as %s/%s: %s", filepath.Base(f), fd.Line, fd.Class, fd.Kind, fd.Text)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if found == 0 {
			t.Errorf("%s: the real errors in it were lost too", filepath.Base(f))
		}
	}
	if closes == 0 {
		t.Fatal("the recorded logs hold no normal \"Watch close\" line: the test checks nothing")
	}
	// The same line pasted alone is not an error, and says why.
	line := `I1130 04:33:41.591383   23509 reflector.go:1093] "Watch close" reflector="pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:343" type="*v1.ConfigMap" totalItems=1`
	d := FromText(line)
	if d.Recognized() || len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "ended normally") {
		t.Fatalf("a normal watch end: got %s/%s %v", d.Class, d.Kind, d.Notes)
	}
	// "Watch closed" with an error is still one.
	closed := `I1130 04:33:41.596872   23509 reflector.go:651] "Watch closed" reflector="pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:343" type="*v1.ConfigMap" err="too old resource version: 213 (229)"`
	if d := FromText(closed); d.Kind != KindWatchCacheWindow {
		t.Fatalf("a watch closed by a 410: got %s/%s", d.Class, d.Kind)
	}
}
