package main

import (
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A real client-go informer (test/e2e/informer, v0.37.2) watches the demo
// namespace through the history, so that explain-error reads a real
// controller's log, not lines written by hand. client-go v0.37.2 logs a
// watch that ends with 410 at -v=4 only ("Watch closed"), so it runs at 4.
//
// It is frozen (SIGSTOP) before the burst and thawed after the restart: its
// connection broke with the restart, and its rewatch from the last RV it saw
// meets the restarted watch cache, whose window starts after the burst.

// startInformer starts the informer and waits until it has synced.
func (d *demo) startInformer() error {
	in, err := framework.StartInformer(d.cluster.Kubeconfig, d.ns, d.cluster.Dir, "controller", "-v=4")
	if err != nil {
		return err
	}
	d.informer = in
	if _, _, err := in.WaitFor(2*time.Minute, func(r framework.InformerRecord) bool { return r.Type == "synced" }); err != nil {
		return err
	}
	fmt.Println("  a client-go informer (v0.37.2) has synced the namespace; freezing it (SIGSTOP)")
	return in.Pause()
}

// resumeInformer thaws it and waits for the rewatch that the history made
// impossible: the informer relists (a second list request).
func (d *demo) resumeInformer() error {
	in := d.informer
	if err := in.Resume(); err != nil {
		return err
	}
	lists := 0
	_, _, err := in.WaitFor(2*time.Minute, func(r framework.InformerRecord) bool {
		if r.Type == "request" && r.Verb == "list" || r.Type == "request" && r.SendInitialEvents {
			lists++
		}
		return lists >= 2
	})
	if err != nil {
		return fmt.Errorf("the informer did not relist after the restart: %w", err)
	}
	fmt.Printf("  the informer, thawed, relisted; its log: %s\n", in.LogPath)
	return nil
}
