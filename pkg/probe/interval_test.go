package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// A series ends at its duration, whatever its rounds take: a round still
// running then (a server that answers nothing) is cut and said so, and no
// round starts after it (adversary: --interval 1ns --duration 1s was still
// going at 40 s, a round of 30 s started after the duration).
func TestSeriesEndsAtItsDuration(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := RunSeries(context.Background(), c, watchTarget(), SeriesOptions{
		Budget: apiclient.NewBudget(64, 0), Interval: 100 * time.Millisecond, Duration: time.Second,
	})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took > 5*time.Second {
		t.Fatalf("a 1s series took %s", took)
	}
	if len(s.Rounds) != 1 || !s.Rounds[0].Cut || s.Rounds[0].Found || !strings.HasPrefix(s.Rounds[0].Error, "cut: ") || s.FirstFailed != nil {
		t.Fatalf("want one round, cut: %+v (first failed %v)", s.Rounds, s.FirstFailed)
	}
}
