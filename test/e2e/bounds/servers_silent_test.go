//go:build e2e

package bounds

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestASilentServerIsAskedOnce (adversary try 21 F9): a server that takes
// the connection and gives no answer to its consistent list gets its rv=0
// list (which a watch cache cut off from etcd still answers) within a short
// wait, half the bound here, not the whole bound again; with no answer to
// that either, it is not asked again in the run, in every per-server
// command: not its next resource (probe --all), not the check's request
// (explain-error --check). Each silent server costs two requests and 1.5
// time bounds in the run, not 2 a resource; the server beside it that
// answers is measured as ever.
func TestASilentServerIsAskedOnce(t *testing.T) {
	good, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000}, Oldest: 50})
	gu, err := url.Parse(good.URL())
	if err != nil {
		t.Fatal(err)
	}
	silent := framework.SilentServers(t, 2)
	eps := strings.Join(append(silent, gu.Host), ",")
	for _, args := range [][]string{
		{"list", "cm", "--endpoints", eps},
		{"probe", "cm", "--endpoints", eps},
		{"probe", "--all", "-n", "default", "--endpoints", eps},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			r := framework.Run(t, kc, 2*time.Minute, append(args, "--request-timeout", "1s", "-o", "json")...)
			var one serversView
			var all struct {
				Resources []serversView `json:"resources"`
			}
			views := []serversView{}
			if json.Unmarshal([]byte(r.Stdout), &all) == nil && len(all.Resources) > 0 {
				views = all.Resources
			} else if json.Unmarshal([]byte(r.Stdout), &one) == nil && len(one.Servers) > 0 {
				views = append(views, one)
			}
			if len(views) == 0 {
				t.Fatalf("exit %d, no per-server view:\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			asked := map[string]int{}
			for _, v := range views {
				for _, s := range v.Servers {
					asked[s.Endpoint] += s.Requests
					if s.Endpoint != gu.Host && s.Millis >= 1800 {
						t.Errorf("silent server %s took %.0f ms, want the bound (1 s) and half of it", s.Endpoint, s.Millis)
					}
					if s.Endpoint == gu.Host && (s.Error != "" || s.Requests == 0) {
						t.Errorf("the server that answers: %+v", s)
					}
				}
			}
			for _, e := range silent {
				if asked[e] != 2 {
					t.Errorf("silent server %s asked %d time(s) in the run, want twice (its consistent list, its rv=0 list):\n%s", e, asked[e], r.Stdout)
				}
			}
		})
	}
}

// explain-error --check --servers: its servers count no requests of
// their own, the check does: the silent servers add two each (consistent
// list, rv=0 list) to what the server that answers costs alone, and no
// third (the check's own request).
func TestASilentServerIsAskedOnceByTheCheck(t *testing.T) {
	good, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000}, Oldest: 50})
	gu, err := url.Parse(good.URL())
	if err != nil {
		t.Fatal(err)
	}
	silent := framework.SilentServers(t, 2)
	check := func(eps string) int {
		r := framework.Run(t, kc, 2*time.Minute, "explain-error", "Too large resource version: 2000, current: 1000", "--check", "cm", "--endpoints", eps, "--request-timeout", "1s", "-o", "json")
		var doc struct {
			Servers struct {
				Requests int `json:"requests"`
			} `json:"servers"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Servers.Requests == 0 {
			t.Fatalf("exit %d, %v, no check across servers:\n%s%s", r.Code, err, r.Stdout, r.Stderr)
		}
		return doc.Servers.Requests
	}
	alone := check(gu.Host)
	if n := check(strings.Join(append(silent, gu.Host), ",")); n != alone+2*len(silent) {
		t.Errorf("%d request(s) with %d silent server(s), %d without: want each silent server asked twice (its consistent list, its rv=0 list), never the check's request", n, len(silent), alone)
	}
}

// serversView is what these tests read of a per-server view's -o json.
type serversView struct {
	Servers []struct {
		Endpoint string  `json:"endpoint"`
		Requests int     `json:"requests"`
		Error    string  `json:"error"`
		Millis   float64 `json:"ms"`
	} `json:"servers"`
}

// TestASilentServerIsAskedOnceByTop (adversary try 22 F8): top's samples
// follow the same rule: a server that gave no answer to its first read of
// /metrics is not sent the second (it would take the time bound again,
// for an interval that cannot be drawn), and its line says so; the
// server beside it is read twice, its interval drawn. The run takes one
// time bound, not two; the cost line and -o json count what was sent.
func TestASilentServerIsAskedOnceByTop(t *testing.T) {
	metrics := framework.ScriptAnswer{Code: 200, Type: "text/plain; version=0.0.4", Body: recordedMetrics(t)}
	good, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": metrics})
	for _, out := range [][]string{nil, {"-o", "json"}} {
		t.Run(strings.Join(append([]string{"top"}, out...), " "), func(t *testing.T) {
			silent, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": {Hang: true}})
			before := good.Asked("/metrics")
			start := time.Now()
			r := framework.Run(t, kc, time.Minute, append([]string{"top", "--once", "--interval", "1s", "--endpoints", good.Host() + "," + silent.Host(), "--request-timeout", "2s"}, out...)...)
			took := time.Since(start)
			if n := silent.Asked("/metrics"); n != 1 || took > 3500*time.Millisecond {
				t.Errorf("the silent server was sent %d GET /metrics (want 1), the run took %s (want one 2s bound, not two):\n%s%s", n, took.Round(100*time.Millisecond), r.Stdout, r.Stderr)
			}
			if n := good.Asked("/metrics") - before; n != 2 {
				t.Errorf("the server that answers was read %d times, want both samples", n)
			}
			if r.Code != 12 {
				t.Errorf("exit %d, want 12 (one of two servers read):\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			if out == nil {
				if !strings.Contains(r.Stdout, "server 2 "+silent.Host()+": not read: NoAnswer: not asked: it gave no answer to an earlier read of this run") ||
					!strings.Contains(r.Stdout, "3 GET /metrics for this interval (2 per server: both samples; 1 to server 2") {
					t.Errorf("no line says the silent server was not asked again, or the cost line counts what was not sent:\n%s", r.Stdout)
				}
				return
			}
			var doc struct {
				Servers []struct {
					Endpoint     string `json:"endpoint"`
					ReadRequests int    `json:"readRequests"`
					Error        string `json:"error"`
				} `json:"servers"`
				Cost struct {
					Reads int `json:"reads"`
				} `json:"metricsCost"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.Servers) != 2 {
				t.Fatalf("-o json: %v:\n%s", err, r.Stdout)
			}
			if s := doc.Servers[1]; s.ReadRequests != 1 || !strings.Contains(s.Error, "not asked") || doc.Cost.Reads != 3 {
				t.Errorf("-o json: the silent server: %+v, reads %d; want 1 read, \"not asked\", 3 reads in all", s, doc.Cost.Reads)
			}
		})
	}
}
