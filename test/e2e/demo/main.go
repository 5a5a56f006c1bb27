// Command demo starts the real local API server (etcd + kube-apiserver
// v1.37.2 on loopback), makes a history worth looking at, runs the plugin's
// commands against it with each command line printed before its output, and
// stops the server at the end: also on Ctrl-C (SIGINT), SIGTERM, SIGHUP, and
// when its parent process dies (make killed with SIGKILL).
//
//	make demo    # bin/watchrv-demo --plugin bin/kubectl-watchrv
//	make serve   # bin/watchrv-demo --plugin bin/kubectl-watchrv --serve
//
// make runs the built binary rather than `go run`: `go run` dies on SIGTERM
// without passing it on, which left the demo and its etcd and kube-apiserver
// running as orphans.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
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
	// informer is the real client-go informer that lived through the history.
	informer *framework.Informer
	// watchCache is whether the API server runs its watch cache (make
	// serve WATCH_CACHE=off: not): what the demo says of it follows.
	watchCache bool
}

// cacheSetting is the server's --watch-cache, as the plugin's flags
// (clients --watch-cache) spell it.
func (d *demo) cacheSetting() string {
	if d.watchCache {
		return "on"
	}
	return "off"
}

// step is one part of the demo; each command's file adds its own.
type step struct {
	order int
	name  string
	run   func(d *demo) error
}

var steps []step

// init keeps the main goroutine on the main thread (the runtime already
// holds it there during package init), for stopWithParent.
func init() { runtime.LockOSThread() }

// stopWithParent asks the kernel to send SIGTERM when the parent dies, so
// that the handler in run stops etcd and kube-apiserver even when make is
// killed with SIGKILL and cannot pass anything on. The kernel keeps the
// setting on the calling thread: main runs on the main thread, which lives
// as long as the process.
func stopWithParent() {
	parent := os.Getppid()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "demo: cannot ask to be stopped with its parent: "+errno.Error())
		return
	}
	if os.Getppid() != parent {
		// The parent died before the request: nobody would send the signal.
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}

func main() {
	plugin := flag.String("plugin", "bin/kubectl-watchrv", "path of the plugin binary to run")
	serve := flag.Bool("serve", false, "start the server, make history, print the kubeconfig path and serve until interrupted")
	watchCache := flag.Bool("watch-cache", true, "run kube-apiserver with its watch cache (false: --watch-cache=false, every list and watch served by etcd)")
	flag.Parse()
	stopWithParent()
	if err := run(*plugin, *serve, *watchCache); err != nil {
		fmt.Fprintln(os.Stderr, "demo: "+err.Error())
		os.Exit(1)
	}
}

func run(plugin string, serve, watchCache bool) error {
	// SIGPIPE ignored: with `make serve | tee log` and Ctrl-C, tee dies
	// first, and the first write to the broken pipe ("Stopping ...") would
	// kill the demo by SIGPIPE before it removes the cluster's files. Now
	// such a write fails with EPIPE, which no cleanup step depends on.
	signal.Ignore(syscall.SIGPIPE)
	// SIGHUP: the terminal went away. Until run returns, a second signal is
	// caught too, so that the cluster is always stopped.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The informer binary this run builds goes with it too.
	defer framework.RemoveBuiltBinaries()
	abs, err := filepath.Abs(plugin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("no plugin binary at %s: run 'make build' first", abs)
	}
	banner("Starting a real etcd and kube-apiserver v1.37.2 on loopback (the first run builds them: ~8 min)")
	start := time.Now()
	if !watchCache {
		fmt.Println("  with --watch-cache=false: etcd serves every list and watch")
	}
	c, err := framework.Start(ctx, framework.Options{APIServer: framework.APIServerOptions{DisableWatchCache: !watchCache}, Logf: func(f string, a ...any) { fmt.Printf("  "+f+"\n", a...) }})
	if err != nil {
		return err
	}
	defer func() {
		// The cleanup first: it must not wait on a write (stdout may be a
		// broken pipe or a stopped terminal).
		c.Stop()
		banner("Stopped the local API server; its files are removed")
	}()
	fmt.Printf("  ready in %s; kubeconfig: %s\n", time.Since(start).Round(time.Millisecond), c.Kubeconfig)
	d := &demo{ctx: ctx, cluster: c, plugin: abs, ns: "demo", rvs: map[string]string{}, watchCache: watchCache}
	defer func() { // before the cluster stops: its files live in the cluster's directory
		if d.informer != nil {
			_ = d.informer.Stop(5 * time.Second)
		}
	}()
	if err := makeHistory(d); err != nil {
		return err
	}
	if serve {
		// One API server and --endpoint-reconciler-type=none: no
		// EndpointSlices for --servers to discover, so the per-server view
		// needs the server's address by hand (it stays on loopback).
		host := strings.TrimPrefix(c.APIServers[0].URL, "https://")
		// The PATH line: kubectl runs "kubectl watchrv" only from a
		// kubectl-watchrv on the PATH, and make built it here, in no
		// directory of the PATH (fresh user try 48 F1: every printed
		// command failed as pasted, "unknown command").
		fmt.Printf("\nServing. Use:\n  export KUBECONFIG=%s\n  export PATH=%s:\"$PATH\"\n"+
			"Per-server view (one API server here, and no EndpointSlices to find it by, so give its address):\n"+
			"  kubectl watchrv probe configmaps -n %s --endpoints %s\n"+
			"%s"+
			"Who lists and watches what (the API server's audit log):\n  kubectl watchrv clients -f %s\n"+
			"Press Ctrl-C to stop (or kill %d); the cluster's files go with it.\n", c.Kubeconfig, shellQuote(filepath.Dir(abs)), d.ns, host, compactionNote(c.EtcdURL, d.ns), c.APIServers[0].AuditLog, os.Getpid())
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

// compactionNote says that the served cluster never compacts etcd by
// itself (the harness runs kube-apiserver with
// --etcd-compaction-interval=0s, so that tests compact when they choose),
// so storage's 410 (probe's SOURCE storage) never comes on its own, and
// gives the one command that compacts it: a POST to etcd's own HTTP
// gateway, on loopback (fresh user try 21 F3: a user writing "to force
// compaction" wrote for ever).
func compactionNote(etcdURL, ns string) string {
	return fmt.Sprintf("etcd is never compacted by itself here (kube-apiserver runs with --etcd-compaction-interval=0s; a real cluster compacts every 5 minutes),\n"+
		"so storage keeps every revision and its 410 never comes. To compact it at revision N (the current RV: \"List resourceVersion\" of kubectl watchrv list cm -n %s --rv-only):\n"+
		"  curl -sS -X POST %s/v3/kv/compaction -d '{\"revision\":\"N\",\"physical\":true}'\n", ns, etcdURL)
}

func sortSteps() {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].order < steps[j-1].order; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}

func banner(s string) { fmt.Printf("\n### %s\n", s) }
