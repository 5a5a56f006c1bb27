//go:build e2e

package clients

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// watchKind is one way a client-go client starts its watches, and what
// clients must call it.
type watchKind struct {
	agent string
	opts  func(listRV string) metav1.ListOptions
	// mode: "state" (the whole collection as ADDED, no end bookmark),
	// "streaming" (the same, then the initial-events-end bookmark),
	// "changes" (no state), "exact".
	mode string
	// zero: a resourceVersion of 0 (clients counts it in zero, else in
	// unset; exact and streaming apart).
	zero bool
}

var (
	sieFalse, sieTrue = false, true
	notOlderThan      = metav1.ResourceVersionMatchNotOlderThan
)

// watchKinds: every start mode a watch can ask for.
var watchKinds = []watchKind{
	{"watchrv-e2e-watch-legacy-unset", func(string) metav1.ListOptions { return metav1.ListOptions{} }, "state", false},
	{"watchrv-e2e-watch-legacy-zero", func(string) metav1.ListOptions { return metav1.ListOptions{ResourceVersion: "0"} }, "state", true},
	{"watchrv-e2e-watch-changes-unset", func(string) metav1.ListOptions {
		return metav1.ListOptions{SendInitialEvents: &sieFalse, ResourceVersionMatch: notOlderThan, AllowWatchBookmarks: true}
	}, "changes", false},
	{"watchrv-e2e-watch-changes-zero", func(string) metav1.ListOptions {
		return metav1.ListOptions{ResourceVersion: "0", SendInitialEvents: &sieFalse, ResourceVersionMatch: notOlderThan, AllowWatchBookmarks: true}
	}, "changes", true},
	{"watchrv-e2e-watch-streaming", func(string) metav1.ListOptions {
		return metav1.ListOptions{SendInitialEvents: &sieTrue, ResourceVersionMatch: notOlderThan, AllowWatchBookmarks: true}
	}, "streaming", false},
	{"watchrv-e2e-watch-exact", func(rv string) metav1.ListOptions { return metav1.ListOptions{ResourceVersion: rv} }, "exact", false},
}

// watchRounds: watches of each kind, one after the other; each after the
// first starts at once after the one before it ended, so that the kinds
// that re-read the whole collection make watchRounds-1 relists.
const (
	watchRounds    = 5
	watchInitState = 3 // configmaps in the namespace
)

// watchSeen is what the server sent one watch.
type watchSeen struct {
	added       int  // ADDED events
	endBookmark bool // a bookmark annotated k8s.io/initial-events-end
	refused     int  // the HTTP code of a refused watch (0: answered)
}

// TestClientsWatchStartModes is adversary try 22 F9: clients counted a
// watch with sendInitialEvents=false and a legacy watch from
// resourceVersion unset or 0 (which gets the whole collection as ADDED
// events) both as "RV unset"/"RV 0", and found no relist loop in a client
// that re-reads the whole collection with legacy watches. Real client-go
// watches of every start mode, watchRounds of each back to back, on real
// servers: the server's own answers say what each mode sends (the state
// or not, the initial-events-end bookmark or not, a 422 where the
// WatchList gate is off: v1.30 and v1.33 by default); clients must name
// each mode by what it sends, and find a relist loop in exactly the
// clients whose answered watches sent the whole collection each time.
// Over etcd and kine, with the watch cache on and off (the cacher and
// etcd3's watcher serve the modes apart).
func TestClientsWatchStartModes(t *testing.T) {
	for _, cell := range []string{"v1.37/etcd/cache-on", "v1.37/etcd/cache-off", "v1.37/kine/cache-off", "v1.33/etcd/cache-on", "v1.30/etcd/cache-off"} {
		t.Run(cell, func(t *testing.T) { watchModesOn(t, cell) })
	}
}

