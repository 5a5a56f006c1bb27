//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestWatchSelectorExitIsExplainedAndRecreationPointedOut(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "watch-selector")
	w := cmWriter{t: t, cs: cs, ns: ns}
	on := map[string]string{"app": "on"}
	w.create("x", on)
	start := w.create("y", on).ResourceVersion
	relabel := func(v string) func(*corev1.ConfigMap) {
		return func(cm *corev1.ConfigMap) { cm.Labels["app"] = v }
	}
	w.update("x", relabel("off")) // x leaves the selector...
	w.update("x", relabel("on"))  // ...and comes back
	w.remove("y")                 // y is really deleted
	z1 := w.create("z", on)       // z is deleted and recreated under the same name
	w.remove("z")
	z2 := w.create("z", on)

	out := runWatch(t, shared.Kubeconfig, time.Minute, "cm", "-n", ns, "-l", "app=on", "--rv", start, "--explain-deletes", "--timeout", "3s")
	evs := out.events()
	got := describe(evs)
	want := []struct{ typ, name, cause string }{
		{"DELETED", "x", "left-selector"},
		{"ADDED", "x", ""},
		{"DELETED", "y", "deleted"},
		{"ADDED", "z", ""},
		{"DELETED", "z", "recreated"},
		{"ADDED", "z", ""},
	}
	if out.Code != 0 || len(evs) != len(want) {
		t.Fatalf("want %v, got %s (exit %d: %s)", want, got, out.Code, out.Stderr)
	}
	for i, w := range want {
		if evs[i].Type != w.typ || evs[i].Name != w.name || evs[i].DeleteCause != w.cause {
			t.Fatalf("event %d: want %s %s cause %q, got %s %s cause %q (all: %s)", i, w.typ, w.name, w.cause, evs[i].Type, evs[i].Name, evs[i].DeleteCause, got)
		}
	}
	if evs[3].UID != string(z1.UID) || evs[5].UID != string(z2.UID) || evs[5].PreviousUID != string(z1.UID) {
		t.Fatalf("the recreated z must name its previous UID %s: got %+v", z1.UID, evs[5])
	}
	if evs[1].PreviousUID != "" || evs[1].Duplicate {
		t.Fatalf("x came back with the same UID: it is not a recreation: %+v", evs[1])
	}
	human := runHuman(t, "cm", "-n", ns, "-l", "app=on", "--rv", start, "--explain-deletes", "--timeout", "3s")
	for _, s := range []string{"left the selector", "deleted (the object is gone)", "recreated: same name, new UID (was " + string(z1.UID)} {
		if !strings.Contains(human, s) {
			t.Fatalf("human output lacks %q:\n%s", s, human)
		}
	}
}
