// Command informer is the test framework's real client in the loop: a
// client-go SharedInformer on the configmaps of one namespace, with klog at
// the verbosity it is given (default 0, as a controller ships) writing the
// reflector's own log lines, and a JSON-lines record of what its event
// handlers saw, of every list and watch request its reflector made, and of
// when it synced. The e2e tests break its watch for real (restarts,
// compaction, an expired watch cache window) and read both files; the demo
// can run it beside the plugin.
//
//	informer --kubeconfig K --namespace NS --events-out events.jsonl [--log-file informer.log] [--resync 0] [-v 4]
//
// It exits 0 on SIGTERM or SIGINT, after a last "stop" record.
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
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// defaultUserAgent marks the informer's requests in the API server's audit
// log; --user-agent tells several informers apart there.
const defaultUserAgent = "watchrv-e2e-informer"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		kubeconfig = flag.String("kubeconfig", "", "kubeconfig of the API server to watch (required)")
		namespace  = flag.String("namespace", "default", "namespace whose configmaps are watched")
		eventsOut  = flag.String("events-out", "", "file to write the JSON-lines record to (required)")
		resync     = flag.Duration("resync", 0, "the informer's resync period (0: never)")
		logFile    = flag.String("log-file", "", "write klog's lines to this file instead of stderr")
		userAgent  = flag.String("user-agent", defaultUserAgent, "the User-Agent of every request")
	)
	klog.InitFlags(flag.CommandLine) // -v and the other klog flags, at klog's defaults
	flag.Parse()
	if *kubeconfig == "" || *eventsOut == "" {
		return fmt.Errorf("--kubeconfig and --events-out are required")
	}
	if *logFile != "" {
		// klog opens its file (for appending) only at the first line it
		// writes; at default verbosity an informer may write none. Create
		// it now so that "no line" reads as an empty log, not a missing one.
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		f.Close()
		// klog's own way to write to a file: log_file with logtostderr off.
		for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "log_file": *logFile, "one_output": "true"} {
			if err := flag.Set(name, value); err != nil {
				return err
			}
		}
	}
	defer klog.Flush()

	rec, err := newRecorder(*eventsOut)
	if err != nil {
		return err
	}
	defer rec.close()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = *userAgent
	cfg.Wrap(rec.transport)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	gate := clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
	rec.write(record{Type: "start", Namespace: *namespace, WatchListClientGate: &gate, PID: os.Getpid()})

	factory := informers.NewSharedInformerFactoryWithOptions(cs, *resync, informers.WithNamespace(*namespace))
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(handlers(rec)); err != nil {
		return err
	}
	factory.Start(ctx.Done())

	// "stop" is the last record: watchSync has returned before it is
	// written (a lastSync of its last tick came after "stop" once).
	syncDone := make(chan struct{})
	go func() { defer close(syncDone); watchSync(ctx, rec, inf) }()
	<-ctx.Done()
	<-syncDone
	factory.Shutdown()
	rec.write(record{Type: "stop", ResourceVersion: inf.LastSyncResourceVersion()})
	return nil
}

// handlers record every callback the informer makes, as it makes it.
func handlers(rec *recorder) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			r := objectRecord("add", obj)
			r.InitialList = initial
			rec.write(r)
		},
		UpdateFunc: func(oldObj, newObj any) {
			r := objectRecord("update", newObj)
			if old, ok := oldObj.(*corev1.ConfigMap); ok {
				r.OldUID, r.OldResourceVersion = string(old.UID), old.ResourceVersion
			}
			rec.write(r)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				// A relist no longer found the object: its deletion was
				// never seen as an event, and the object is its last
				// known state.
				r := objectRecord("delete", t.Obj)
				r.Tombstone, r.Key = true, t.Key
				rec.write(r)
				return
			}
			rec.write(objectRecord("delete", obj))
		},
	}
}

func objectRecord(typ string, obj any) record {
	r := record{Type: typ}
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		r.Namespace, r.Name, r.UID, r.ResourceVersion = cm.Namespace, cm.Name, string(cm.UID), cm.ResourceVersion
		r.Key = cm.Namespace + "/" + cm.Name
	}
	return r
}

// watchSync writes the "synced" marker when HasSynced turns true, and a
// "lastSync" record whenever the reflector's last synced RV moves (bookmarks
// move it too, without any handler call): that is the RV its next watch
// starts from.
func watchSync(ctx context.Context, rec *recorder, inf cache.SharedIndexInformer) {
	synced, last := false, ""
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !synced && inf.HasSynced() {
			synced = true
			rec.write(record{Type: "synced", Mode: rec.syncMode(), ResourceVersion: inf.LastSyncResourceVersion()})
		}
		if rv := inf.LastSyncResourceVersion(); rv != last {
			last = rv
			rec.write(record{Type: "lastSync", ResourceVersion: rv})
		}
	}
}
