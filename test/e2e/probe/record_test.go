//go:build e2e

package probe

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The unit tests of pkg/probe classify real server answers recorded here:
// run the e2e tests with WATCHRV_RECORD_TESTDATA=1 to (re)write them.
// Without it, each answer is still compared with the recorded one, so a
// server that changed its wording fails here, not silently in the units.
func recordAnswer(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join(framework.RepoRoot(), "pkg", "probe", "testdata", name)
	if os.Getenv("WATCHRV_RECORD_TESTDATA") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no recorded answer %s: run with WATCHRV_RECORD_TESTDATA=1: %v", name, err)
	}
	if a, b := shapeOf(t, string(old)), shapeOf(t, text); a != b {
		t.Fatalf("the server's answer %s changed shape: recorded %s, now %s", name, a, b)
	}
}

// shapeOf is the type of a watch event (with the code of an ERROR) or the
// code and reason of a Status body.
func shapeOf(t *testing.T, text string) string {
	t.Helper()
	var v struct {
		Type   string `json:"type"`
		Kind   string `json:"kind"`
		Code   int    `json:"code"`
		Reason string `json:"reason"`
		Object struct {
			Code   int    `json:"code"`
			Reason string `json:"reason"`
		} `json:"object"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %q", text)
	}
	if v.Type != "" {
		return v.Type + " " + v.Object.Reason
	}
	return v.Kind + " " + v.Reason
}

// rawHTTP sends one GET with a bearer token and returns the body.
func rawHTTP(t *testing.T, c *framework.Cluster, token, path string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	req, _ := http.NewRequest(http.MethodGet, c.APIServers[0].URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("User-Agent", framework.HarnessUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRecordHTTPAnswers(t *testing.T) {
	code, body := rawHTTP(t, shared, framework.UserToken, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1&timeoutSeconds=1")
	if code != 403 {
		t.Fatalf("nobody's watch: want 403, got %d %s", code, body)
	}
	recordAnswer(t, "forbidden-watch.json", body)
	code, body = rawHTTP(t, shared, framework.AdminToken, "/api/v1/namespaces/default/configmaps?limit=1&resourceVersionMatch=NotOlderThan&resourceVersion=999999999")
	if code != 504 {
		t.Fatalf("future list: want 504, got %d %s", code, body)
	}
	recordAnswer(t, "toolarge-list.json", body)
}
