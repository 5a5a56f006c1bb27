package servers

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Each asks every member, at most FanOutWidth at a time, whatever the
// fleet's size (adversary try 19: one goroutine per member, and 120,000
// members, took 1.7 GB); a member without a client fails inline.
func TestEachAsksAFixedNumberAtATime(t *testing.T) {
	f := &Fleet{Members: make([]Member, MaxServers+1)}
	for i := range f.Members {
		f.Members[i] = Member{Endpoint: "10.0.0.1:6443", Client: &apiclient.Client{}}
	}
	f.Members[3].Client = nil
	var now, most, asked, failed atomic.Int64
	var mu sync.Mutex
	seen := map[int]bool{}
	f.Each(context.Background(), apiclient.NewBudget(0, 0), 0, func(_ context.Context, i int, _ Member, _ *apiclient.Budget) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		now.Add(-1)
		asked.Add(1)
		mu.Lock()
		seen[i] = true
		mu.Unlock()
	}, func(i int, _ Member) {
		if i == 3 {
			failed.Add(1)
		}
	})
	if asked.Load() != int64(len(f.Members)-1) || len(seen) != len(f.Members)-1 || failed.Load() != 1 {
		t.Fatalf("asked %d, failed %d, of %d", asked.Load(), failed.Load(), len(f.Members))
	}
	if most.Load() > FanOutWidth || most.Load() < 2 {
		t.Fatalf("%d members were asked at once, want at most %d (and more than one)", most.Load(), FanOutWidth)
	}
}
