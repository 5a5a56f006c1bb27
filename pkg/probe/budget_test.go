package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The request functions take their own token (the rule of
// apiclient.Budget): an exact list answered by a recorded v1.37.2 list page
// costs one token, and a watch asked with the budget spent is never sent,
// and says so instead of counting as a probe.
func TestProbeRequestsTakeTheirOwnToken(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "listing", "testdata", "page3.json"))
	if err != nil {
		t.Fatal(err)
	}
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
	b := apiclient.NewBudget(1, 0)
	if r := TryExactList(context.Background(), c, tg, 215, b); r.Outcome != OutcomeOK || r.NotSent() != nil || b.Used() != 1 || requests != 1 {
		t.Fatalf("want one answered exact list and one token, got %+v, %d tokens, %d requests", r, b.Used(), requests)
	}
	r := TryWatch(context.Background(), c, tg, 215, TryOptions{Budget: b})
	if !errors.Is(r.NotSent(), apiclient.ErrBudgetExhausted) || r.Outcome != "" || requests != 1 || b.Used() != 1 {
		t.Fatalf("a watch with the budget spent must not be sent: %+v (%v), %d requests", r, r.NotSent(), requests)
	}
}
