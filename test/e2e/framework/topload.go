package framework

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Load is a known List/Watch load on one API server, for top's tests:
// Informers client-go informers (each its own factory, so its own watch)
// and RawWatches plain watches, all on the widgets of one namespace; a
// lister that lists that namespace's configmaps ListsPerSecond times a
// second with a label selector that matches Matching of Objects; a writer
// that updates one widget WritesPerSecond times a second.
type Load struct {
	Informers, RawWatches int
	ListsPerSecond        float64
	Objects, Matching     int
	WritesPerSecond       float64
}

// Watchers is how many watches the load holds open on widgets.
func (l Load) Watchers() int { return l.Informers + l.RawWatches }

// Span is one request of the load, from its start to its answer.
type Span struct{ Start, End time.Time }

// LoadRun is a running Load.
type LoadRun struct {
	Load      Load
	Namespace string
	mu        sync.Mutex
	lists     []Span
	writes    []Span
	cancel    context.CancelFunc
	done      sync.WaitGroup
	errs      []error
}

// WidgetsGVR is the CR the load watches (CreateWidgetCRD).
var WidgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// TopLabel selects the configmaps the lister's selector matches.
const TopLabel = "watchrv-top"

// StartLoad sets up ns (the widgets CRD, Objects configmaps, one widget),
// opens every watch, waits until the informers have synced, and starts
// the lister and the writer. Stop ends it all.
func StartLoad(ctx context.Context, c *Cluster, api int, ns string, l Load) (*LoadRun, error) {
	if _, err := c.CreateWidgetCRD(ctx); err != nil {
		return nil, err
	}
	cs, err := c.Clientset(api)
	if err != nil {
		return nil, err
	}
	if err := CreateNamespace(ctx, cs, ns); err != nil {
		return nil, err
	}
	for i := 0; i < l.Objects; i++ {
		labels := map[string]string{TopLabel: "other"}
		if i < l.Matching {
			labels[TopLabel] = "match"
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Labels: labels}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	dyn, err := dynamic.NewForConfig(c.RESTConfig(api))
	if err != nil {
		return nil, err
	}
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "written"}, "spec": map[string]any{"n": int64(0)},
	}}
	if _, err := dyn.Resource(WidgetsGVR).Namespace(ns).Create(ctx, widget, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r := &LoadRun{Load: l, Namespace: ns, cancel: cancel}
	if err := r.openWatches(ctx, runCtx, dyn); err != nil {
		cancel()
		r.done.Wait()
		return nil, err
	}
	r.every(runCtx, l.ListsPerSecond, &r.lists, func(ctx context.Context) error {
		_, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: TopLabel + "=match"})
		return err
	})
	n := 0
	r.every(runCtx, l.WritesPerSecond, &r.writes, func(ctx context.Context) error {
		n++
		patch := fmt.Sprintf(`{"spec":{"n":%d}}`, n)
		_, err := dyn.Resource(WidgetsGVR).Namespace(ns).Patch(ctx, "written", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	})
	return r, nil
}

// openWatches starts the informers and the raw watches and waits until
// every one is open (an informer: synced; a raw watch: answered).
func (r *LoadRun) openWatches(ctx, runCtx context.Context, dyn dynamic.Interface) error {
	var synced []cache.InformerSynced
	for i := 0; i < r.Load.Informers; i++ {
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, r.Namespace, nil)
		inf := f.ForResource(WidgetsGVR).Informer()
		f.Start(runCtx.Done())
		synced = append(synced, inf.HasSynced)
	}
	for i := 0; i < r.Load.RawWatches; i++ {
		w, err := dyn.Resource(WidgetsGVR).Namespace(r.Namespace).Watch(runCtx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("raw watch %d: %w", i, err)
		}
		r.done.Add(1)
		go func() {
			defer r.done.Done()
			defer w.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case _, ok := <-w.ResultChan():
					if !ok {
						return
					}
				}
			}
		}()
	}
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), synced...) {
		return fmt.Errorf("the %d informers of widgets did not sync within a minute", r.Load.Informers)
	}
	return nil
}

