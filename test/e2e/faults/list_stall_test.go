//go:build e2e

package faults

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// stallObjects configmaps make one list page of 3,000 or three of 1,000.
const stallObjects = 3000

// TestListBodyStalledMidWay pauses the link to the API server in the middle
// of a list page's body (the connection stays open, nothing more arrives).
// After 45 s client-go's HTTP/2 health check gives the connection up
// (net/http: "http2: client connection lost"), said in the one wording
// of a cut body (apiclient.BodyCutError): "broke off after N bytes: the
// connection was lost (HTTP/2's health check: ...)". That is a lost
// connection (exit 4, not 1), and a page after the first is retried like a page cut by an
// unexpected EOF, from its continue token.
//
// The runs go as user nobody, who may read the configmaps but not
// /metrics: the list's bytes are then the pages (and a /version), so half
// of them falls inside a page, not inside the /metrics body the plugin
// reads after the list to learn the server's gates (hundreds of KB).
func TestListBodyStalledMidWay(t *testing.T) {
	cs, ns := framework.Namespace(t, shared, "list-stall")
	if err := framework.CreateConfigMaps(t.Context(), cs, ns, "cm", stallObjects, 10, 8); err != nil {
		t.Fatal(err)
	}
	framework.GrantConfigMapReading(t, cs, ns, "nobody")
	api, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	// through starts a link, fills its discovery cache and measures the
	// bytes of the list to stall.
	through := func(t *testing.T, name, limit string) (*framework.PausableLink, string, string, int64) {
		link, err := framework.StartPausableLink(api.Host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { link.Close() })
		kc, err := shared.WriteKubeconfigFor("stall-"+name, "https://"+link.Addr(), shared.APIServers[0].CAFile, framework.UserToken)
		if err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		r := framework.RunInHome(t, home, kc, nil, time.Minute, "list", "cm", "-n", ns, "--rv-only")
		for i := 0; r.Code == 7 && i < 20; i++ { // the grant reaches the authorizer's cache within a moment
			time.Sleep(250 * time.Millisecond)
			r = framework.RunInHome(t, home, kc, nil, time.Minute, "list", "cm", "-n", ns, "--rv-only")
		}
		if r.Code != 0 {
			t.Fatalf("warming the discovery cache: exit %d: %s", r.Code, r.Stderr)
		}
		before := link.BytesToClients()
		if r := framework.RunInHome(t, home, kc, nil, time.Minute, "list", "cm", "-n", ns, "--limit", limit); r.Code != 0 {
			t.Fatalf("the list through the link: exit %d: %s", r.Code, r.Stderr)
		}
		return link, kc, home, link.BytesToClients() - before
	}

	t.Run("one page", func(t *testing.T) {
		t.Parallel()
		// One page of 3,000 (about 1.3 MB before gzip): half-way is inside its body.
		link, kc, home, size := through(t, "one", "3000")
		paused := link.PauseAfter(size / 2)
		r := framework.RunInHome(t, home, kc, nil, 3*time.Minute, "list", "cm", "-n", ns, "--limit", "3000")
		link.Resume()
		select {
		case <-paused:
		default:
			t.Fatalf("the link never paused (list of %d bytes): the test proves nothing", size)
		}
		// The first page is sent again once (docs/list.md), into the
		// still paused link: its TLS handshake stalls, and the line
		// says that last failure and, beside the retry, the first's.
		if r.Code != 4 || !strings.Contains(r.Stderr, "first sent again after: ") || !strings.Contains(r.Stderr, "broke off after ") || !strings.Contains(r.Stderr, "the connection was lost (HTTP/2's health check") || strings.Contains(r.Stderr, "http2: client connection lost") {
			t.Fatalf("a body stalled until the connection is lost: want exit 4 naming the lost connection, got %d: %s", r.Code, r.Stderr)
		}
	})

	t.Run("later page is retried", func(t *testing.T) {
		t.Parallel()
		link, kc, home, size := through(t, "later", "1000")
		paused := link.PauseAfter(size / 2) // half-way through page 2 of 3
		done := make(chan framework.Result, 1)
		go func() {
			done <- framework.RunInHome(t, home, kc, nil, 3*time.Minute, "list", "cm", "-n", ns, "--limit", "1000", "-v", "-o", "json")
		}()
		// Once the client gives the stalled connection up it dials again:
		// then let everything through, so that the retry of the page works.
		select {
		case <-paused:
		case r := <-done:
			t.Fatalf("the list ended before the link paused (%d bytes): exit %d: %s", size, r.Code, r.Stderr)
		}
		conns, _ := link.Accepted()
		for {
			n, ch := link.Accepted()
			if n > conns {
				break
			}
			select {
			case <-ch:
			case r := <-done:
				link.Resume()
				t.Fatalf("the list ended without a new connection: exit %d: %s", r.Code, r.Stderr)
			}
		}
		link.Resume()
		r := <-done
		var res struct {
			ItemCount int64 `json:"itemCount"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
			t.Fatalf("exit %d, not JSON: %v\n%s\n%s", r.Code, err, r.Stdout, r.Stderr)
		}
		// The loss is said in the one wording of a body that broke
		// (apiclient.BodyCutError), never Go's "client connection lost".
		if r.Code != 0 || res.ItemCount != stallObjects || !strings.Contains(r.Stderr, "the connection was lost (HTTP/2's health check") || strings.Contains(r.Stderr, "client connection lost") || !strings.Contains(r.Stderr, "retry 1 of this page") {
			t.Fatalf("the stalled page must be retried and the list complete: exit %d, %d items:\n%s", r.Code, res.ItemCount, r.Stderr)
		}
	})
}
