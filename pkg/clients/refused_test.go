package clients

import (
	"os"
	"testing"
)

// Reads a real kube-apiserver v1.37.2 refused before reading anything, on
// the lines of testdata/README.md (fresh user try 23 F2: nobody's two
// events lists, 403 in the audit log, were "STORAGE LISTS 2"): whatever
// the watch cache, no refused list is a storage list or one not known,
// none is a relist, a refused watch is an error and no open one (a 401
// is logged at ResponseStarted only); the control client's two served
// lists of events (no watch cache) are storage lists.
func TestRefusedReadsAreNotServed(t *testing.T) {
	b, err := os.ReadFile("testdata/refused-reads-v1.37-etcd-cache-on.log")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		lists, storage int64
		watchErrors    int64
	}
	for _, cache := range []string{CacheOn, CacheOff, CacheUnknown} {
		m := byName(analyze(t, b, Options{ServerVersion: "v1.37.2", WatchCache: cache}))
		for name, w := range map[string]want{
			"admin / watchrv-e2e-refused-control":          {lists: 2, storage: 2},
			"nobody / watchrv-e2e-refused-forbidden":       {lists: 3, watchErrors: 1},
			" / watchrv-e2e-refused-unauthenticated":       {lists: 2},
			"admin / watchrv-e2e-refused-unknown-resource": {lists: 2},
			"admin / watchrv-e2e-refused-bad-selector":     {lists: 2},
			"admin / watchrv-e2e-refused-invalid-options":  {lists: 2},
			"throttled / watchrv-e2e-refused-throttled":    {lists: 2},
			"admin / watchrv-e2e-refused-relist":           {lists: 4},
		} {
			c, ok := m[name]
			if !ok {
				t.Fatalf("--watch-cache %s: no client %q", cache, name)
			}
			if c.Lists.Total != w.lists || c.StorageLists != w.storage || c.StorageUnknown != 0 {
				t.Errorf("--watch-cache %s, %s: %d lists, %d storage lists, %d not known; want %d lists, %d storage lists (the server refused the others before reading), none not known",
					cache, name, c.Lists.Total, c.StorageLists, c.StorageUnknown, w.lists, w.storage)
			}
			if c.Watches.Error != w.watchErrors || c.Watches.Open != 0 {
				t.Errorf("--watch-cache %s, %s: watches %+v, want %d refused (error), none open", cache, name, c.Watches, w.watchErrors)
			}
			for _, p := range c.Patterns {
				if p.Name == PatternRelistLoop {
					t.Errorf("--watch-cache %s, %s: its lists were refused, yet %s", cache, name, p.Evidence)
				}
			}
		}
	}
}
