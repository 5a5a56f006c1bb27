//go:build e2e

package docs

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// settle waits until the demo's last writes (its top step's big
// configmaps and what its load deletes) have reached their watchers: the
// server's count of watch events sent for configmaps stays the same for 3 s, or 60 s
// pass. The captures that measure the server now (top) then see the
// demo's idle server, as `make serve` shows it a moment later.
func (e *demoEnv) settle() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.kubeconfig)
	if err != nil {
		return err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	last, same := -1.0, 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		n, err := watchEventsSent(hc, cfg.Host)
		if err != nil {
			return err
		}
		if n == last {
			if same++; same == 3 {
				return nil
			}
		} else {
			last, same = n, 0
		}
	}
	return nil // still busy: the captures say what they see
}

// watchEventsSent sums apiserver_watch_events_total of configmaps (what
// the demo's last steps write; every resource would count the bookmarks
// of the server's own informers, one every few seconds).
func watchEventsSent(hc *http.Client, host string) (float64, error) {
	resp, err := hc.Get(host + "/metrics?name[]=apiserver_watch_events_total")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/metrics: %s", resp.Status)
	}
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "apiserver_watch_events_total{") && strings.Contains(l, `resource="configmaps"`) {
			var v float64
			if _, err := fmt.Sscan(l[strings.LastIndexByte(l, ' ')+1:], &v); err == nil {
				sum += v
			}
		}
	}
	return sum, sc.Err()
}
