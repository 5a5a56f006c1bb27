// Command kubectl-watchrv is a kubectl plugin that makes List/Watch
// resourceVersion behavior visible: kubectl watchrv
// list|watch|probe|streaming|clients|explain-error|version (and completion);
// root.go wires them.
package main

import (
	"os"

	"github.com/go-logr/logr"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "v0.0.0-dev"

func main() {
	// client-go logs through klog; its lines would break the one-line error
	// promise, and every failure is reported by the command itself.
	klog.SetLogger(logr.Discard())
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	os.Exit(run(os.Args[1:], streams))
}