func watchModesOn(t *testing.T, cellName string) {
	cell, err := framework.ParseCell(cellName)
	if err != nil {
		t.Fatal(err)
	}
	minor, _ := strconv.Atoi(strings.TrimPrefix(cell.Version, "v1."))
	// The WatchList gate's default (k8s.io/apiserver pkg/features): off
	// up to v1.31 and on v1.33, on v1.32 and from v1.34.
	watchList := minor == 32 || minor >= 34
	c := framework.StartCell(t, cellName)
	cs, ns := framework.Namespace(t, c, "watch-modes")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	for i := 0; i < watchInitState; i++ {
		w.Create(fmt.Sprint("cm-", i), nil)
	}
	l, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	seen := make([][]watchSeen, len(watchKinds))
	var wg sync.WaitGroup
	for i, k := range watchKinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen[i] = watchRepeatedly(t, c, ns, k, l.ResourceVersion)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// What each mode got from this server: the premise of the names.
	for i, k := range watchKinds {
		asksSIE := k.mode == "streaming" || k.mode == "changes"
		for j, s := range seen[i] {
			var want watchSeen
			switch {
			case asksSIE && !watchList:
				want.refused = 422
			case k.mode == "state":
				want.added = watchInitState
			case k.mode == "streaming":
				want = watchSeen{added: watchInitState, endBookmark: true}
			}
			if s != want {
				t.Fatalf("%s, watch %d: the server sent %+v, the test takes this mode to send %+v", k.agent, j, s, want)
			}
		}
	}
	time.Sleep(time.Second) // the last ends in the log
	recordWatchModes(t, c.APIServers[0].AuditLog, cellName)

	rep := runClients(t, "-f", c.APIServers[0].AuditLog)
	for i, k := range watchKinds {
		cl := find(rep, "admin", k.agent)
		if cl == nil {
			t.Errorf("%s: no such client in the report", k.agent)
			continue
		}
		w := cl.Watches
		var want clients.WatchModes
		want.Total = watchRounds
		switch k.mode {
		case "state":
			want.StateAndChanges = watchRounds
		case "changes":
			want.ChangesOnly = watchRounds
		case "streaming":
			want.Streaming = watchRounds
		case "exact":
			want.Exact = watchRounds
		}
		if k.mode == "state" || k.mode == "changes" {
			if k.zero {
				want.Zero = watchRounds
			} else {
				want.Unset = watchRounds
			}
		}
		got := clients.WatchModes{Total: w.Total, Unset: w.Unset, Zero: w.Zero, Exact: w.Exact, Streaming: w.Streaming, StateAndChanges: w.StateAndChanges, ChangesOnly: w.ChangesOnly}
		if got != want {
			t.Errorf("%s: the server sent %+v; clients counts the watches %+v, want %+v", k.agent, seen[i][0], got, want)
		}
		// A relist loop where every answered watch sent the whole
		// collection; none where they sent none, or were refused.
		wantLoop := seen[i][0].added == watchInitState
		var loop *clients.Pattern
		for j, p := range cl.Patterns {
			if p.Name == clients.PatternRelistLoop {
				loop = &cl.Patterns[j]
			}
		}
		switch {
		case wantLoop && (loop == nil || loop.Count != watchRounds-1):
			t.Errorf("%s: %d watches each sent the whole collection (%d objects); want a relist-loop of %d relists, got %+v", k.agent, watchRounds, watchInitState, watchRounds-1, loop)
		case !wantLoop && loop != nil:
			t.Errorf("%s: no watch sent the collection (%+v); yet %s", k.agent, seen[i][0], loop.Evidence)
		}
	}

	// The human report names each mode by what the server sent.
	r := framework.Run(t, "", time.Minute, "clients", "-f", c.APIServers[0].AuditLog, "--top", "100", "--timeline", "1")
	if r.Code != 0 {
		t.Fatalf("clients: exit %d: %s", r.Code, r.Stderr)
	}
	for _, k := range watchKinds {
		label := map[string]string{
			"state":     "state + changes (legacy RV unset/0: the whole collection as ADDED)",
			"changes":   "changes only (sendInitialEvents=false)",
			"streaming": "streaming list",
			"exact":     "exact RV",
		}[k.mode]
		block := clientBlock(r.Stdout, "admin / "+k.agent)
		if want := fmt.Sprintf("watches  %d: %d %s;", watchRounds, watchRounds, label); !strings.Contains(block, want) {
			t.Errorf("%s: no %q in its part of the report:\n%s", k.agent, want, block)
		}
	}
}

// watchRepeatedly runs watchRounds watches of kind k, as the user agent
// k.agent, each ended by the server after 1 s, and says what each got.
func watchRepeatedly(t *testing.T, c *framework.Cluster, ns string, k watchKind, listRV string) []watchSeen {
	cfg := c.RESTConfig(0)
	cfg.UserAgent = k.agent
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Error(err)
		return nil
	}
	var out []watchSeen
	for i := 0; i < watchRounds; i++ {
		opts := k.opts(listRV)
		one := int64(1)
		opts.TimeoutSeconds = &one
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		wi, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, opts)
		var s watchSeen
		var st apierrors.APIStatus
		switch {
		case errors.As(err, &st):
			s.refused = int(st.Status().Code)
		case err != nil:
			cancel()
			t.Errorf("%s: watch %d: %v", k.agent, i, err)
			return nil
		default:
			for ev := range wi.ResultChan() {
				switch ev.Type {
				case watch.Added:
					s.added++
				case watch.Bookmark:
					if m, err := meta.Accessor(ev.Object); err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
						s.endBookmark = true
					}
				case watch.Error:
					t.Errorf("%s: watch %d: an ERROR event: %v", k.agent, i, ev.Object)
				}
			}
			wi.Stop()
		}
		cancel()
		out = append(out, s)
	}
	return out
}

// clientBlock is one client's part of the human report.
func clientBlock(report, name string) string {
	i := strings.Index(report, "\n"+name+"\n")
	if i < 0 {
		return ""
	}
	rest := report[i+1:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// recordWatchModes keeps the lines of the test's watch clients in
// WATCHRV_RECORD_AUDIT/watch-modes-CELL.log (CELL with "/" as "-") when
// that directory is set: pkg/clients/testdata's recorded watch modes.
func recordWatchModes(t *testing.T, auditLog, cell string) {
	recordAudit(t, auditLog, "watchrv-e2e-watch-", "watch-modes-"+strings.ReplaceAll(cell, "/", "-")+".log")
}

// recordAudit keeps the lines of the clients whose user agent starts with
// agentPrefix in WATCHRV_RECORD_AUDIT/name when that directory is set: the
// recorded real lines of pkg/clients/testdata.
func recordAudit(t *testing.T, auditLog, agentPrefix, name string) {
	dir := os.Getenv("WATCHRV_RECORD_AUDIT")
	if dir == "" {
		return
	}
	f, err := os.Open(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kept bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"userAgent":"`+agentPrefix)) {
			kept.Write(sc.Bytes())
			kept.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), kept.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
