// Command hacluster starts the HA control plane of the e2e harness (one
// etcd, three kube-apiservers v1.37.2 on 127.0.0.1-3 behind a round-robin
// balancer, advertised as 198.51.100.1-3 and reached through a CONNECT
// proxy), loads a namespace, writes the kubeconfig path to -kubeconfig-out,
// prints READY, and serves until SIGINT or SIGTERM. SIGUSR1 pauses the last
// server's etcd link and writes -lag-writes configmaps through server 1, so
// that the last server's watch cache falls behind; SIGUSR2 resumes it. Keep
// a pause under 10 s: the paused server's endpoint lease expires at ~15 s.
// Used by bench/ha.sh and to capture docs/ha.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

func main() {
	out := flag.String("kubeconfig-out", "", "file to write the kubeconfig path into")
	n := flag.Int("configmaps", 100, "configmaps in namespace ha-demo")
	lagWrites := flag.Int("lag-writes", 25, "configmaps written while the last server's etcd link is paused (SIGUSR1)")
	flag.Parse()
	if err := run(*out, *n, *lagWrites); err != nil {
		fmt.Fprintln(os.Stderr, "ha cluster:", err)
		os.Exit(1)
	}
}

func run(out string, n, lagWrites int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	h, err := framework.StartHA(ctx, framework.HAOptions{Servers: 3, Logf: logf})
	if err != nil {
		return err
	}
	defer h.Stop()
	cs, err := h.Cluster.Clientset(0)
	if err != nil {
		return err
	}
	if err := framework.CreateNamespace(ctx, cs, "ha-demo"); err != nil {
		return err
	}
	if err := framework.CreateConfigMaps(ctx, cs, "ha-demo", "cm", n, 64, 8); err != nil {
		return err
	}
	if out != "" {
		if err := os.WriteFile(out, []byte(h.Kubeconfig), 0o644); err != nil {
			return err
		}
	}
	last := len(h.Cluster.APIServers) - 1
	fmt.Printf("endpoints %v\n", h.EndpointAddrs())
	for i := range h.Cluster.APIServers {
		fmt.Printf("direct-kubeconfig %d %s\n", i+1, h.DirectKubeconfig(i))
	}
	fmt.Println("READY")
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	written := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-sig:
			if s == syscall.SIGUSR2 {
				h.EtcdLink(last).Resume()
				logf("resumed the etcd link of server %d", last+1)
				continue
			}
			h.EtcdLink(last).Pause()
			for k := 0; k < lagWrites; k++ {
				written++
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("lag-%d", written)}}
				if _, err := cs.CoreV1().ConfigMaps("ha-demo").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					logf("write during the pause: %v", err)
				}
			}
			// Let the other servers' caches see the writes.
			time.Sleep(300 * time.Millisecond)
			fmt.Printf("PAUSED server %d after %d writes\n", last+1, lagWrites)
		}
	}
}
