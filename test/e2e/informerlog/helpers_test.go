//go:build e2e

package informerlog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// artefactDir is where a test keeps the informers' real logs and records:
// $WATCHRV_E2E_ARTIFACTS/<test> when set, else a directory under the system
// temp dir that outlives the test (its path is logged).
func artefactDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("WATCHRV_E2E_ARTIFACTS")
	if base == "" {
		base = filepath.Join(os.TempDir(), "watchrv-informerlog")
	}
	dir := filepath.Join(base, t.Name())
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("artefacts (informer logs and records) in %s", dir)
	return dir
}

// informerPair is the same informer twice over one kubeconfig: at klog's
// default verbosity (what a controller ships with) and at -v=4, where
// client-go v0.37 logs a watch that ended with 410 Expired ("Watch closed").
type informerPair struct {
	t              *testing.T
	quiet, verbose *framework.Informer
}

func startInformers(t *testing.T, kubeconfig, ns, dir string) *informerPair {
	t.Helper()
	quiet, err := framework.StartInformer(kubeconfig, ns, dir, "informer-v0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = quiet.Stop(5 * time.Second) })
	verbose, err := framework.StartInformer(kubeconfig, ns, dir, "informer-v4", "-v=4")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = verbose.Stop(5 * time.Second) })
	p := &informerPair{t: t, quiet: quiet, verbose: verbose}
	for _, in := range p.both() {
		synced := p.waitFor(in, 60*time.Second, "synced", func(r framework.InformerRecord) bool { return r.Type == "synced" })
		start := p.waitFor(in, time.Second, "start", func(r framework.InformerRecord) bool { return r.Type == "start" })
		if start.WatchListClientGate == nil || synced.Mode == "" {
			t.Fatalf("%s: the start record must carry the WatchListClient gate and the synced record the mode it read from its requests: %+v %+v", in.Name, start, synced)
		}
		t.Logf("%s synced at RV %s in %s mode (client-go WatchListClient gate: %v)", in.Name, synced.ResourceVersion, synced.Mode, *start.WatchListClientGate)
	}
	return p
}

func (p *informerPair) both() []*framework.Informer { return []*framework.Informer{p.quiet, p.verbose} }

func (p *informerPair) waitFor(in *framework.Informer, timeout time.Duration, what string, match func(framework.InformerRecord) bool) framework.InformerRecord {
	p.t.Helper()
	r, recs, err := in.WaitFor(timeout, match)
	if err != nil {
		p.t.Fatalf("waiting for %s: %v; records:\n%s\nlog:\n%s", what, err, describeRecords(recs), readFile(in.LogPath)+readFile(strings.TrimSuffix(in.LogPath, ".log")+".stderr"))
	}
	return r
}

// waitSeen waits until both informers' handlers saw name at rv, and their
// reflectors' last synced RV is rv: the RV a new watch would start from.
func (p *informerPair) waitSeen(name, rv string) {
	p.t.Helper()
	for _, in := range p.both() {
		p.waitFor(in, 30*time.Second, name+"@"+rv, func(r framework.InformerRecord) bool {
			return r.Name == name && r.ResourceVersion == rv && (r.Type == "add" || r.Type == "update")
		})
		p.waitFor(in, 30*time.Second, "lastSync "+rv, func(r framework.InformerRecord) bool {
			return r.Type == "lastSync" && r.ResourceVersion == rv
		})
	}
}

// waitRelistPast waits until both informers' last synced RV reached rv:
// the relist after the outage brought them past its last write.
func (p *informerPair) waitRelistPast(rv string, timeout time.Duration) {
	p.t.Helper()
	for _, in := range p.both() {
		p.waitFor(in, timeout, "the relist past "+rv, func(r framework.InformerRecord) bool {
			return r.Type == "lastSync" && rvNum(p.t, r.ResourceVersion) >= rvNum(p.t, rv)
		})
	}
}

