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

// resumeInformer thaws it and says what its rewatch met: where the
// history made the rewatch impossible (the restarted watch cache's window
// starts after the burst) it relists; where storage still holds the
// history since its last RV (the watch cache off, etcd not compacted
// there) its watch delivers the burst, with no relist. Only the records
// written after the thaw count (the informer, frozen, wrote none since).
func (d *demo) resumeInformer() error {
	in := d.informer
	before, err := in.Records()
	if err != nil {
		return err
	}
	if err := in.Resume(); err != nil {
		return err
	}
	thawed := time.Now()
	seen, grew := 0, thawed
	for deadline := thawed.Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		recs, err := in.Records()
		if err != nil || len(recs) <= len(before) {
			continue
		}
		watchFrom, replayed := "", 0
		for _, r := range recs[len(before):] {
			switch {
			case r.Type == "request" && (r.Verb == "list" || r.SendInitialEvents):
				fmt.Printf("  the informer, thawed, relisted; its log: %s\n", in.LogPath)
				return nil
			case r.Type == "request" && r.Verb == "watch" && watchFrom == "":
				watchFrom = r.ResourceVersion
			case watchFrom != "" && r.Type != "request" && r.Type != "lastSync" && r.Type != "synced":
				replayed++
			}
		}
		if replayed != seen {
			seen, grew = replayed, time.Now()
		}
		// No relist 10 s after a watch that replayed changes, and the
		// replay over (nothing new for 3 s): it resumed.
		if watchFrom != "" && replayed > 0 && time.Since(thawed) > 10*time.Second && time.Since(grew) > 3*time.Second {
			fmt.Printf("  the informer, thawed, did not relist: its watch from RV %s delivered %d change(s) (storage still held the history since that RV); its log: %s\n", watchFrom, replayed, in.LogPath)
			return nil
		}
	}
	return fmt.Errorf("the informer neither relisted nor resumed its watch within 2m after it was thawed")
}
