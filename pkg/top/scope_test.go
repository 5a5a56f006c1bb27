package top

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

var events = schema.GroupResource{Resource: "events"}

// Fresh user try 20 #4, as a class: every --check bound is judged on what
// the server measured, whatever the table shows. On the recorded interval
// of a v1.37.2 with its watch cache (events has none of its own, as on
// every kube-apiserver by default, so it has no series in the
// recording):
//   - --max-terminated over events alone measured nothing: NOT CHECKED,
//     naming events and why, never "ok: 0 <= 0";
//   - over configmaps and events it is checked on configmaps, and events
//     is named as not measured;
//   - without RESOURCE arguments, idle resources are measured (as no
//     load): checked;
//   - --max-watchers of a resource that is not among the RESOURCE
//     arguments reads it from the samples: widgets' 5 watchers cross a
//     bound of 4, never "ok: 0 <= 4".
func TestEveryBoundIsJudgedOnWhatWasMeasured(t *testing.T) {
	zero, four := 0.0, 4.0
	for _, c := range []struct {
		name    string
		only    []schema.GroupResource
		bounds  Bounds
		checked bool
		crossed bool
		names   string // in the note (not checked) or NotMeasured
	}{
		{"terminated, events only", []schema.GroupResource{events}, Bounds{Terminated: &zero}, false, false, "events: " + famTerminated + ": " + reasonNotCached},
		{"terminated, configmaps and events", []schema.GroupResource{configmaps, events}, Bounds{Terminated: &zero}, true, false, "events: " + famTerminated},
		{"terminated, every resource", nil, Bounds{Terminated: &zero}, true, false, ""},
		{"watchers of widgets beside configmaps", []schema.GroupResource{configmaps}, Bounds{Watchers: map[string]WatcherBound{"widgets": {Given: "widgets", GR: widgets, Max: four}}}, true, true, ""},
		{"watchers of every resource, events only", []schema.GroupResource{events}, Bounds{Watchers: map[string]WatcherBound{"": {Max: four}}}, true, false, ""},
		{"ratio, events only", []schema.GroupResource{events}, Bounds{StorageListRatio: &four}, true, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", c.only...)
			r := Assemble([]*Server{s}, 0, "watchers", 1)
			checks := CheckBounds(r, c.bounds)
			if len(checks) != 1 {
				t.Fatalf("checks %+v", checks)
			}
			ch := checks[0]
			switch {
			case ch.Checked() != c.checked || ch.Crossed != c.crossed:
				t.Errorf("checked %v crossed %v (%+v); want checked %v crossed %v", ch.Checked(), ch.Crossed, ch, c.checked, c.crossed)
			case !c.checked && (!strings.Contains(ch.Note, c.names) || !strings.HasPrefix(ch.Note, "server 1: ")):
				t.Errorf("note %q, want it to name %q on server 1", ch.Note, c.names)
			case c.checked && !strings.Contains(ch.NotMeasured, c.names):
				t.Errorf("not measured %q, want %q", ch.NotMeasured, c.names)
			case c.checked && c.names == "" && ch.NotMeasured != "" && len(c.only) > 0:
				t.Errorf("not measured %q, want nothing", ch.NotMeasured)
			}
		})
	}
}

// Fresh user try 20 #5: "not measured in this interval: closed watchers"
// must say what was not measured and why, itself (it pointed at notes
// that were not printed). Every claim not measured carries its reason.
func TestEveryClaimNotMeasuredSaysWhy(t *testing.T) {
	s := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", configmaps, events)
	q := QuietOf(Assemble([]*Server{s}, 0, "watchers", 1))
	want := "closed watchers (events: " + famTerminated + ": " + reasonNotCached + ")"
	if len(q.Unmeasured) != 1 || q.Unmeasured[0] != want {
		t.Errorf("not measured %q, want [%q]", q.Unmeasured, want)
	}
	// Two processes (their start times differ): no claim is measured.
	restarted := interval(t, "v1.30.14-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", configmaps)
	all := QuietOf(Assemble([]*Server{restarted}, 0, "watchers", 1)).Unmeasured
	if len(all) != len(quietClaims) {
		t.Errorf("after a restart: not measured %q, want every claim", all)
	}
	for _, u := range all {
		subject, why, ok := strings.Cut(u, " (")
		if !ok || !strings.HasSuffix(why, ")") || len(why) < 10 {
			t.Errorf("%q: %q says no reason", subject, u)
		}
	}
}