// lastSync is the informer's last recorded "lastSync" RV.
func lastSync(t *testing.T, in *framework.Informer) string {
	t.Helper()
	recs, err := in.Records()
	if err != nil {
		t.Fatal(err)
	}
	rv := ""
	for _, r := range recs {
		if r.Type == "lastSync" {
			rv = r.ResourceVersion
		}
	}
	return rv
}

func (p *informerPair) pause() {
	p.t.Helper()
	for _, in := range p.both() {
		if err := in.Pause(); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *informerPair) resume() {
	p.t.Helper()
	for _, in := range p.both() {
		if err := in.Resume(); err != nil {
			p.t.Fatal(err)
		}
	}
}

// stop ends both with SIGTERM: each must exit 0 after a "stop" record, and
// klog flushes its file on the way out.
func (p *informerPair) stop() {
	p.t.Helper()
	for _, in := range p.both() {
		if err := in.Stop(20 * time.Second); err != nil {
			p.t.Fatalf("%s must exit cleanly on SIGTERM: %v\n%s", in.Name, err, readFile(strings.TrimSuffix(in.LogPath, ".log")+".stderr"))
		}
		recs, err := in.Records()
		if err != nil || len(recs) == 0 || recs[len(recs)-1].Type != "stop" {
			p.t.Fatalf("%s: the last record must be \"stop\": %v %s", in.Name, err, describeRecords(recs))
		}
	}
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b)
}

func describeRecords(recs []framework.InformerRecord) string {
	var b strings.Builder
	for _, r := range recs {
		switch r.Type {
		case "request":
			fmt.Fprintf(&b, "  request %s rv=%s match=%s sendInitialEvents=%v -> %d %s\n", r.Verb, r.ResourceVersion, r.ResourceVersionMatch, r.SendInitialEvents, r.Status, r.Error)
		default:
			fmt.Fprintf(&b, "  %s %s uid=%s rv=%s old=%s/%s tombstone=%v mode=%s\n", r.Type, r.Key, short(r.UID), r.ResourceVersion, short(r.OldUID), r.OldResourceVersion, r.Tombstone, r.Mode)
		}
	}
	return b.String()
}

func short(uid string) string {
	if len(uid) > 8 {
		return uid[:8]
	}
	return uid
}

