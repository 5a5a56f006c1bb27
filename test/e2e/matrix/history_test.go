//go:build e2e

package matrix

import (
	"context"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// write is one write of the oracle's history, as the server stored it.
type write struct {
	Op     string // create, modify, relabel, delete
	Name   string
	RV     uint64
	Sent   time.Time         // before the request left: the write committed after Sent ...
	At     time.Time         // ... and before At (its answer came back)
	Labels map[string]string // after the write (nil for delete)
}

// history makes the harness's writes of configmaps in one namespace and
// logs each with its RV and time: the oracle's brute-force side.
type history struct {
	t    testing.TB
	s    *server
	cs   kubernetes.Interface
	ns   string
	mu   sync.Mutex
	log  []write
	live map[string]map[string]string // name -> labels
	// onKine: the RV a create answers is no ground truth on kine v0.17.5.
	// A create of a name deleted before takes kine's retry path in
	// LogStructured.Create, where `rev, event, err :=` shadows the
	// revision it returns: the create answers 0, which kine replaces with
	// the current revision its poll loop last saw, often the one below
	// the create's own (seen: two writes logged at 609, the watch showing
	// 609 and 610). There a create's RV is read back from storage, and a
	// burst is written one create at a time.
	onKine bool
}

func newHistory(t testing.TB, s *server, cs kubernetes.Interface, ns string, onKine bool) *history {
	return &history{t: t, s: s, cs: cs, ns: ns, live: map[string]map[string]string{}, onKine: onKine}
}

func (h *history) record(op, name string, sent time.Time, rv string, labels map[string]string) {
	h.t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		h.t.Fatalf("%s %s: RV %q: %v", op, name, rv, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, write{Op: op, Name: name, RV: n, Sent: sent, At: time.Now(), Labels: labels})
	if op == "delete" {
		delete(h.live, name)
	} else {
		h.live[name] = labels
	}
}

func (h *history) create(name string, labels map[string]string) {
	h.t.Helper()
	sent := time.Now()
	cm, err := h.cs.CoreV1().ConfigMaps(h.ns).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatalf("create %s: %v", name, err)
	}
	if h.onKine {
		// A consistent GET reads storage; the writes are serial on kine,
		// so nothing has changed the object since.
		if cm, err = h.cs.CoreV1().ConfigMaps(h.ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			h.t.Fatalf("get %s after its create: %v", name, err)
		}
	}
	h.record("create", name, sent, cm.ResourceVersion, cm.Labels)
}

// update reads name, changes its data (and labels, when labels is not
// nil) and writes it back.
func (h *history) update(name string, labels map[string]string) {
	h.t.Helper()
	ctx := context.Background()
	cm, err := h.cs.CoreV1().ConfigMaps(h.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatalf("get %s: %v", name, err)
	}
	op := "modify"
	if labels != nil {
		cm.Labels, op = labels, "relabel"
	}
	cm.Data = map[string]string{"v": cm.ResourceVersion}
	sent := time.Now()
	cm, err = h.cs.CoreV1().ConfigMaps(h.ns).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		h.t.Fatalf("update %s: %v", name, err)
	}
	h.record(op, name, sent, cm.ResourceVersion, cm.Labels)
}

// remove deletes name. A configmap's DELETE answers with a Status, not
// the object, so the deletion's RV is read from the DELETED event of a
// watch of that one name from its last RV.
func (h *history) remove(name string) {
	h.t.Helper()
	ctx := context.Background()
	cm, err := h.cs.CoreV1().ConfigMaps(h.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatalf("get %s: %v", name, err)
	}
	sent := time.Now()
	if err := h.cs.CoreV1().ConfigMaps(h.ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		h.t.Fatalf("delete %s: %v", name, err)
	}
	w := h.s.watch("/api/v1/namespaces/"+h.ns+"/configmaps", url.Values{
		"resourceVersion": {cm.ResourceVersion}, "fieldSelector": {"metadata.name=" + name}, "timeoutSeconds": {"20"},
	}, 30*time.Second, func(e event) bool { return e.Type == "DELETED" || e.Type == "ERROR" })
	if n := len(w.Events); n == 0 || w.Events[n-1].Type != "DELETED" {
		h.t.Fatalf("delete %s: no DELETED event from RV %s: %d %+v %s", name, cm.ResourceVersion, w.Code, w.Events, w.Body)
	}
	h.record("delete", name, sent, w.Events[len(w.Events)-1].Object.Metadata.ResourceVersion, nil)
}

