// Command demo starts the real local API server (etcd + kube-apiserver
// v1.37.2 on loopback), makes a history worth looking at, runs the plugin's
// commands against it with each command line printed before its output, and
// stops the server at the end (also on Ctrl-C).
//
//	go run ./test/e2e/demo --plugin bin/kubectl-watchrv          # the demo
//	go run ./test/e2e/demo --plugin bin/kubectl-watchrv --serve  # keep serving
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// demo is what the steps share.
type demo struct {
	ctx     context.Context
	cluster *framework.Cluster
	plugin  string
	ns      string
	// RVs recorded while making history.
	rvs map[string]string
}

// step is one part of the demo; each command's file adds its own.
type step struct {
	order int
	name  string
	run   func(d *demo) error
}

var steps []step

func main() {
	plugin := flag.String("plugin", "bin/kubectl-watchrv", "path of the plugin binary to run")
	serve := flag.Bool("serve", false, "start the server, make history, print the kubeconfig path and serve until interrupted")
	flag.Parse()
	if err := run(*plugin, *serve); err != nil {
		fmt.Fprintln(os.Stderr, "demo: "+err.Error())
		os.Exit(1)
	}
}

func run(plugin string, serve bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	abs, err := filepath.Abs(plugin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("no plugin binary at %s: run 'make build' first", abs)
	}
	banner("Starting a real etcd and kube-apiserver v1.37.2 on loopback (the first run builds them: ~8 min)")
	start := time.Now()
	c, err := framework.Start(ctx, framework.Options{Logf: func(f string, a ...any) { fmt.Printf("  "+f+"\n", a...) }})
	if err != nil {
		return err
	}
	defer func() {
		banner("Stopping the local API server")
		c.Stop()
	}()
	fmt.Printf("  ready in %s; kubeconfig: %s\n", time.Since(start).Round(time.Millisecond), c.Kubeconfig)
	d := &demo{ctx: ctx, cluster: c, plugin: abs, ns: "demo", rvs: map[string]string{}}
	if err := makeHistory(d); err != nil {
		return err
	}
	if serve {
		fmt.Printf("\nServing. Use:\n  export KUBECONFIG=%s\nPress Ctrl-C to stop.\n", c.Kubeconfig)
		<-ctx.Done()
		return nil
	}
	sortSteps()
	for _, s := range steps {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := s.run(d); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func sortSteps() {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].order < steps[j-1].order; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}

func banner(s string) { fmt.Printf("\n### %s\n", s) }