// every runs do perSecond times a second, recording each span, until ctx ends.
func (r *LoadRun) every(ctx context.Context, perSecond float64, spans *[]Span, do func(context.Context) error) {
	if perSecond <= 0 {
		return
	}
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		t := time.NewTicker(time.Duration(float64(time.Second) / perSecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			s := Span{Start: time.Now()}
			err := do(ctx)
			s.End = time.Now()
			r.mu.Lock()
			if err != nil && ctx.Err() == nil {
				r.errs = append(r.errs, err)
			} else if err == nil {
				*spans = append(*spans, s)
			}
			r.mu.Unlock()
		}
	}()
}

// Stop ends the load: every watch, the lister and the writer.
func (r *LoadRun) Stop() {
	r.cancel()
	r.done.Wait()
}

// Errs are the failed requests of the lister and the writer.
func (r *LoadRun) Errs() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// Window is what a sample's times say about when its counters were
// taken: between Start (the request sent) and At (its answer's headers).
type Window struct{ Start, At time.Time }

// Bounds is how many spans a counter difference between two samples must
// and may count.
type Bounds struct{ Min, Max int }

func (b Bounds) String() string { return fmt.Sprintf("[%d, %d]", b.Min, b.Max) }

// Has reports whether n is within the bounds.
func (b Bounds) Has(n float64) bool { return n >= float64(b.Min) && n <= float64(b.Max) }

// countBetween bounds how many spans a counter taken at first and at
// second counts, when each span is counted once at an instant between its
// start and its end plus lag: surely when that whole range falls between
// the samples, possibly when it overlaps them.
func countBetween(spans []Span, first, second Window, lag time.Duration) Bounds {
	var b Bounds
	for _, s := range spans {
		if s.Start.After(first.At) && s.End.Add(lag).Before(second.Start) {
			b.Min++
		}
		if s.End.Add(lag).After(first.Start) && s.Start.Before(second.At) {
			b.Max++
		}
	}
	return b
}

// ListBounds bounds the lists a counter difference counts (a list is
// counted before it is answered).
func (r *LoadRun) ListBounds(first, second Window) Bounds {
	r.mu.Lock()
	defer r.mu.Unlock()
	return countBetween(r.lists, first, second, 0)
}

// WriteBounds bounds the writes whose events a counter difference counts:
// an event reaches the watch cache and the watchers after its write is
// answered, within lag.
func (r *LoadRun) WriteBounds(first, second Window, lag time.Duration) Bounds {
	r.mu.Lock()
	defer r.mu.Unlock()
	return countBetween(r.writes, first, second, lag)
}

// SlowWatcher is a watch whose client stops reading: HTTP/1.1 over a
// socket with a small receive buffer, so that the server's writes block
// soon. Close ends it.
type SlowWatcher struct {
	resp *http.Response
}

// OpenSlowWatcher opens a watch of path (e.g.
// /api/v1/namespaces/NS/configmaps?watch=1) on the server of cfg, reads its
// headers and nothing more.
func OpenSlowWatcher(ctx context.Context, cfg *rest.Config, path string) (*SlowWatcher, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.TLSClientConfig.NextProtos = []string{"http/1.1"}
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	cfg.Dial = d.DialContext
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(cfg.Host, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("slow watcher: %s answered %s", path, resp.Status)
	}
	return &SlowWatcher{resp: resp}, nil
}

// Close ends the slow watch.
func (s *SlowWatcher) Close() { s.resp.Body.Close() }

// WriteBigConfigMaps creates n configmaps of size bytes each in ns, one
// after another (the events a slow watcher cannot take).
func (c *Cluster) WriteBigConfigMaps(ctx context.Context, api int, ns, prefix string, n, size int) error {
	cs, err := c.Clientset(api)
	if err != nil {
		return err
	}
	data := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%03d", prefix, i)}, Data: map[string]string{"v": data}}, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}
