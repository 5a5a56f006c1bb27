//go:build e2e

package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// refusedAgent marks the requests of TestClientsRefusedReadsAreNotServed
// (and the lines of them kept in pkg/clients/testdata).
const refusedAgent = "watchrv-e2e-refused-"

// refusedRead is one way the API server refuses a read before it reads
// anything, sent as its own client (user agent refusedAgent+name).
type refusedRead struct {
	name, token string
	paths       []string
	want        string // the status code every one must get
}

// TestClientsRefusedReadsAreNotServed is fresh user try 23 F2: clients
// counted lists the server refused (nobody's two events lists, 403 in the
// audit log) as STORAGE LISTS. A real server is sent reads it refuses
// with every code it answers before the read (401 authentication, 403
// RBAC, 404 an unknown resource, 400 and 422 list options it rejects, 429
// API Priority and Fairness), each as its own client, and a client that
// relists (a watch ends, a list follows) with refused lists only; its own
// counter (apiserver_storage_list_total for events) says which lists
// reached storage: the control client's, none of the refused ones. In the
// human output and -o json, with the watch cache given on (as the user
// ran it: events have none) and off (every list of any resource would
// read storage), each refused client has 0 storage lists, 0 not known
// and no relist.
func TestClientsRefusedReadsAreNotServed(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{})
	a := c.APIServers[0]
	framework.Namespace(t, c, "refused")
	h := newRawClient(t, a.URL, a.CAFile)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.RejectAllFlowSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.HoldThrottledSeats(ctx, 2); err != nil {
		t.Fatal(err)
	}

	before := storageListsOf(t, h, "events")
	const controlLists = 2
	for i := 0; i < controlLists; i++ {
		if s := h.get("/api/v1/events?limit=1", refusedAgent+"control", framework.AdminToken); !strings.HasPrefix(s, "200") {
			t.Fatalf("the control list: %s", s)
		}
	}
	reads := []refusedRead{
		{"forbidden", framework.UserToken, []string{"/api/v1/events?limit=1", "/apis/events.k8s.io/v1/events?limit=1",
			"/api/v1/namespaces/refused/configmaps", "/api/v1/namespaces/refused/configmaps?watch=1&resourceVersion=0"}, "403"},
		{"unauthenticated", "watchrv-no-such-token", []string{"/api/v1/events", "/api/v1/namespaces/refused/configmaps"}, "401"},
		{"unknown-resource", framework.AdminToken, []string{"/api/v1/namespaces/refused/nosuchthings", "/apis/events.k8s.io/v1/nosuchthings"}, "404"},
		{"bad-selector", framework.AdminToken, []string{"/api/v1/events?labelSelector=a%20in%20(", "/api/v1/namespaces/refused/configmaps?fieldSelector=nosuchfield%3Dx"}, "400"},
		{"invalid-options", framework.AdminToken, []string{"/api/v1/events?resourceVersionMatch=Exact", "/api/v1/namespaces/refused/configmaps?resourceVersionMatch=Exact"}, "422"},
	}
	for _, r := range reads {
		for _, p := range r.paths {
			if s := h.get(p, refusedAgent+r.name, r.token); !strings.HasPrefix(s, r.want) {
				t.Fatalf("%s: GET %s: %s, want %s", r.name, p, s, r.want)
			}
		}
	}
	// 429: every request of user "throttled" goes to a priority level whose
	// seats are held; one that finds a seat free answers otherwise, and is
	// counted as what it got.
	throttled := 0
	for i := 0; i < 40 && throttled < 2; i++ {
		if s := h.get("/api/v1/events", refusedAgent+"throttled", framework.ThrottledToken); strings.HasPrefix(s, "429") {
			throttled++
		} else if !strings.HasPrefix(s, "403") {
			t.Fatalf("throttled: GET /api/v1/events: %s, want 429 (or 403: it may not read events)", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if throttled == 0 {
		t.Fatal("API Priority and Fairness let every request of user throttled through")
	}
	// A client whose watches (of the changes only: they send no state)
	// end after 1 s and are each followed by a list the server refuses: it
	// re-read nothing, it is no relist loop.
	for i := 0; i < 4; i++ {
		if s := h.get("/api/v1/namespaces/refused/configmaps?watch=1&timeoutSeconds=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", refusedAgent+"relist", framework.AdminToken); !strings.HasPrefix(s, "200") {
			t.Fatalf("relist: the watch: %s", s)
		}
		if s := h.get("/api/v1/namespaces/refused/configmaps?resourceVersionMatch=Exact", refusedAgent+"relist", framework.AdminToken); !strings.HasPrefix(s, "422") {
			t.Fatalf("relist: the refused list: %s", s)
		}
	}
	cancel()
	if got := storageListsOf(t, h, "events") - before; got != controlLists {
		t.Fatalf("the server counted %d storage lists of events, want the control's %d: the refused ones must not reach storage", got, controlLists)
	}
	time.Sleep(time.Second) // the last ends in the log
	recordAudit(t, a.AuditLog, refusedAgent, "refused-reads-v1.37-etcd-cache-on.log")

	users := map[string]string{"control": "admin", "forbidden": "nobody", "unauthenticated": "", "unknown-resource": "admin",
		"bad-selector": "admin", "invalid-options": "admin", "throttled": "throttled", "relist": "admin"}
	for _, cache := range []string{"on", "off"} {
		args := []string{"-f", a.AuditLog, "--server-version", "v1.37.2", "--watch-cache", cache}
		rep := runClients(t, args...)
		human := framework.Run(t, "", time.Minute, append([]string{"clients", "--top", "1000"}, args...)...)
		if human.Code != 0 {
			t.Fatalf("clients %v: exit %d: %s", args, human.Code, human.Stderr)
		}
		for name, user := range users {
			cl := find(rep, user, refusedAgent+name)
			if cl == nil {
				t.Fatalf("--watch-cache %s: no client %s / %s in -o json", cache, user, refusedAgent+name)
			}
			want := int64(0)
			if name == "control" {
				want = controlLists
			}
			if cl.StorageLists != want || cl.StorageUnknown != 0 {
				t.Errorf("--watch-cache %s, %s: -o json says %d storage lists, %d not known; the server read storage for %d of its %d lists",
					cache, cl.Name(), cl.StorageLists, cl.StorageUnknown, want, cl.Lists.Total)
			}
			for _, p := range cl.Patterns {
				if p.Name == clients.PatternRelistLoop {
					t.Errorf("--watch-cache %s, %s: its lists were refused, yet %s", cache, cl.Name(), p.Evidence)
				}
			}
			if got := storageColumn(human.Stdout, cl.Name()); got != fmt.Sprint(want) {
				t.Errorf("--watch-cache %s, %s: STORAGE LISTS %q in the table, want %d:\n%s", cache, cl.Name(), got, want, human.Stdout)
			}
		}
	}
}

// storageColumn is the STORAGE LISTS cell of client's row in the human
// report's table ("" when the row is not there).
func storageColumn(report, client string) string {
	head := -1
	for _, l := range strings.Split(report, "\n") {
		if i := strings.Index(l, "STORAGE LISTS"); i >= 0 && strings.HasPrefix(l, "CLIENT") {
			head = i
			continue
		}
		if head >= 0 && strings.HasPrefix(l, client+" ") && len(l) > head {
			return strings.Fields(l[head:])[0]
		}
	}
	return ""
}
