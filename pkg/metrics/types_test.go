package metrics

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The TYPE the plugin expects of each family it reads is the one every
// recorded kube-apiserver (v1.30, v1.33 and v1.37; etcd and kine; the
// watch cache on and off) declares, and every family read has one.
func TestFamilyTypesAreTheRecordedServers(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.metrics.txt")
	more, _ := filepath.Glob("../top/testdata/*.metrics.txt")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("recordings: %v", files)
	}
	seen := map[string]bool{}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, MaxSelectedLine)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) != 4 || fields[0] != "#" || fields[1] != "TYPE" || !KnowsType(fields[2]) {
				continue
			}
			seen[fields[2]] = true
			if want := typeWord(familyTypes[fields[2]]); fields[3] != want {
				t.Errorf("%s declares %s a %s; the plugin expects a %s", file, fields[2], fields[3], want)
			}
		}
		f.Close()
	}
	for _, name := range WatchCacheFamilies {
		if !KnowsType(name) {
			t.Errorf("%s is read (WatchCacheFamilies) with no TYPE known", name)
		}
	}
	t.Logf("%d of the %d families checked against recordings (the others have no series there)", len(seen), len(familyTypes))
}
