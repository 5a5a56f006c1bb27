//go:build e2e

package watch

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// record is one line of "watch -o json" (every record kind in one struct).
type record struct {
	Record           string `json:"record"`
	Time             string `json:"time"`
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
		Class                 string   `json:"class"`
		Kind                  string   `json:"kind"`
		Fix                   string   `json:"fix"`
		OldestResourceVersion string   `json:"oldestResourceVersion"`
		Confidence            string   `json:"confidence"`
		Operation             string   `json:"operation"`
		Notes                 []string `json:"notes"`
	} `json:"diagnosis"`
	// notices
	Reason              string              `json:"reason"`
	ListResourceVersion string              `json:"listResourceVersion"`
	Items               *int                `json:"items"`
	Tried               []string            `json:"tried"`
	RVsAdvanced         uint64              `json:"clusterRVsAdvanced"`
	Gap                 *framework.WatchGap `json:"gap"`
	URL                 string              `json:"url"`
	// summary
	LastResourceVersion string `json:"lastResourceVersion"`
	ResumeFrom          string `json:"resumeFrom"`
	NoResumePoint       string `json:"noResumePoint"`
	FailureStreak       *struct {
		Failure     string `json:"failure"`
		Attempts    int    `json:"attempts"`
		EverHealthy bool   `json:"everHealthy"`
		Error       string `json:"error"`
	} `json:"failureStreak"`
	Events     int            `json:"events"`
	ByType     map[string]int `json:"byType"`
	Ended      string         `json:"ended"`
	Streams    int            `json:"streams"`
	Reconnects int            `json:"reconnects"`
	Relists    int            `json:"relists"`
	Reconciled int            `json:"reconciledByRelist"`
	Duplicates int            `json:"duplicates"`
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

// cmWriter is framework.ConfigMapWriter under the names this package's
// tests use.
type cmWriter struct {
	t  *testing.T
	cs kubernetes.Interface
	ns string
}

func (w cmWriter) fw() framework.ConfigMapWriter {
	return framework.ConfigMapWriter{T: w.t, Clientset: w.cs, Namespace: w.ns}
}

func (w cmWriter) create(name string, labels map[string]string) *corev1.ConfigMap {
	w.t.Helper()
	return w.fw().Create(name, labels)
}

func (w cmWriter) update(name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	w.t.Helper()
	return w.fw().Update(name, mutate)
}

func (w cmWriter) modify(name string) *corev1.ConfigMap { w.t.Helper(); return w.fw().Modify(name) }

func (w cmWriter) remove(name string) { w.t.Helper(); w.fw().Remove(name) }

var rvNum = framework.RVNum

// statusBody is a Status answer's JSON body: code is the body's own,
// which a hostile answer may set apart from its HTTP status.
func statusBody(code int, reason, msg string) string {
	return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + msg + `","reason":"` + reason + `","code":` + strconv.Itoa(code) + `}`
}
