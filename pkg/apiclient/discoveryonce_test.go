package apiclient

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
)

// A discovery document is sent once per run, however often client-go's
// discovery asks for it: one that failed (its memory cache asks again for
// any 5xx, 429 or timeout) gets the same failure again, one that came
// whole its same body again, after an invalidation too (adversary try 16,
// A6: a good /api was sent 3 times beside a failed /apis); a run without
// a ledger keeps client-go's behaviour. The server stands for a failing
// front (no API server fails so), what is tested is the client.
func TestAFailedDiscoveryDocumentIsAnsweredFromItsOneRequest(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api":
			_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"]}`))
		case "/apis":
			_, _ = w.Write([]byte(`{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`))
		case "/api/v1":
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"v1 is down","reason":"ServiceUnavailable","code":503}`))
		case "/apis/apps/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["list","watch"]}]}`))
		}
	}))
	defer srv.Close()

	for _, l := range []*Ledger{NewLedger(), nil} {
		mu.Lock()
		clear(asked)
		mu.Unlock()
		dc, err := discovery.NewDiscoveryClientForConfig(Wrap(&rest.Config{Host: srv.URL}, l))
		if err != nil {
			t.Fatal(err)
		}
		mc := memory.NewMemCacheClient(dc)
		for i := 0; i < 3; i++ {
			_, err := mc.ServerResourcesForGroupVersion("v1")
			if err == nil || !strings.Contains(err.Error(), "v1 is down") {
				t.Fatalf("ask %d of v1: %v, want its 503", i+1, err)
			}
			if _, err := mc.ServerResourcesForGroupVersion("apps/v1"); err != nil {
				t.Fatalf("apps/v1: %v", err)
			}
		}
		mc.Invalidate()
		if rs, err := mc.ServerResourcesForGroupVersion("apps/v1"); err != nil || len(rs.APIResources) != 1 || rs.APIResources[0].Name != "deployments" {
			t.Fatalf("apps/v1 after a reset: %+v, %v", rs, err)
		}
		if groups, err := mc.ServerGroups(); err != nil || len(groups.Groups) != 2 {
			t.Fatalf("the groups after a reset: %+v, %v", groups, err)
		}
		mu.Lock()
		v1, apps := asked["/api/v1"], asked["/apis/apps/v1"]
		mu.Unlock()
		switch {
		case l != nil && v1 != 1:
			t.Errorf("with a ledger, /api/v1 (a 503) was sent %d times, want once", v1)
		case l == nil && v1 < 2:
			t.Errorf("without a ledger, /api/v1 was sent %d times: client-go's retry is gone, so this test no longer shows the class", v1)
		}
		switch {
		case l != nil && apps != 1:
			t.Errorf("with a ledger, /apis/apps/v1 (whole) was sent %d times, want once", apps)
		case l == nil && apps != 2:
			t.Errorf("without a ledger, /apis/apps/v1 was sent %d times, want 2 (once per cache fill): the reset no longer shows the class", apps)
		}
		// /api, /apis, v1 and apps/v1, once each.
		if l != nil && l.Cost().Requests != 4 {
			t.Errorf("the ledger counted %d requests, want 4 (a replay is no request)", l.Cost().Requests)
		}
	}
}

// A document kept for the run answers as HTTP allows: a whole 200 any
// later ask, conditional or not; a 304 only the If-None-Match it was
// asked with (another condition, or none, is sent), and the whole answer
// that follows replaces it (adversary try 16, A6).
func TestAKeptDiscoveryDocumentAnswersOnlyWhatItMay(t *testing.T) {
	const etag = `"v1"`
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path+" "+r.Header.Get("If-None-Match")]++
		mu.Unlock()
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"]}`))
	}))
	defer srv.Close()
	hc, err := rest.HTTPClientFor(Wrap(&rest.Config{Host: srv.URL}, NewLedger()))
	if err != nil {
		t.Fatal(err)
	}
	get := func(path, inm string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	// /api: a 304 first, kept for its condition only.
	for i, c := range []struct {
		inm    string
		status int
	}{{etag, 304}, {etag, 304}, {`"other"`, 200}, {"", 200}, {etag, 200}, {"", 200}} {
		if status, body := get("/api", c.inm); status != c.status || (status == 200 && !strings.Contains(body, "APIVersions")) {
			t.Fatalf("ask %d of /api (If-None-Match %q): %d %q, want %d", i+1, c.inm, status, body, c.status)
		}
	}
	// /apis: a 200 first, which answers every ask.
	for range 3 {
		for _, inm := range []string{"", etag} {
			if status, _ := get("/apis", inm); status != 200 {
				t.Fatalf("a kept 200 of /apis answered %d (If-None-Match %q)", status, inm)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]int{"/api " + etag: 1, `/api "other"`: 1, "/apis ": 1}
	if len(asked) != len(want) {
		t.Fatalf("sent %v, want %v", asked, want)
	}
	for k, n := range want {
		if asked[k] != n {
			t.Fatalf("sent %v, want %v", asked, want)
		}
	}
}
