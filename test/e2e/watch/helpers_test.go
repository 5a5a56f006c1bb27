//go:build e2e

package watch

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// record is one line of "watch -o json" (every record kind in one struct).
type record struct {
	Record           string `json:"record"`
	Type             string `json:"type"`
	Namespace        string `json:"namespace"`
	Name             string `json:"name"`
	UID              string `json:"uid"`
	ResourceVersion  string `json:"resourceVersion"`
	SinceStart       *int64 `json:"sinceStart"`
	InitialEventsEnd bool   `json:"initialEventsEnd"`
	InitialObjects   *int   `json:"initialObjects"`
	Duplicate        bool   `json:"duplicate"`
	PreviousUID      string `json:"previousUID"`
	DeleteCause      string `json:"deleteCause"`
	FromHTTPStatus   bool   `json:"fromHTTPStatus"`
	Status           *struct {
		Code    int    `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"status"`
	Diagnosis *struct {
		Class                 string `json:"class"`
		Kind                  string `json:"kind"`
		Fix                   string `json:"fix"`
		OldestResourceVersion string `json:"oldestResourceVersion"`
	} `json:"diagnosis"`
	// notices
	ListResourceVersion string   `json:"listResourceVersion"`
	Items               *int     `json:"items"`
	Tried               []string `json:"tried"`
	RVsAdvanced         uint64   `json:"clusterRVsAdvanced"`
	Gap                 *struct {
		Added    []change `json:"added"`
		Modified []change `json:"modified"`
		Deleted  []change `json:"deleted"`
	} `json:"gap"`
	// summary
	Events     int            `json:"events"`
	ByType     map[string]int `json:"byType"`
	Ended      string         `json:"ended"`
	Streams    int            `json:"streams"`
	Reconnects int            `json:"reconnects"`
	Relists    int            `json:"relists"`
	Reconciled int            `json:"reconciledByRelist"`
	Duplicates int            `json:"duplicates"`
}

type change struct {
	Name               string `json:"name"`
	OldResourceVersion string `json:"oldResourceVersion"`
	NewResourceVersion string `json:"newResourceVersion"`
}

type watchOutput struct {
	framework.Result
	Records []record
}

func (w watchOutput) events() []record { return w.of("event") }

func (w watchOutput) of(kind string) []record {
	var out []record
	for _, r := range w.Records {
		if r.Record == kind {
			out = append(out, r)
		}
	}
	return out
}

func (w watchOutput) summary(t *testing.T) record {
	t.Helper()
	s := w.of("summary")
	if len(s) != 1 {
		t.Fatalf("want exactly one summary record, got %d:\n%s", len(s), w.Stdout)
	}
	return s[0]
}

// runWatch runs "watch -o json" and parses every line; each line must be JSON.
func runWatch(t *testing.T, kubeconfig string, timeout time.Duration, args ...string) watchOutput {
	t.Helper()
	r := framework.Run(t, kubeconfig, timeout, append([]string{"watch", "-o", "json"}, args...)...)
	out := watchOutput{Result: r}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		var rec record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("watch -o json wrote a line that is not JSON: %v\n%s", err, line)
		}
		out.Records = append(out.Records, rec)
	}
	return out
}

// describe is a compact view of events for failure messages.
func describe(evs []record) string {
	var b []string
	for _, e := range evs {
		b = append(b, e.Type+" "+e.Name+"@"+e.ResourceVersion)
	}
	return "[" + strings.Join(b, ", ") + "]"
}

// cmWriter makes the harness's writes in one namespace and returns RVs.
type cmWriter struct {
	t  *testing.T
	cs kubernetes.Interface
	ns string
}

func (w cmWriter) create(name string, labels map[string]string) *corev1.ConfigMap {
	w.t.Helper()
	cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create %s: %v", name, err)
	}
	return cm
}

func (w cmWriter) update(name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	w.t.Helper()
	ctx := context.Background()
	cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("get %s: %v", name, err)
	}
	mutate(cm)
	cm, err = w.cs.CoreV1().ConfigMaps(w.ns).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		w.t.Fatalf("update %s: %v", name, err)
	}
	return cm
}

func (w cmWriter) modify(name string) *corev1.ConfigMap {
	return w.update(name, func(cm *corev1.ConfigMap) { cm.Data["v"] += "+" })
}

func (w cmWriter) remove(name string) {
	w.t.Helper()
	if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		w.t.Fatalf("delete %s: %v", name, err)
	}
}

func rvNum(t *testing.T, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("RV %q is not a number", rv)
	}
	return n
}
