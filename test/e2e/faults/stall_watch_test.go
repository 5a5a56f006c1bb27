//go:build e2e

package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// An API server that stops answering mid-stream (SIGSTOP: the TCP connection
// stays up, nothing arrives): watch --follow notices through its own
// deadline (--stall-timeout), keeps trying, and once the server continues it
// resumes from the last RV it saw, so the changes made meanwhile (through a
// second API server on the same etcd) all arrive: nothing silently lost.
func TestWatchFollowNoticesAHungAPIServer(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{})
	if _, err := c.AddAPIServer(ctx, framework.APIServerOptions{}); err != nil {
		t.Fatal(err)
	}
	writer, err := c.Clientset(1) // writes go through the API server that keeps running
	if err != nil {
		t.Fatal(err)
	}
	_, ns := framework.Namespace(t, c, "stall")
	cms := writer.CoreV1().ConfigMaps(ns)
	create := func(name string) {
		t.Helper()
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("x1")

	bin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--kubeconfig", c.Kubeconfig, "watch", "configmaps", "-n", ns, "--rv", "list",
		"--follow", "--stall-timeout", "2s", "--timeout", "30s", "-o", "json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	time.Sleep(3 * time.Second)
	create("x2") // seen live
	time.Sleep(time.Second)
	if err := c.PauseAPIServer(0); err != nil {
		t.Fatal(err)
	}
	create("x3") // made while the watched API server hangs
	cm, err := cms.Get(ctx, "x1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["v"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(7 * time.Second)
	if err := c.ResumeAPIServer(0); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("watch --follow did not end at its --timeout")
	}
	if strings.Contains(errb.String(), "goroutine ") {
		t.Fatalf("panic:\n%s", errb.String())
	}

	seen := map[string]bool{}
	stallNotices := 0
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var rec struct {
			Record, Type, Name, Reason string
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		if rec.Record == "event" {
			seen[rec.Type+" "+rec.Name] = true
		}
		if rec.Record == "reconnect" && strings.Contains(rec.Reason, "stall-timeout") {
			stallNotices++
		}
	}
	if stallNotices == 0 {
		t.Fatalf("no reconnect caused by the stall deadline; output:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	for _, want := range []string{"ADDED x2", "ADDED x3", "MODIFIED x1"} {
		if !seen[want] {
			t.Fatalf("%s never arrived: lost across the hang; events: %v\nstderr: %s", want, seen, errb.String())
		}
	}
	t.Logf("%d stall reconnect notices; events: %v", stallNotices, seen)
}