// logLines returns the lines of a log file (1-based: lines[0] is line 1).
func logLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(b), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// keepForTestdata copies a real log into testdata/ when run with -record.
func keepForTestdata(t *testing.T, src, name string) {
	t.Helper()
	if !*record {
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(framework.RepoRoot(), "test", "e2e", "informerlog", "testdata", name)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", dst)
}

// --- kubectl watchrv explain-error ---

// diagnosis is the part of explain-error's JSON the tests check.
type diagnosis struct {
	Class     string `json:"class"`
	Kind      string `json:"kind"`
	Requested string `json:"requestedResourceVersion"`
	Oldest    string `json:"oldestResourceVersion"`
	Current   string `json:"currentResourceVersion"`
	Gap       string `json:"gap"`
	Code      int    `json:"code"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
	Operation string `json:"operation"`
}

type logGroup struct {
	diagnosis
	Count     int    `json:"count"`
	Lines     []int  `json:"lines"`
	Truncated bool   `json:"linesTruncated"`
	Example   string `json:"example"`
	MaxGap    string `json:"maxGap"`
}

type logSummary struct {
	Lines    int        `json:"lines"`
	Findings int        `json:"findings"`
	Groups   []logGroup `json:"groups"`
}

// explainLog runs "explain-error -f LOG -o json". A log with no finding
// exits 3 with an empty summary.
func explainLog(t *testing.T, path string) logSummary {
	t.Helper()
	r := framework.Run(t, "", time.Minute, "explain-error", "-f", path, "-o", "json")
	if r.Code != 0 && r.Code != 3 {
		t.Fatalf("explain-error -f %s: exit %d: %s", path, r.Code, r.Stderr)
	}
	var s logSummary
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("explain-error -f -o json is not JSON: %v\n%s", err, r.Stdout)
	}
	if (r.Code == 3) != (s.Findings == 0) {
		t.Fatalf("explain-error -f: exit %d with %d findings", r.Code, s.Findings)
	}
	return s
}

// explainLine runs "explain-error -o json -" on one log line, for the
// numbers of that very line (a log group shows its first finding's).
func explainLine(t *testing.T, line string) diagnosis {
	t.Helper()
	r := framework.RunInput(t, "", []byte(line), time.Minute, "explain-error", "-o", "json", "-")
	var d diagnosis
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("explain-error -o json on %q: exit %d, not JSON: %v\n%s%s", line, r.Code, err, r.Stdout, r.Stderr)
	}
	return d
}

// findingLines maps every line number explain-error reported to its group.
func findingLines(t *testing.T, s logSummary) map[int]logGroup {
	t.Helper()
	out := map[int]logGroup{}
	for _, g := range s.Groups {
		if g.Truncated || len(g.Lines) != g.Count {
			t.Fatalf("group %s/%s: %d lines listed for %d findings", g.Class, g.Kind, len(g.Lines), g.Count)
		}
		for _, n := range g.Lines {
			out[n] = g
		}
	}
	return out
}

// --- the harness's own raw watch ---

// rawWatchError opens a watch from rv on API server i and returns the 410
// it gets (as an ERROR event in a 200 stream, or as the HTTP answer).
func rawWatchError(t *testing.T, cs kubernetes.Interface, ns, rv string) *metav1.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		var se apierrors.APIStatus
		if ok := asAPIStatus(err, &se); ok {
			st := se.Status()
			return &st
		}
		t.Fatalf("raw watch from %s: %v", rv, err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			if st, ok := ev.Object.(*metav1.Status); ok {
				return st
			}
			t.Fatalf("raw watch from %s: ERROR event without a Status: %#v", rv, ev.Object)
		}
		t.Fatalf("raw watch from %s: got %s before any error: the RV is still servable", rv, ev.Type)
	}
	t.Fatalf("raw watch from %s: the stream ended without an error", rv)
	return nil
}

// rawExpired is the server's own answer to a watch from x, which must be
// 410 Expired: the same situation the informer met, read by the harness.
func rawExpired(t *testing.T, cs kubernetes.Interface, ns, x string) *metav1.Status {
	t.Helper()
	st := rawWatchError(t, cs, ns, x)
	t.Logf("raw watch from X=%s: %d %s %q", x, st.Code, st.Reason, st.Message)
	if st.Code != 410 || st.Reason != "Expired" {
		t.Fatalf("a raw watch from %s: want 410 Expired, got %d %s: %s", x, st.Code, st.Reason, st.Message)
	}
	return st
}

func asAPIStatus(err error, out *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*out = s
	}
	return ok
}

// rawWatchStarts proves rv is servable: a watch from it delivers the next
// change (made by change) and no error.
func rawWatchStarts(t *testing.T, cs kubernetes.Interface, ns, rv string, change func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatalf("raw watch from %s: %v", rv, err)
	}
	defer w.Stop()
	want := change()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			t.Fatalf("raw watch from %s: %v", rv, apierrors.FromObject(ev.Object))
		}
		if m, err := metaRV(ev.Object); err == nil && m == want {
			return
		}
	}
	t.Fatalf("raw watch from %s ended before the change at %s", rv, want)
}

func metaRV(obj any) (string, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return "", fmt.Errorf("not a configmap: %T", obj)
	}
	return cm.ResourceVersion, nil
}

// tooOld parses "too old resource version: X (Y)".
func tooOld(t *testing.T, msg string) (x, y string) {
	t.Helper()
	const p = "too old resource version: "
	i := strings.Index(msg, p)
	if i < 0 {
		t.Fatalf("not a watch cache window message: %q", msg)
	}
	rest := msg[i+len(p):]
	var xs, ys string
	if _, err := fmt.Sscanf(rest, "%s (%s", &xs, &ys); err != nil {
		t.Fatalf("cannot read X (Y) from %q: %v", msg, err)
	}
	return xs, strings.TrimRight(ys, ")\"")
}

var rvNum = framework.RVNum

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
