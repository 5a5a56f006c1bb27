// Command fakeserver starts one of test/e2e/framework's fake servers on
// loopback, for a try by hand (an adversary's session) with what the e2e
// tests use: the fakes stay in the framework, and a new one is added there
// (and to this list), not written aside.
//
//	go run ./test/e2e/fakeserver -fault endless-watch -dir /tmp/f
//	go run ./test/e2e/fakeserver -hostile -dir /tmp/f
//	go run ./test/e2e/fakeserver -bad-metrics NaN -from 2 -dir /tmp/f
//	go run ./test/e2e/fakeserver -list
//
// It prints the server's URL and a kubeconfig for it (in -dir), then
// serves until interrupted. Every fake answers plain HTTP on 127.0.0.1.
// Answers against a real API server (a watch front, a cut link, a paused
// link) need one: they are started by the e2e tests (framework.StartT).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

func main() {
	fault := flag.String("fault", "", "a framework.Fault (see -list)")
	hostile := flag.Bool("hostile", false, "the HostileServer: escape sequences in every field")
	badMetrics := flag.String("bad-metrics", "", "the BadMetricsServer with this sample value (NaN, +Inf, -100, ...)")
	from := flag.Int64("from", 1, "with -bad-metrics: the /metrics read the value starts at")
	dir := flag.String("dir", os.TempDir(), "where the kubeconfig is written")
	list := flag.Bool("list", false, "list the faults")
	flag.Parse()
	if *list {
		for _, f := range framework.Faults {
			fmt.Println(f)
		}
		return
	}
	url, kubeconfig, stop, err := start(*fault, *hostile, *badMetrics, *from, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeserver:", err)
		os.Exit(2)
	}
	defer stop()
	fmt.Printf("url: %s\nkubeconfig: %s\n", url, kubeconfig)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

func start(fault string, hostile bool, badMetrics string, from int64, dir string) (url, kubeconfig string, stop func(), err error) {
	switch {
	case fault != "":
		if !framework.KnownFault(framework.Fault(fault)) {
			return "", "", nil, fmt.Errorf("unknown fault %q (see -list)", fault)
		}
		s, err := framework.StartFaultServer(framework.Fault(fault))
		if err != nil {
			return "", "", nil, err
		}
		kc, err := s.Kubeconfig(dir)
		return s.URL(), kc, s.Close, err
	case hostile:
		s, err := framework.StartHostileServer()
		if err != nil {
			return "", "", nil, err
		}
		kc, err := plainKubeconfig(dir, "hostile", s.URL)
		return s.URL, kc, func() { _ = s.Close() }, err
	case badMetrics != "":
		s, err := framework.StartBadMetricsServer(badMetrics, from)
		if err != nil {
			return "", "", nil, err
		}
		kc, err := s.Kubeconfig(dir)
		return s.URL, kc, s.Close, err
	}
	return "", "", nil, fmt.Errorf("give -fault, -hostile or -bad-metrics")
}

// plainKubeconfig is a kubeconfig for a plain-HTTP fake with any token.
func plainKubeconfig(dir, name, url string) (string, error) {
	p := filepath.Join(dir, name+".kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: %[1]s\n  cluster:\n    server: %[2]s\ncontexts:\n- name: %[1]s\n  context:\n    cluster: %[1]s\n    user: %[1]s\n    namespace: default\ncurrent-context: %[1]s\nusers:\n- name: %[1]s\n  user:\n    token: %[1]s-token\n", name, url)
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}
