//go:build e2e

package clients

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The user agents of the clients the test runs (the informer's is its
// program's own; kubectl's is kubectl's).
const (
	informerAgent = "watchrv-e2e-informer"
	pollerAgent   = "watchrv-e2e-poller"
	pluginAgent   = "kubectl-watchrv/" + framework.PluginVersion
	// herdAgent + "-1", "-2", "-3": the three informers of the herd.
	herdAgent = "watchrv-e2e-herd"
)

// Traffic sizes: tens of seconds in all on a shared machine.
const (
	pollLists = 12 // the poller's lists, one a second
	relists   = 4  // the looping informer's forced relists
	herdSize  = 3  // the informers a balancer move sends relisting at once
)

// auditPolicy records every stage (RequestReceived too) and three levels:
// RequestResponse for the lists in namespace clients-a (their item
// counts), Request for the rest of clients-a, Metadata for the rest.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: RequestResponse
  namespaces: ["clients-a"]
  verbs: ["list"]
- level: Request
  namespaces: ["clients-a"]
- level: Metadata
`

// traffic is what the clients did, as the test drove it.
type traffic struct {
	auditLog string
	dir      string
}

// runTraffic starts a real API server (watch cache off for configmaps, so
// that a watch resumed from a compacted RV fails, as it does on any server
// whose window has moved past a client), then real clients:
//
//   - a client-go informer on clients-a (healthy: one list, one watch);
//   - the same informer program as user nobody on clients-b, through a
//     proxy the test cuts: after each cut it resumes its watch from its last
//     RV, which the test has just compacted away (writes in clients-c move
//     the revision past it), gets the 410 and relists: a relist loop;
//   - three informers (user agents herdAgent-1 to -3) on clients-d through
//     a second proxy, cut once after a compaction when the loop is over:
//     their watches end together and all three relist within seconds, as
//     after a balancer moving connections (a herd);
//   - a poller that lists clients-a every second and never watches;
//   - kubectl get -w on clients-a;
//   - the plugin itself (list, watch).
func runTraffic(t *testing.T) traffic {
	dir := artefactDir(t)
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	// The second --audit-policy-file wins over the harness's.
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0", ExtraArgs: []string{"--audit-policy-file=" + policy}})
	ctx := context.Background()
	cs, _ := framework.Namespace(t, c, "clients-a")
	framework.Namespace(t, c, "clients-b")
	framework.Namespace(t, c, "clients-c")
	framework.Namespace(t, c, "clients-d")
	framework.GrantConfigMapReading(t, cs, "clients-b", "nobody")
	a := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: "clients-a"}
	b := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: "clients-b"}
	other := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: "clients-c"}
	a.Create("a1", nil)
	b.Create("b1", nil)
	b.Create("b2", nil)
	framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: "clients-d"}.Create("d1", nil)

	proxy := startCutProxy(t, strings.TrimPrefix(c.APIServers[0].URL, "https://"))
	loopKC, err := c.WriteKubeconfigFor("loop.kubeconfig", "https://"+proxy.addr(), c.APIServers[0].CAFile, framework.UserToken)
	if err != nil {
		t.Fatal(err)
	}
	healthy, err := framework.StartInformer(c.Kubeconfig, "clients-a", dir, "healthy")
	if err != nil {
		t.Fatal(err)
	}
	defer healthy.Stop(10 * time.Second)
	loop, err := framework.StartInformer(loopKC, "clients-b", dir, "loop")
	if err != nil {
		t.Fatal(err)
	}
	defer loop.Stop(10 * time.Second)
	herdProxy := startCutProxy(t, strings.TrimPrefix(c.APIServers[0].URL, "https://"))
	herdKC, err := c.WriteKubeconfigFor("herd.kubeconfig", "https://"+herdProxy.addr(), c.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	var herd []*framework.Informer
	for i := 1; i <= herdSize; i++ {
		in, err := framework.StartInformer(herdKC, "clients-d", dir, fmt.Sprint("herd-", i), fmt.Sprintf("--user-agent=%s-%d", herdAgent, i))
		if err != nil {
			t.Fatal(err)
		}
		defer in.Stop(10 * time.Second)
		herd = append(herd, in)
	}
	everyInformer := append([]*framework.Informer{healthy, loop}, herd...)
	for _, in := range everyInformer {
		if _, _, err := in.WaitFor(60*time.Second, func(r framework.InformerRecord) bool { return r.Type == "synced" }); err != nil {
			logs, _ := os.ReadFile(filepath.Join(dir, in.Name+".stderr"))
			t.Fatalf("%v; its output: %s", err, logs)
		}
	}
	kubectlW := startKubectlWatch(t, c.Kubeconfig, dir)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		poll(t, c, pollLists)
	}()

	// compactAndCut moves the revision on where the informers do not look,
	// compacts it all away, cuts every connection of p and waits until each
	// of ins has relisted.
	compactAndCut := func(round string, p *cutProxy, ins ...*framework.Informer) {
		var last string
		for j := 0; j < 3; j++ {
			last = other.Create(fmt.Sprintf("c%s-%d", round, j), nil).ResourceVersion
		}
		if err := c.Compact(ctx, int64(framework.RVNum(t, last))); err != nil {
			t.Fatal(err)
		}
		lists := make([]int, len(ins))
		for k, in := range ins {
			lists[k] = countRelists(t, in)
		}
		p.cut()
		for k, in := range ins {
			if _, _, err := in.WaitFor(30*time.Second, func(framework.InformerRecord) bool { return countRelists(t, in) > lists[k] }); err != nil {
				t.Fatalf("round %s, %s: %v", round, in.Name, err)
			}
		}
	}
	for i := 0; i < relists; i++ {
		compactAndCut(fmt.Sprint(i), proxy, loop)
		time.Sleep(1500 * time.Millisecond)
	}
	loopDone := time.Now()
	a.Modify("a1")

	// The plugin's own reads.
	if r := framework.Run(t, c.Kubeconfig, time.Minute, "list", "configmaps", "-n", "clients-a"); r.Code != 0 {
		t.Fatalf("plugin list: %d %s", r.Code, r.Stderr)
	}
	framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", "clients-a", "--timeout", "2s")
	wg.Wait()

	// The herd, more than a herd's window after the loop's last relist (or
	// the loop's relist would join it).
	time.Sleep(time.Until(loopDone.Add(11 * time.Second)))
	compactAndCut("herd", herdProxy, herd...)

	kubectlW.stop()
	for _, in := range everyInformer {
		if err := in.Stop(10 * time.Second); err != nil {
			t.Errorf("informer %s: %v", in.Name, err)
		}
	}
	// Blocking audit mode: every completed request is in the log once its
	// response is written; give the last watch ends a moment.
	time.Sleep(time.Second)
	return traffic{auditLog: c.APIServers[0].AuditLog, dir: dir}
}

// countRelists counts the informer's full reads of the collection: lists,
// and streaming lists (client-go >= 1.35 relists with a watch that sends the
// initial events).
func countRelists(t *testing.T, in *framework.Informer) int {
	recs, _ := in.Records()
	n := 0
	for _, r := range recs {
		if r.Type == "request" && (r.Verb == "list" || r.SendInitialEvents) {
			n++
		}
	}
	return n
}

// poll lists clients-a n times, a second apart, and never watches.
func poll(t *testing.T, c *framework.Cluster, n int) {
	cfg := c.RESTConfig(0)
	cfg.UserAgent = pollerAgent
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Error(err)
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; i < n; i++ {
		if _, err := cs.CoreV1().ConfigMaps("clients-a").List(context.Background(), metav1.ListOptions{}); err != nil {
			t.Errorf("poller list %d: %v", i, err)
		}
		<-tick.C
	}
}

// kubectlWatch is kubectl get -w running in the background.
type kubectlWatch struct {
	cmd *exec.Cmd
	t   *testing.T
}

func startKubectlWatch(t *testing.T, kubeconfig, dir string) *kubectlWatch {
	out, err := os.Create(filepath.Join(dir, "kubectl-w.out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd := exec.Command("kubectl", "--kubeconfig", kubeconfig, "get", "configmaps", "-n", "clients-a", "-w")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=/nonexistent-watchrv-e2e")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("kubectl get -w: %v (kubectl must be on PATH)", err)
	}
	return &kubectlWatch{cmd: cmd, t: t}
}

func (k *kubectlWatch) stop() {
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = k.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = k.cmd.Process.Kill()
		<-done
	}
}

// cutProxy forwards TCP on loopback to the API server and can close every
// connection it carries at once (new ones still get through).
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.handle(c)
		}
	}()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) handle(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// artefactDir keeps what the clients wrote (and the audit log) for a look
// after the run: $WATCHRV_E2E_ARTIFACTS/TestName, or under the temp dir.
func artefactDir(t *testing.T) string {
	base := os.Getenv("WATCHRV_E2E_ARTIFACTS")
	if base == "" {
		base = filepath.Join(os.TempDir(), "watchrv-clients")
	}
	dir := filepath.Join(base, t.Name())
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
