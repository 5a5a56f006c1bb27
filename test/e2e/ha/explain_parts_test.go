//go:build e2e

package ha

import (
	"encoding/json"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 44 C: explain-error --check --endpoints said "(7
// requests)" and "7 to 2 servers" where -o json had servers.requests 8
// (the read that found the servers folded in, with no field of its own),
// and an unreachable row's NOTE had "(hint: ...)" where its JSON row had
// none. The class: the document carries every part of the table's
// Requests line and every row's hint, as list and probe --endpoints do.
func TestExplainServersDocumentCarriesTheTablesParts(t *testing.T) {
	h := shared
	good := net.JoinHostPort("127.0.0.1", strconv.Itoa(h.Port))
	kc := h.DirectKubeconfig(0)
	msg := "Error from server (Timeout): Timeout: Too large resource version: 99999999, current: 10"
	args := []string{"-n", "default", "explain-error", "--check", "--endpoints", good + ",127.0.0.1:1", msg}
	human := framework.Run(t, kc, time.Minute, args...)
	js := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
	if human.Code != 12 || js.Code != 12 {
		t.Fatalf("exit %d and %d, want 12 (one server unreachable):\n%s%s\n%s", human.Code, js.Code, human.Stdout, human.Stderr, js.Stderr)
	}
	var doc struct {
		KubeconfigCheck *int `json:"kubeconfigCheckRequests"`
		Servers         struct {
			Requests  int `json:"requests"`
			Discovery *struct {
				Requests int `json:"requests"`
			} `json:"discovery"`
			Servers []struct {
				Endpoint string `json:"endpoint"`
				Error    string `json:"error"`
				Hint     string `json:"hint"`
			} `json:"servers"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(js.Stdout), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, js.Stdout)
	}
	cc := doc.Servers
	if cc.Discovery == nil || doc.KubeconfigCheck == nil {
		t.Fatalf("the document has no servers.discovery or kubeconfigCheckRequests:\n%s", js.Stdout)
	}
	header := regexp.MustCompile(`Every API server, asked about RV \d+ \((\d+) requests?\)`).FindStringSubmatch(human.Stdout)
	line := regexp.MustCompile(`Requests:\s+(\d+) to (\d+) servers? \+ (\d+) to find them`).FindStringSubmatch(human.Stdout)
	if header == nil || line == nil {
		t.Fatalf("no header count or Requests line:\n%s", human.Stdout)
	}
	check := 0
	if m := regexp.MustCompile(`\+ (\d+) to the kubeconfig's server for --check`).FindStringSubmatch(human.Stdout); m != nil {
		check, _ = strconv.Atoi(m[1])
	}
	toServers := cc.Requests - cc.Discovery.Requests
	if header[1] != strconv.Itoa(toServers) || line[1] != strconv.Itoa(toServers) || line[3] != strconv.Itoa(cc.Discovery.Requests) || check != *doc.KubeconfigCheck {
		t.Errorf("the table says %s requests (%s to the servers + %s to find them + %d for --check), the document %d - %d to find them + %d for --check:\n%s\n%s",
			header[1], line[1], line[3], check, cc.Requests, cc.Discovery.Requests, *doc.KubeconfigCheck, human.Stdout, js.Stdout)
	}
	hints := 0
	for _, row := range cc.Servers {
		var note string
		for _, l := range strings.Split(human.Stdout, "\n") {
			if strings.Contains(l, " "+row.Endpoint+" ") {
				note = l
			}
		}
		if note == "" {
			t.Errorf("no table row for %s:\n%s", row.Endpoint, human.Stdout)
			continue
		}
		m := regexp.MustCompile(`\(hint: (.*)\)`).FindStringSubmatch(note)
		switch {
		case m == nil && row.Hint != "":
			t.Errorf("%s: the document's hint %q is not in the table's NOTE:\n%s", row.Endpoint, row.Hint, note)
		case m != nil && m[1] != row.Hint:
			t.Errorf("%s: the table's hint %q, the document's %q", row.Endpoint, m[1], row.Hint)
		case m != nil:
			hints++
		}
	}
	if hints == 0 {
		t.Fatalf("no row with a hint: the test does not reach what it attacks:\n%s", human.Stdout)
	}
}
