package clients_test

import (
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/clients"
)

// User try 22 #5: the clients folded are counted as clients, each once
// however often it was folded, and those that came again after their fold
// are said to have a row too, so that rows and fold add up to the clients
// of the log. Over the recorded real audit log, every --max-clients below
// its number of clients: kept + folded - seen again = the clients of the
// log ("20 clients folded" of a log of 6, with --max-clients 1, counted
// folds).
func TestFoldedCountsClientsNotFolds(t *testing.T) {
	data := lines(t, events(t))
	all, _ := analyzeAll(t, data, clients.Options{})
	n := int64(len(all.Clients))
	if all.Folded != nil || n < 3 {
		t.Fatalf("the recorded log: %d clients, folded %+v", n, all.Folded)
	}
	for keep := 1; int64(keep) < n; keep++ {
		r, human := analyzeAll(t, data, clients.Options{MaxClients: keep})
		f := r.Folded
		if f == nil || f.ClientsAtLeast {
			t.Fatalf("--max-clients %d: folded %+v", keep, f)
		}
		if f.Clients > n || int64(len(r.Clients))+f.Clients-f.SeenAgain != n {
			t.Errorf("--max-clients %d: %d kept + %d folded - %d seen again after their fold, want the log's %d clients", keep, len(r.Clients), f.Clients, f.SeenAgain, n)
		}
		if !strings.Contains(human, "("+text.Count(f.Clients, "client")+" folded into one") {
			t.Errorf("--max-clients %d: the line does not say %d clients folded:\n%s", keep, f.Clients, human)
		}
		if f.SeenAgain > 0 && !strings.Contains(human, text.Thousands(uint64(f.SeenAgain))+" of them came again after their fold") {
			t.Errorf("--max-clients %d: the line does not say the %d seen again:\n%s", keep, f.SeenAgain, human)
		}
	}
}
