//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestCacheRVReadFallsBackOnlyWhereTheNarrowedListIsNotAnswered (fresh
// user try 22 F5): the per-server view reads each server's cache RV with
// an rv=0 list narrowed to one name (one key, not the collection, which a
// watch cache sends whole). Where a server does not answer that list as
// the API server's generic store does, every per-server command (list,
// probe, explain-error --check) sends the list of the collection after it,
// as before, and shows its RV (AnyRV here, which no other list answers):
// a watch cache still being built (429 "storage is (re)initializing",
// which sends the unselected list to storage), a server that refuses the
// field selector (400), one that ignored it (an object of another name).
// A 429 of a server that is throttling is no such case: no second list,
// the row says Throttled. A server that answers the narrowed list is
// asked once, its RV shown.
func TestCacheRVReadFallsBackOnlyWhereTheNarrowedListIsNotAnswered(t *testing.T) {
	const current, anyRV = 1000, 990
	status := func(code int, reason, message string) *framework.ScriptAnswer {
		b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure",
			"message": message, "reason": reason, "code": code, "details": map[string]any{"retryAfterSeconds": 1}})
		return &framework.ScriptAnswer{Code: code, Type: "application/json", Body: string(b)}
	}
	ignored := &framework.ScriptAnswer{Code: 200, Type: "application/json",
		Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1000"},"items":[{"metadata":{"name":"a","namespace":"default","resourceVersion":"99"}}]}`}
	for _, c := range []struct {
		name     string
		narrowed *framework.ScriptAnswer
		// cacheRV is the row's CACHE RV (0: none, reason instead).
		cacheRV uint64
		reason  string
	}{
		{"answered", nil, current, ""},
		{"cache initializing", status(429, "TooManyRequests", "storage is (re)initializing"), anyRV, ""},
		{"field selector refused", status(400, "BadRequest", `Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "metadata.name=x": field label not supported: metadata.name`), anyRV, ""},
		{"field selector ignored", ignored, anyRV, ""},
		{"throttled", status(429, "TooManyRequests", "Too many requests, please try again later."), 0, "Throttled"},
	} {
		for _, args := range [][]string{
			{"list", "cm", "--endpoints", ""},
			{"probe", "cm", "--endpoints", ""},
			{"explain-error", "--check", "--resource", "configmaps", "--endpoints", "", "Timeout: Too large resource version: 5000, current: 1000"},
		} {
			t.Run(c.name+"/"+args[0], func(t *testing.T) {
				s, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{current}, Oldest: 50, Narrowed: c.narrowed, AnyRV: anyRV})
				args = append([]string{}, args...)
				for i := range args {
					if args[i] == "" {
						args[i] = s.Host()
					}
				}
				r := framework.Run(t, kc, time.Minute, append(args, "-o", "json", "-v")...)
				row, ok := cacheRVRow(r.Stdout)
				if !ok {
					t.Fatalf("exit %d, no server row:\n%s%s", r.Code, r.Stdout, r.Stderr)
				}
				narrowed, whole := 0, 0
				for _, l := range strings.Split(r.Stderr, "\n") {
					if !strings.HasPrefix(l, "-v GET") || !strings.Contains(l, "/configmaps?") || !strings.Contains(l, "resourceVersion=0") {
						continue
					}
					if strings.Contains(l, "fieldSelector=metadata.name") {
						narrowed++
					} else {
						whole++
					}
				}
				wantWhole := 0
				if c.cacheRV == anyRV {
					wantWhole = 1
				}
				switch {
				case narrowed != 1 || whole != wantWhole:
					t.Errorf("%d narrowed rv=0 list(s), %d of the collection; want 1 and %d:\n%s", narrowed, whole, wantWhole, r.Stderr)
				case c.cacheRV != 0 && (!row.CacheKnown || row.CacheRV != c.cacheRV):
					t.Errorf("CACHE RV %d (known %v), want %d:\n%s", row.CacheRV, row.CacheKnown, c.cacheRV, r.Stdout)
				case c.cacheRV == 0 && (row.CacheKnown || row.Reason != c.reason):
					t.Errorf("CACHE RV %d (known %v), reason %q: want none, %s:\n%s", row.CacheRV, row.CacheKnown, row.Reason, c.reason, r.Stdout)
				}
			})
		}
	}
}

// cacheRVServer is what the check reads of the one server's row.
type cacheRVServer struct {
	CacheRV    uint64 `json:"cacheResourceVersion,string"`
	CacheKnown bool   `json:"cacheKnown"`
	Reason     string `json:"reason"`
}

// cacheRVRow is the one server's row of list's, probe's or explain-error
// --check's -o json.
func cacheRVRow(out string) (cacheRVServer, bool) {
	var view struct {
		Servers json.RawMessage `json:"servers"`
	}
	if json.Unmarshal([]byte(out), &view) != nil {
		return cacheRVServer{}, false
	}
	var rows []cacheRVServer
	if json.Unmarshal(view.Servers, &rows) != nil {
		var check struct {
			Servers []cacheRVServer `json:"servers"`
		}
		if json.Unmarshal(view.Servers, &check) != nil {
			return cacheRVServer{}, false
		}
		rows = check.Servers
	}
	if len(rows) != 1 {
		return cacheRVServer{}, false
	}
	return rows[0], true
}
