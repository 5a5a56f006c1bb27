// Command cluster starts the real local API server for the benchmarks, loads
// the collections they read, writes the admin kubeconfig path to -kubeconfig-out,
// prints READY, and serves until SIGINT or SIGTERM.
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
	out := flag.String("kubeconfig-out", "", "file to write the kubeconfig path into")
	big := flag.Int("big", 5000, "configmaps of 2 KB in namespace bench-big")
	many := flag.Int("many", 50000, "small configmaps in namespace bench-many")
	watchCache := flag.Bool("watch-cache", true, "run the API server with its watch cache")
	compact := flag.Bool("compact-half", false, "after loading, compact etcd at the revision half way through the load (the window probe finds)")
	flag.Parse()
	if err := run(*out, *big, *many, *watchCache, *compact); err != nil {
		fmt.Fprintln(os.Stderr, "bench cluster:", err)
		os.Exit(1)
	}
}

func run(out string, big, many int, watchCache, compactHalf bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := framework.Start(ctx, framework.Options{
		APIServer: framework.APIServerOptions{DisableWatchCache: !watchCache},
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
	startRev, err := c.EtcdRevision(ctx)
	if err != nil {
		return err
	}
	for _, load := range []struct {
		ns   string
		n    int
		size int
	}{{"bench-big", big, 2048}, {"bench-many", many, 64}} {
		if load.n == 0 {
			continue
		}
		start := time.Now()
		if err := framework.CreateNamespace(ctx, cs, load.ns); err != nil {
			return err
		}
		if err := framework.CreateConfigMaps(ctx, cs, load.ns, "cm", load.n, load.size, 16); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "loaded %d configmaps of %d B into %s in %s\n", load.n, load.size, load.ns, time.Since(start).Round(time.Millisecond))
	}
	if compactHalf {
		endRev, err := c.EtcdRevision(ctx)
		if err != nil {
			return err
		}
		half := startRev + (endRev-startRev)/2
		if err := c.Compact(ctx, half); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "compacted etcd at revision %d (of %d)\n", half, endRev)
	}
	if out != "" {
		if err := os.WriteFile(out, []byte(c.Kubeconfig), 0o644); err != nil {
			return err
		}
	}
	fmt.Println("READY")
	<-ctx.Done()
	return nil
}
