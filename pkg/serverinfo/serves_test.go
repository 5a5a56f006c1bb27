package serverinfo

import (
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"strings"
	"testing"
)

// Every text that names a watch cache, storage or etcd/kine is of a
// resource the API server serves itself: on a real v1.37.2 with a custom
// resource (widgets.example.com) and an aggregated API
// (gadgets.fake.watchrv.test, served by another server through the
// kube-aggregator; recorded as v1.37.2-aggregated.metrics-named.txt, the
// answer to the named request), the aggregated resource is said not known
// to be the server's, and none of its texts names a cache or a storage
// (adversary try 20 #6: "Served by: storage (etcd, or a shim such as
// kine)" and kine's caveat for gadgets); the built-in and custom ones keep
// theirs.
func TestOnlyTheServersOwnResourcesNameItsCacheOrStorage(t *testing.T) {
	git, minor := recordedVersion(t, "v1.37.2-etcd-cache-on")
	for _, c := range []struct {
		group, resource string
		serves          Tri
		cache           Tri
		first           string // in ListServed's first page
	}{
		{"", "configmaps", Yes, Yes, "the watch cache once it has caught up with storage"},
		{"", "events", Yes, No, "storage (etcd, or a shim such as kine): this resource has no watch cache"},
		{"example.com", "widgets", Yes, Yes, "the watch cache once it has caught up with storage"},
		{"fake.watchrv.test", "gadgets", Unknown, Unknown, "this API server if gadgets.fake.watchrv.test is its own, else another server behind it; which one is not known"},
	} {
		name := Name(c.group, c.resource)
		s := scanMetrics(strings.NewReader(namedAnswer(t, "v1.37.2-aggregated")), MetricsCap, c.group, c.resource)
		if s.err != nil || s.unfiltered || s.cut {
			t.Fatalf("%s: %+v", name, s)
		}
		in := Build(git, minor, s.facts(), "", name)
		if in.Serves != c.serves || in.WatchCache != c.cache {
			t.Errorf("%s: serves %s, watch cache %s; want %s, %s", name, in.Serves, in.WatchCache, c.serves, c.cache)
		}
		sv := in.ListServed("", "", 500)
		texts := []string{sv.First, sv.Continue, in.StorageName(), in.Summary(), in.Note(), in.TooLargeWait(500)}
		if !strings.Contains(sv.First, c.first) {
			t.Errorf("%s: first page served by %q, want %q", name, sv.First, c.first)
		}
		if c.serves == Yes {
			continue
		}
		for _, txt := range texts {
			for _, claim := range []string{"etcd", "kine", "the watch cache", "watch cache for", "has no watch cache"} {
				if strings.Contains(txt, claim) {
					t.Errorf("%s: %q names %q of a resource the server is not known to serve", name, txt, claim)
				}
			}
		}
		if sv.FirstFrom != ByEither || sv.ContinueFrom != ByEither || !in.BookmarksExpected() && in.WatchCache != No {
			t.Errorf("%s: served %+v", name, sv)
		}
	}
	// Not read at all: a group that is not built in is not known to be
	// the server's; a built-in one is.
	if in := Build(git, minor, nil, ForbiddenNote, "gadgets.fake.watchrv.test"); in.Serves != Unknown || strings.Contains(in.ListServed("", "", 1).First, "etcd") {
		t.Errorf("/metrics forbidden: %+v", in)
	}
	if in := Build(git, minor, nil, ForbiddenNote, "configmaps"); in.Serves != Yes {
		t.Errorf("/metrics forbidden, configmaps: %+v", in)
	}
}

// Every mode of a list's read semantics says the kube-apiserver's own
// rule (a quorum read, compaction, TooLarge) only of a resource it is
// known to serve, with or without its facts read (NameOnly: list
// --rv-only); of another, "as the server that serves it gives it"
// (adversary try 22: "fails with 410 Expired once 50 is compacted" of an
// aggregated API's resource).
func TestReadTextSaysTheOwnRuleOnlyOfTheServersOwn(t *testing.T) {
	git, minor := "v1.37.2", 37
	for _, c := range []struct{ rv, match string }{{"", ""}, {"0", ""}, {"50", "Exact"}, {"50", ""}, {"50", "NotOlderThan"}} {
		s := listing.SemanticsOf(c.rv, c.match, 5)
		for _, in := range []*Info{NameOnly("gadgets.fake.watchrv.test"), Build(git, minor, nil, ForbiddenNote, "gadgets.fake.watchrv.test"), NameOnly("configmaps"), Build(git, minor, nil, ForbiddenNote, "configmaps")} {
			got := in.ReadText(s.Asks, s.OwnRule)
			own := in.Serves == Yes
			if !strings.HasPrefix(got, s.Asks) || own != strings.HasSuffix(got, s.OwnRule) && s.OwnRule != "" {
				t.Errorf("%s %+v: %q", in.Resource, c, got)
			}
			if !own && s.OwnRule != "" && !strings.Contains(got, "as the server that serves gadgets.fake.watchrv.test gives it (not known to be this API server: ") {
				t.Errorf("%s %+v: %q does not say who keeps the state is not known", in.Resource, c, got)
			}
			if !own {
				for _, claim := range []string{"storage", "compacted", "TooLarge", "etcd", "watch cache"} {
					if strings.Contains(got, claim) && !strings.Contains(in.ServesWhy, claim) {
						t.Errorf("%s %+v: %q names %q", in.Resource, c, got, claim)
					}
				}
			}
		}
	}
}

// Fresh user try 22 #9: probe decided who serves a CRD from --metrics
// alone, list from its facts. ServesSeen decides from both, on the same
// recorded v1.37.2 answers: the facts of widgets (its watch cache) make it
// the server's own whatever --metrics read; those of gadgets (neither a
// watch cache nor stored objects) keep it not known, with the facts' why;
// no facts and no cache seen is not known, a cache seen is own.
func TestServesSeenDecidesFromTheFactsAndTheCacheSeen(t *testing.T) {
	git, minor := recordedVersion(t, "v1.37.2-etcd-cache-on")
	facts := func(group, resource string) *Info {
		s := scanMetrics(strings.NewReader(namedAnswer(t, "v1.37.2-aggregated")), MetricsCap, group, resource)
		return Build(git, minor, s.facts(), "", Name(group, resource))
	}
	widgets, gadgets := "widgets.example.com", "gadgets.fake.watchrv.test"
	for _, c := range []struct {
		name      string
		facts     *Info
		cacheSeen bool
		want      Tri
		why       string
	}{
		{widgets, facts("example.com", "widgets"), false, Yes, ""},
		{widgets, nil, false, Unknown, "no /metrics read showed"},
		{widgets, nil, true, Yes, ""},
		{widgets, facts("fake.watchrv.test", "gadgets"), false, Unknown, "no /metrics read showed"}, // another resource's facts tell nothing
		{gadgets, facts("fake.watchrv.test", "gadgets"), false, Unknown, "as for an aggregated API's resource"},
		{"configmaps", nil, false, Yes, ""},
	} {
		got, why := ServesSeen(c.name, c.facts, c.cacheSeen)
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%s (facts of %v, cache seen %v): %s (%q), want %s (%q)", c.name, c.facts != nil, c.cacheSeen, got, why, c.want, c.why)
		}
	}
}
