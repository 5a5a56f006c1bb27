//go:build e2e

package top

import (
	"github.com/watchrv/kubectl-watchrv/internal/notetest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopValuesNoServerCanMean: a /metrics whose samples are NaN, +Inf
// (in the second read only), 1e308 or below zero. Each is not measured:
// the row is shown with "?" and a note naming the family and the server;
// every bound that reads one is NOT CHECKED (exit 1, docs/exit-codes.md),
// never "ok"; -o json decodes and carries no non-finite number; and no
// cell is a 230-digit number. The server's build_info has a git_version
// and no minor label: its version is known (v1.37), not "outside".
func TestTopValuesNoServerCanMean(t *testing.T) {
	bounds := []string{"--interval", "1s", "--check", "--max-watchers", "10", "--max-terminated", "0", "--max-rejected", "0", "--max-storage-list-ratio", "10"}
	long := regexp.MustCompile(`\d{20}`)
	for _, c := range []struct {
		value, shown string
		from         int64
	}{{"NaN", "NaN", 1}, {"+Inf", "+Inf", 2}, {"1e308", "1e+308", 1}, {"-100", "-100", 1}} {
		t.Run(c.value, func(t *testing.T) {
			srv, err := framework.StartBadMetricsServer(c.value, c.from)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			kc, err := srv.Kubeconfig(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			res := framework.Run(t, kc, time.Minute, append([]string{"top"}, bounds...)...)
			out := res.Stdout + res.Stderr
			if res.Code != 1 || !strings.Contains(res.Stdout, "configmaps") || !strings.Contains(res.Stdout, " ? ") ||
				!strings.Contains(res.Stdout, "apiserver_longrunning_requests{resource=\"configmaps\"} is "+c.shown+", not a number the server can mean") {
				t.Errorf("exit %d, want 1, the configmaps row with ? and the sample named\n%s", res.Code, out)
			}
			for _, bad := range []string{"ok: ", "CROSSED", "not checked: not checked", "NOT CHECKED: not checked", "Inf answer", "outside v1.30", "NaN answer", "nothing stands out in this interval"} {
				if strings.Contains(out, bad) {
					t.Errorf("says %q:\n%s", bad, out)
				}
			}
			if bad := notetest.Unresolved(res.Stdout); len(bad) > 0 {
				t.Errorf("references to notes not printed: %q\n%s", bad, res.Stdout)
			}
			if strings.Count(res.Stdout, "NOT CHECKED") != 4 || long.MatchString(out) {
				t.Errorf("want 4 bounds NOT CHECKED and no 20-digit number:\n%s", out)
			}
			r, jres := framework.RunTopJSON(t, kc, bounds...)
			if jres.Code != 1 || len(r.Servers) != 1 || len(r.Servers[0].Unmeasured) == 0 {
				t.Errorf("-o json: exit %d, want 1 and the samples named\n%s\n%s", jres.Code, jres.Stdout, jres.Stderr)
			}
			for _, ch := range r.Checks {
				if ch.Checked() {
					t.Errorf("-o json: %s checked: %+v", ch.Bound, ch)
				}
			}
		})
	}
}

// TestTopOnAnotherProgramsMetrics (adversary try 13): a kubeconfig whose
// server is not a kube-apiserver but another Go program with a /metrics
// (the cluster's own etcd, whose /metrics has process_start_time_seconds
// and go_* families). top says the answer is not a kube-apiserver's
// /metrics (exit 1), never that the server's watch cache is off or that
// no resource had load.
func TestTopOnAnotherProgramsMetrics(t *testing.T) {
	if shared.EtcdURL == "" || !strings.HasPrefix(shared.EtcdURL, "http://127.0.0.1:") {
		t.Fatalf("the shared cluster's etcd URL %q is not a plain loopback URL", shared.EtcdURL)
	}
	kc := filepath.Join(t.TempDir(), "etcd-as-server.kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: etcd\n  cluster:\n    server: " + shared.EtcdURL + "\ncontexts:\n- name: etcd\n  context:\n    cluster: etcd\n    user: u\ncurrent-context: etcd\nusers:\n- name: u\n  user: {}\n"
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"top", "--once", "--interval", "1s"}, {"top", "--once", "--interval", "1s", "-o", "json"}, {"top", "--once", "--interval", "1s", "--check", "--max-watchers", "10"}} {
		r := framework.Run(t, kc, time.Minute, args...)
		out := r.Stdout + r.Stderr
		if r.Code != 1 || !strings.Contains(out, "not a kube-apiserver's /metrics") {
			t.Errorf("%v: exit %d, want 1 and the answer named as no kube-apiserver's /metrics\n%s", args, r.Code, out)
		}
		for _, bad := range []string{"watch cache is off", "no resource had load", "ok: "} {
			if strings.Contains(out, bad) {
				t.Errorf("%v says %q of etcd's /metrics:\n%s", args, bad, out)
			}
		}
	}
}
