//go:build e2e

package list

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestRecordListPages records real paged List responses (metadata only, the
// Accept header the plugin sends) into pkg/listing/testdata/, for the unit
// tests. It always runs the requests (and checks they work); it rewrites the
// files only with WATCHRV_UPDATE_TESTDATA=1.
func TestRecordListPages(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "recorded")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "cm", 5, 8, 1); err != nil {
		t.Fatal(err)
	}
	accept := "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	rc := cs.CoreV1().RESTClient()
	first, err := rc.Get().AbsPath("/api/v1/namespaces", ns, "configmaps").Param("limit", "2").SetHeader("Accept", accept).DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pages := [][]byte{first}
	for {
		var meta struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		if err := jsonUnmarshal(pages[len(pages)-1], &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Metadata.Continue == "" {
			break
		}
		next, err := rc.Get().AbsPath("/api/v1/namespaces", ns, "configmaps").Param("limit", "2").Param("continue", meta.Metadata.Continue).SetHeader("Accept", accept).DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, next)
	}
	if len(pages) != 3 {
		t.Fatalf("5 configmaps in pages of 2 should be 3 pages, got %d", len(pages))
	}
	if os.Getenv("WATCHRV_UPDATE_TESTDATA") != "1" {
		return
	}
	dir := filepath.Join(framework.RepoRoot(), "pkg", "listing", "testdata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		if err := os.WriteFile(filepath.Join(dir, "page"+string(rune('1'+i))+".json"), p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %d pages into %s", len(pages), dir)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
