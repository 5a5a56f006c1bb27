package main

import (
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The top step: a known List/Watch load on the demo's API server (client-go
// informers and raw watches of a custom resource, selected lists of
// configmaps, writes), what top shows of it, a watcher too slow to read
// that the watch cache closes, and --check. It runs after clients, so that
// the audit log clients reads holds the history only.
func init() {
	steps = append(steps, step{order: 97, name: "top", run: func(d *demo) error {
		banner("top: the List/Watch load on the API server now, per resource, from two reads of its /metrics")
		const ns = "top-demo"
		load := framework.Load{Informers: 3, RawWatches: 2, ListsPerSecond: 4, Objects: 40, Matching: 4, WritesPerSecond: 4}
		fmt.Printf("  starting a load: %d client-go informers and %d raw watches of widgets.example.com, %g selected lists of configmaps and %g widget writes a second\n",
			load.Informers, load.RawWatches, load.ListsPerSecond, load.WritesPerSecond)
		run, err := framework.StartLoad(d.ctx, d.cluster, 0, ns, load)
		if err != nil {
			return err
		}
		defer run.Stop()
		if err := d.runPlugin("top", "--once", "--interval", "3s", "-o", "wide", "widgets.example.com", "configmaps"); err != nil {
			return err
		}
		w, err := framework.OpenSlowWatcher(d.ctx, d.cluster.RESTConfig(0), "/api/v1/namespaces/"+ns+"/configmaps?watch=1")
		if err != nil {
			return err
		}
		defer w.Close()
		fmt.Printf("\n  a watch of configmaps in %s that is never read, while 60 configmaps of 100 KB are written\n", ns)
		written := make(chan error, 1)
		go func() {
			time.Sleep(2 * time.Second)
			written <- d.cluster.WriteBigConfigMaps(d.ctx, 0, ns, "big", 60, 100_000)
		}()
		if err := d.runPlugin("top", "--once", "--interval", "12s", "--check", "--max-terminated", "0", "--max-watchers", "widgets.example.com=4", "configmaps", "widgets.example.com"); err != nil {
			return err
		}
		return <-written
	}})
}
