// Command kubectl-watchrv is a kubectl plugin that makes List/Watch
// resourceVersion behavior visible: kubectl watchrv
// list|watch|probe|streaming|clients|explain-error|version (and completion);
// root.go wires them.
package main

import (
	"io"
	"log"
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
	// net/http and its HTTP/2 client log through the standard logger
	// ("Unsolicited response received on idle HTTP channel", of a server
	// that wrote past its answer): raw, timestamped lines that bypass the
	// one writer (fresh user try 20); what such a server does to a request
	// is reported with that request.
	log.SetOutput(io.Discard)
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	os.Exit(run(os.Args[1:], streams))
}
