// Command replayserver starts the real local API server (etcd +
// kube-apiserver v1.37.2 on loopback) with the watch cache off for
// configmaps and etcd compaction off, makes a history of N configmap
// creations in namespace "bench", prints the kubeconfig and the RV the
// history starts after, and serves until interrupted. A watch from that RV
// replays exactly the N events, from etcd, as often as wanted: the fixture
// of bench/watch.sh.
//
//	go run ./test/e2e/watch/replayserver --events 20000 --info /tmp/replay.env
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

func main() {
	events := flag.Int("events", 20000, "how many configmap creations to replay")
	info := flag.String("info", "", "write KUBECONFIG=..., START_RV=..., NAMESPACE=... to this file once ready")
	flag.Parse()
	if err := run(*events, *info); err != nil {
		fmt.Fprintln(os.Stderr, "replayserver: "+err.Error())
		os.Exit(1)
	}
}

func run(events int, info string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := framework.Start(ctx, framework.Options{
		// Off for configmaps, so a watch from an old RV is served from etcd's
		// history (the watch cache window would not hold 20,000 events).
		APIServer: framework.APIServerOptions{WatchCacheSizes: "configmaps#0"},
		Logf:      func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) },
	})
	if err != nil {
		return err
	}
	defer c.Stop()
	cs, err := c.Clientset(0)
	if err != nil {
		return err
	}
	const ns = "bench"
	if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
		return err
	}
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := framework.CreateConfigMaps(ctx, cs, ns, "cm", events, 64, 16); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "created %d configmaps in %s\n", events, time.Since(start).Round(time.Millisecond))
	env := fmt.Sprintf("KUBECONFIG=%s\nSTART_RV=%d\nNAMESPACE=%s\n", c.Kubeconfig, rev, ns)
	if info != "" {
		if err := os.WriteFile(info, []byte(env), 0o644); err != nil {
			return err
		}
	}
	fmt.Print(env)
	<-ctx.Done()
	return nil
}
