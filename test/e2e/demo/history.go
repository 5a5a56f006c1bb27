package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// makeHistory creates, modifies and deletes objects in the demo namespace,
// makes a burst of writes, and restarts the API server so that its watch
// cache window starts anew. The harness's writes carry its own User-Agent.
func makeHistory(d *demo) error {
	banner(fmt.Sprintf("Making history in namespace %q (the harness writes, the plugin only reads)", d.ns))
	cs, err := d.cluster.Clientset(0)
	if err != nil {
		return err
	}
	if err := framework.CreateNamespace(d.ctx, cs, d.ns); err != nil {
		return err
	}
	cms := cs.CoreV1().ConfigMaps(d.ns)
	create := func(name string) (string, error) {
		cm, err := cms.Create(d.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "demo"}}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return cm.ResourceVersion, nil
	}
	modify := func(name, v string) (string, error) {
		cm, err := cms.Get(d.ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		cm.Data["v"] = v
		cm, err = cms.Update(d.ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			return "", err
		}
		return cm.ResourceVersion, nil
	}
	record := func(what string, rv string, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		d.rvs[what] = rv
		fmt.Printf("  %-12s RV %s\n", what, rv)
		return nil
	}
	rv, err := create("a")
	if err := record("create a", rv, err); err != nil {
		return err
	}
	rv, err = create("b")
	if err := record("create b", rv, err); err != nil {
		return err
	}
	rv, err = modify("a", "2")
	if err := record("modify a", rv, err); err != nil {
		return err
	}
	rv, err = deleteRV(d, cms, "b", d.rvs["modify a"])
	if err := record("delete b", rv, err); err != nil {
		return err
	}
	rv, err = create("c")
	if err := record("create c", rv, err); err != nil {
		return err
	}
	rv, err = modify("c", "2")
	if err := record("modify c", rv, err); err != nil {
		return err
	}
	if err := d.startInformer(); err != nil {
		return fmt.Errorf("informer: %w", err)
	}
	start := time.Now()
	if err := framework.CreateConfigMaps(d.ctx, cs, d.ns, "burst", 300, 64, 8); err != nil {
		return fmt.Errorf("burst: %w", err)
	}
	fmt.Printf("  burst        300 configmaps in %s\n", time.Since(start).Round(time.Millisecond))
	rev, err := d.cluster.EtcdRevision(d.ctx)
	if err != nil {
		return err
	}
	d.rvs["before restart"] = fmt.Sprint(rev)
	fmt.Println("  " + restartLine(rev, d.watchCache))
	if err := d.cluster.RestartAPIServer(d.ctx, 0); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if _, err := modify("a", fmt.Sprintf("after-restart-%d", i)); err != nil {
			return err
		}
	}
	fmt.Println("  modified a 3 times after the restart")
	return d.resumeInformer()
}

// deleteRV deletes a configmap and returns the RV of its deletion: the
// DELETE of a configmap answers a Status without one, so a watch from the
// RV before it (fromRV) reads the DELETED event, which carries it.
func deleteRV(d *demo, cms typedcorev1.ConfigMapInterface, name, fromRV string) (string, error) {
	ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: fromRV, FieldSelector: "metadata.name=" + name})
	if err != nil {
		return "", err
	}
	defer w.Stop()
	if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return "", err
	}
	for ev := range w.ResultChan() {
		if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Deleted {
			return cm.ResourceVersion, nil
		}
	}
	return "", fmt.Errorf("no DELETED event for %s after its deletion", name)
}

// restartLine says what the restart does, by the server's cache setting: a
// server with --watch-cache=false has no watch cache to start anew.
func restartLine(rev int64, watchCache bool) string {
	if !watchCache {
		return fmt.Sprintf("restarting the API server at etcd revision %d (it runs with --watch-cache=false: etcd serves its lists and watches, before the restart and after)", rev)
	}
	return fmt.Sprintf("restarting the API server at etcd revision %d, so its watch cache starts anew", rev)
}
