package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The dated list goes through the one list path: paged (the three list
// pages recorded from v1.37.2, five configmaps at RVs 211-215), one token
// per page, and only the objects that date the oldest RV are kept.
func TestListDatedAroundWalksTheRecordedPages(t *testing.T) {
	var pages [][]byte
	for _, name := range []string{"page1.json", "page2.json", "page3.json"} {
		b, err := os.ReadFile(filepath.Join("..", "listing", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(pages[(len(queries)-1)%len(pages)])
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
	b := apiclient.NewBudget(0, 0)
	dated, err := ListDatedAround(context.Background(), c, tg, 213, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) != 3 || b.Used() != 3 || !strings.Contains(queries[0], "limit=500") || !strings.Contains(queries[1], "continue=") {
		t.Fatalf("want three paged requests, one token each, got %v (%d tokens)", queries, b.Used())
	}
	if len(dated) != 1 || dated[0].ResourceVersion != 213 || dated[0].Object != "recorded/cm-2" || !dated[0].LastWriteDated() ||
		dated[0].At.UTC().Format("2006-01-02T15:04:05Z") != "2026-11-29T20:08:27Z" || dated[0].Field != "metadata.creationTimestamp" {
		t.Fatalf("want cm-2 (RV 213, written at its creation) as both bounds, got %+v", dated)
	}
	queries = nil
	dated, err = ListDatedAround(context.Background(), c, tg, 216, nil)
	if err != nil || len(dated) != 1 || dated[0].ResourceVersion != 215 {
		t.Fatalf("above every object: want only the newest below (215), got %+v %v", dated, err)
	}
}
