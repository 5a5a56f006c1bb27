//go:build e2e

package list

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var listRVLine = regexp.MustCompile(`List resourceVersion:\s+(\d+)`)

// Issue 16 item 16: "Watch from here" follows one rule: a consistent read,
// or a --rv 0 / NotOlderThan list whose RV a consistent read right after it
// found current; never an exact list. Each suggested start must work: a
// real watch from it gets the next write.
func TestListSuggestsAWatchStartOnlyWhenItIsCurrent(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "watchstart")
	a, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		suggest bool
	}{
		{"consistent", nil, true},
		{"any", []string{"--rv", "0"}, true},
		{"not older than", []string{"--rv", a.ResourceVersion, "--rv-match", "NotOlderThan"}, true},
		{"exact", []string{"--rv", a.ResourceVersion, "--rv-match", "Exact"}, false},
		{"exact by the legacy rule", []string{"--rv", a.ResourceVersion}, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out string
			// The server writes on its own (leases): a write between the
			// list and the check withholds the suggestion, rightly; retry
			// for a quiet moment.
			for attempt := 0; attempt < 5; attempt++ {
				r := framework.Run(t, shared.Kubeconfig, time.Minute, append([]string{"list", "cm", "-n", ns}, c.args...)...)
				if r.Code != 0 {
					t.Fatalf("exit %d: %s", r.Code, r.Stderr)
				}
				out = r.Stdout
				if !c.suggest || strings.Contains(out, "Watch from here:       kubectl watchrv watch") {
					break
				}
				if !strings.Contains(out, "a consistent read right after it found RV") {
					t.Fatalf("no suggestion and no reason:\n%s", out)
				}
			}
			m := listRVLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no List resourceVersion:\n%s", out)
			}
			want := fmt.Sprintf("kubectl watchrv watch configmaps -n %s --rv %s", ns, m[1])
			if !c.suggest {
				// No start from an RV; the form that works (list and watch
				// in one) may be offered.
				if regexp.MustCompile(`kubectl watchrv watch \S+ .*--rv \d`).MatchString(out) || !strings.Contains(out, "not suggested") {
					t.Fatalf("an exact list must suggest no watch start:\n%s", out)
				}
				return
			}
			if !strings.Contains(out, want) {
				t.Fatalf("want %q:\n%s", want, out)
			}
			w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: m[1]})
			if err != nil {
				t.Fatalf("the suggested start %s does not work: %v", m[1], err)
			}
			defer w.Stop()
			name := fmt.Sprintf("after-%d", i)
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			timeout := time.After(20 * time.Second)
			for {
				select {
				case ev := <-w.ResultChan():
					if ev.Type == watch.Error {
						t.Fatalf("the watch from the suggested RV %s failed: %v", m[1], ev.Object)
					}
					if cm, ok := ev.Object.(*corev1.ConfigMap); ok && cm.Name == name {
						return
					}
				case <-timeout:
					t.Fatalf("the watch from the suggested RV %s did not deliver %s", m[1], name)
				}
			}
		})
	}
}