// burst creates n configmaps prefix-0..n-1 from workers writers at once.
func (h *history) burst(prefix string, n, workers int) {
	h.t.Helper()
	if h.onKine {
		workers = 1
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				h.create(fmt.Sprintf("%s-%d", prefix, i), map[string]string{"burst": prefix})
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// scripted is the seeds' sequence: create, modify, delete, recreate, label
// moves and a burst. It returns the RV after the recreate (a point to
// compact at).
func (h *history) scripted() uint64 {
	x, y := map[string]string{"app": "x"}, map[string]string{"app": "y"}
	h.create("a", x)
	h.create("b", x)
	h.create("c", nil)
	h.update("a", nil)
	h.update("a", nil)
	h.remove("b")
	h.create("b", x)
	mid := h.lastRV()
	h.update("a", y) // a leaves app=x ...
	h.update("c", x) // ... and c joins it
	h.burst("burst", 30, 6)
	return mid
}

// randomized makes n writes on a pool of names, chosen by seed.
func (h *history) randomized(seed int64, n int) {
	h.t.Helper()
	r := rand.New(rand.NewSource(seed))
	apps := []string{"x", "y", "z"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("r-%d", r.Intn(8))
		h.mu.Lock()
		_, exists := h.live[name]
		h.mu.Unlock()
		switch k := r.Intn(3); {
		case !exists:
			h.create(name, map[string]string{"app": apps[r.Intn(3)]})
		case k == 0:
			h.remove(name)
		case k == 1:
			h.update(name, nil)
		default:
			h.update(name, map[string]string{"app": apps[r.Intn(3)]})
		}
	}
}

func (h *history) lastRV() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var max uint64
	for _, w := range h.log {
		if w.RV > max {
			max = w.RV
		}
	}
	return max
}

// count is how many live objects the log says match label app=value ("" :
// every object).
func (h *history) count(app string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, l := range h.live {
		if app == "" || l["app"] == app {
			n++
		}
	}
	return n
}

// rvsAfter are the logged RVs above rv, ascending.
func (h *history) rvsAfter(rv uint64) []uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []uint64
	for _, w := range h.log {
		if w.RV > rv {
			out = append(out, w.RV)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// oracleSeed is WATCHRV_ORACLE_SEED, else the time: printed either way so
// that a failure can be replayed.
func oracleSeed(t testing.TB) int64 {
	if s := os.Getenv("WATCHRV_ORACLE_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("WATCHRV_ORACLE_SEED=%q: %v", s, err)
		}
		return n
	}
	return time.Now().UnixNano()
}

// oracleSeeds is WATCHRV_ORACLE_SEEDS (make oracle SEEDS=N), else 1: how
// many seeds each cell runs, one after the other, each in its own
// namespace (seed, seed+1, ...).
func oracleSeeds(t testing.TB) int {
	s := os.Getenv("WATCHRV_ORACLE_SEEDS")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("WATCHRV_ORACLE_SEEDS=%q: want a positive count", s)
	}
	return n
}

// countAt is how many objects the log says were alive at rv.
func (h *history) countAt(rv uint64) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	log := append([]write(nil), h.log...)
	sort.Slice(log, func(i, j int) bool { return log[i].RV < log[j].RV })
	live := map[string]bool{}
	for _, w := range log {
		if w.RV > rv {
			break
		}
		live[w.Name] = w.Op != "delete"
	}
	n := 0
	for _, alive := range live {
		if alive {
			n++
		}
	}
	return n
}

// rvs are every logged RV, ascending.
func (h *history) rvs() []uint64 { return h.rvsAfter(0) }

// tryUpdate is update for a goroutine other than the test's: it returns
// the error instead of failing the test.
func (h *history) tryUpdate(name string) error {
	ctx := context.Background()
	cm, err := h.cs.CoreV1().ConfigMaps(h.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cm.Data = map[string]string{"v": cm.ResourceVersion}
	sent := time.Now()
	cm, err = h.cs.CoreV1().ConfigMaps(h.ns).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(cm.ResourceVersion, 10, 64)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, write{Op: "modify", Name: name, RV: n, Sent: sent, At: time.Now(), Labels: cm.Labels})
	h.live[name] = cm.Labels
	return nil
}

// depthBounds dates RV o from the log, as seen at instant at: how long
// before at o was committed, at least lo (the first logged write at or
// above o had answered by then) and at most hi (the last logged write at
// or below o had been sent by then). ok is false where the log has no
// such write.
func (h *history) depthBounds(o uint64, at time.Time) (lo, hi float64, loOK, hiOK bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var next, prev *write
	for i := range h.log {
		w := &h.log[i]
		if w.RV >= o && (next == nil || w.RV < next.RV) {
			next = w
		}
		if w.RV <= o && (prev == nil || w.RV > prev.RV) {
			prev = w
		}
	}
	if next != nil {
		lo, loOK = at.Sub(next.At).Seconds(), true
	}
	if prev != nil {
		hi, hiOK = at.Sub(prev.Sent).Seconds(), true
	}
	return lo, hi, loOK, hiOK
}
