package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The HA step: three kube-apiservers on one etcd behind a round-robin
// balancer (the harness of test/e2e/ha), one of them cut off from etcd for a
// few seconds so that its watch cache falls behind, and the per-server view
// that names it. A pause stays well under the ~15 s after which the other
// servers drop the paused one from the kubernetes EndpointSlice.
func init() {
	steps = append(steps, step{order: 50, name: "ha", run: func(d *demo) error {
		banner("HA: three API servers behind one address; one falls behind etcd, and the per-server view names it")
		h, err := framework.StartHA(d.ctx, framework.HAOptions{Servers: 3, Logf: func(f string, a ...any) { fmt.Printf("  "+f+"\n", a...) }})
		if err != nil {
			return err
		}
		defer h.Stop()
		cs, err := h.Cluster.Clientset(0)
		if err != nil {
			return err
		}
		const ns = "ha-demo"
		if err := framework.CreateNamespace(d.ctx, cs, ns); err != nil {
			return err
		}
		if err := framework.CreateConfigMaps(d.ctx, cs, ns, "cm", 50, 64, 8); err != nil {
			return err
		}
		if err := d.runPluginWith(h.Kubeconfig, "probe", "configmaps", "-n", ns, "--servers"); err != nil {
			return err
		}
		last := len(h.Cluster.APIServers) - 1
		fmt.Printf("\n  pausing the etcd link of server %d, then writing 20 configmaps through server 1\n", last+1)
		h.EtcdLink(last).Pause()
		defer h.EtcdLink(last).Resume()
		if err := framework.CreateConfigMaps(d.ctx, cs, ns, "lag", 20, 64, 4); err != nil {
			return err
		}
		tooLarge, err := listOnLaggingServer(d.ctx, cs, h, last, ns)
		if err != nil {
			return err
		}
		for _, args := range [][]string{
			{"list", "configmaps", "-n", ns, "--servers"},
			{"explain-error", "--check", "--servers", "-n", ns, tooLarge},
		} {
			if err := d.runPluginWith(h.Kubeconfig, args...); err != nil {
				return err
			}
		}
		return nil
	}})
}

// listOnLaggingServer does what an informer does when it listed on a fresh
// server and its relist lands on the lagging one: a list not older than the
// fresh RV, sent straight to the lagging server. The 504 is real.
func listOnLaggingServer(ctx context.Context, fresh kubernetes.Interface, h *framework.HA, lagging int, ns string) (string, error) {
	l, err := fresh.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return "", err
	}
	cfg := h.Cluster.RESTConfig(lagging)
	cfg.Timeout = 20 * time.Second
	lag, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	// Stream, not Do: it decodes the Status of the 504, message and cause.
	body, err := lag.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces/"+ns+"/configmaps").
		Param("resourceVersion", l.ResourceVersion).Param("resourceVersionMatch", "NotOlderThan").Param("limit", "1").
		MaxRetries(0).Stream(ctx)
	if err == nil {
		body.Close()
		return "", fmt.Errorf("server %d answered a list not older than RV %s although its etcd link is paused", lagging+1, l.ResourceVersion)
	}
	fmt.Printf("  a list not older than RV %s (from server 1), sent to server %d: %v\n", l.ResourceVersion, lagging+1, err)
	return "Error from server (Timeout): " + err.Error(), nil
}
