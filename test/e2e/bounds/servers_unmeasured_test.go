//go:build e2e

package bounds

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// wentBackServer is a server whose watch from RV 1 replays an event above
// the current RV its lists give (150 over 100): RVs that go back, as no one
// API server's do. Its host:port, as --endpoints takes it.
func wentBackServer(t *testing.T) (string, string) {
	t.Helper()
	s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"150"}}}` + "\n"},
	})
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return u.Host, kc
}

// TestTheVerdictOverServersIsDrawnFromMeasuredServersOnly (adversary try
// 21 F4, F5): a server whose RVs went back was measured in nothing: its
// row gives no current or cache RV nor lag, and the run's verdict over
// servers (the common range, the reconnect answers, the largest lag) is
// drawn from the other servers only, in every form (human, -o json); with
// none measured, it claims nothing. probe --verify on such a server gives
// no verification verdict.
func TestTheVerdictOverServersIsDrawnFromMeasuredServersOnly(t *testing.T) {
	bad, kc := wentBackServer(t)
	good, _ := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{1000}, Oldest: 50})
	gu, err := url.Parse(good.URL())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		endpoints string
	}{{"only the server whose RVs went back", bad}, {"beside a server that answered", bad + "," + gu.Host}} {
		t.Run(c.name, func(t *testing.T) {
			alone := !strings.Contains(c.endpoints, ",")
			r := framework.Run(t, kc, time.Minute, "probe", "cm", "--endpoints", c.endpoints)
			out := r.Stdout
			if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "go back") {
				t.Errorf("exit %d, want a failure naming the RVs that went back:\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			// The error line says the row's answer (adversary try 22: the
			// line said "Other", the row and JSON RVsOutOfOrder): RVs that
			// went back are an answer in breach of the contract, and lead
			// the line, exit 1 (adversary try 38 F1).
			if !alone && (!strings.Contains(r.Stderr, "answered in breach of the List or Watch contract (server "+bad+": the RVs the answers gave go back") || strings.Contains(r.Stderr, "Other") || r.Code != 1) {
				t.Errorf("exit %d; the error line does not lead with the row's breach:\n%s", r.Code, r.Stderr)
			}
			if alone && (strings.Contains(out, "Every server") || strings.Contains(out, "Reconnect from RV") || strings.Contains(out, "Largest lag") || strings.Contains(out, "no 504")) {
				t.Errorf("a verdict over servers none of which was measured:\n%s", out)
			}
			if !alone && (strings.Contains(out, "every server follows") || strings.Contains(out, "every server serves") || strings.Contains(out, "every watch cache has seen") ||
				!strings.Contains(out, "not known for "+bad) || !strings.Contains(out, bad+" unknown")) {
				t.Errorf("the verdict speaks for %s, which was not measured:\n%s", bad, out)
			}
			j := framework.Run(t, kc, time.Minute, "probe", "cm", "--endpoints", c.endpoints, "-o", "json")
			var doc struct {
				Servers []map[string]any `json:"servers"`
				Verdict map[string]any   `json:"verdict"`
			}
			if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || len(doc.Servers) == 0 {
				t.Fatalf("-o json: exit %d, %v:\n%s%s", j.Code, err, j.Stdout, j.Stderr)
			}
			row := doc.Servers[0]
			if row["currentKnown"] != false || row["cacheKnown"] != false || row["lagKnown"] != false || row["lag"] != nil || row["windowKnown"] != false {
				t.Errorf("-o json: the row whose RVs went back gives numbers: %v", row)
			}
			v := doc.Verdict
			if alone && (v["commonKnown"] != false || v["reconnect"] != nil || v["largestLagServer"] != nil) {
				t.Errorf("-o json: a verdict over servers none of which was measured: %v", v)
			}
			if !alone && (v["largestLagServer"] == bad || v["commonToServer"] == bad || v["commonFromServer"] == bad) {
				t.Errorf("-o json: the verdict drawn from %s: %v", bad, v)
			}
		})
	}
	t.Run("probe --verify", func(t *testing.T) {
		r := framework.Run(t, kc, time.Minute, "probe", "cm", "--verify")
		if r.Code == 0 || strings.Contains(r.Stdout, "Verified") {
			t.Errorf("exit %d: a verification verdict on a row whose RVs went back:\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		j := framework.Run(t, kc, time.Minute, "probe", "cm", "--verify", "-o", "json")
		var row map[string]any
		if err := json.Unmarshal([]byte(j.Stdout), &row); err != nil || row["verify"] != nil {
			t.Errorf("-o json: %v: a verification verdict on a row whose RVs went back: %v", err, row["verify"])
		}
	})
}

// TestTheServersVerdictSaysWhatEachRowShows (adversary try 22): a server
// whose consistent list was answered and whose rv=0 list got no answer
// shows a CURRENT RV and no CACHE RV. The verdict names it as one whose
// cache RV was not read, never "no RV was read from it", and its hint
// speaks of the request that got no answer (the rv=0 list, which a watch
// cache answers from memory), never of "cut off from etcd" (which a
// consistent list answered disproves), in list and probe, human and JSON.
func TestTheServersVerdictSaysWhatEachRowShows(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	for _, args := range [][]string{{"list", "cm"}, {"probe", "cm"}} {
		// The rv=0 list is the last request of a server's measure.
		alone, kc := framework.ServeRVScript(t, window)
		framework.Run(t, kc, time.Minute, append(args, "--endpoints", alone.Host())...)
		rv0 := window
		rv0.HangAt = int(alone.Asked(path))
		for _, out := range [][]string{nil, {"-o", "json"}} {
			run := append(append([]string{}, args...), out...)
			t.Run(strings.Join(run, " "), func(t *testing.T) {
				good, kc := framework.ServeRVScript(t, window)
				hung, _ := framework.ServeRVScript(t, rv0)
				r := framework.Run(t, kc, time.Minute, append(run, "--endpoints", good.Host()+","+hung.Host(), "--request-timeout", "1s")...)
				if r.Code != 12 {
					t.Fatalf("exit %d, want 12 (one server answered only partly):\n%s%s", r.Code, r.Stdout, r.Stderr)
				}
				if strings.Contains(r.Stdout, "no RV was read from it") || strings.Contains(r.Stdout, "cut off from etcd") || !strings.Contains(r.Stdout, "rv=0 list") {
					t.Errorf("the verdict or the hint says what %s's row disproves (its current RV was read):\n%s", hung.Host(), r.Stdout)
				}
				if out == nil {
					return
				}
				var doc struct {
					Servers []struct {
						Endpoint     string `json:"endpoint"`
						CurrentKnown bool   `json:"currentKnown"`
						CacheKnown   bool   `json:"cacheKnown"`
						Hint         string `json:"hint"`
					} `json:"servers"`
				}
				if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.Servers) != 2 {
					t.Fatalf("-o json: %v:\n%s", err, r.Stdout)
				}
				if s := doc.Servers[1]; !s.CurrentKnown || s.CacheKnown || !strings.Contains(s.Hint, "rv=0 list") {
					t.Errorf("-o json: %+v: want its current RV, no cache RV, a hint of its rv=0 list", s)
				}
			})
		}
	}
}

// TestProbeProofsAreRefusedWithServers (adversary try 22 F6): --verify
// and --future prove something of one server's window, which the
// per-server view does not show: with --servers or --endpoints they are
// refused (exit 2), naming the flag, and nothing is sent (they were sent
// on every server and shown nowhere, and a verify that failed exited 0).
func TestProbeProofsAreRefusedWithServers(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "cm", "--verify", "--endpoints", "HOST"},
		{"probe", "cm", "--future", "--endpoints", "HOST"},
		{"probe", "--all", "--verify", "--endpoints", "HOST"},
		{"probe", "cm", "--verify", "--servers"},
		{"probe", "cm", "--future", "--servers", "-o", "json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			s, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50})
			r := framework.Run(t, kc, time.Minute, withHost(args, s.Host())...)
			flag := args[2] // (of probe --all too)
			if r.Code != 2 || !strings.Contains(r.Stderr, flag+" cannot be combined with --servers") {
				t.Errorf("exit %d, want 2 and a line naming %s:\n%s%s", r.Code, flag, r.Stdout, r.Stderr)
			}
			if sent := s.AskedPaths(); len(sent) != 0 {
				t.Errorf("requests sent for a refused run: %v", sent)
			}
		})
	}
}

// TestAListersRowInBreachGivesNoNumber (adversary try 41 F1): list
// --endpoints over a server whose lists break the List contract (its
// consistent list holds an item newer than the list's RV, and its RVs go
// back): its row gives no current RV, no cache RV and no lag, whichever
// of its reads broke it, and no verdict line over servers names it, in
// the table and -o json; the run exits 1 (an answer in breach leads).
func TestAListersRowInBreachGivesNoNumber(t *testing.T) {
	good, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50})
	bad, _ := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{80, 70}, Oldest: 50}) // its item is at RV 99
	endpoints := good.Host() + "," + bad.Host()
	r := framework.Run(t, kc, time.Minute, "list", "cm", "--endpoints", endpoints)
	badRow := lineWith(r.Stdout, " "+bad.Host()+" ")
	if r.Code != 1 || !strings.Contains(badRow, "ContractBreach") || !regexp.MustCompile(regexp.QuoteMeta(bad.Host())+`\s+\?\s+\?\s+\?\s`).MatchString(badRow) {
		t.Errorf("exit %d, want 1 and the row in breach without a number:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// The verdict may name it only as unknown (and in a suggested
	// command's --endpoints), never with a number of its own.
	for _, drawn := range []string{bad.Host() + " answers", "server " + bad.Host() + " has not seen", "RVs, server " + bad.Host(), bad.Host() + " (the RV"} {
		if strings.Contains(r.Stdout, drawn) {
			t.Errorf("a verdict line drawn from the server in breach (%q):\n%s", drawn, r.Stdout)
		}
	}
	if !strings.Contains(r.Stdout, bad.Host()+" unknown") {
		t.Errorf("the reconnect line does not say the server in breach is unknown:\n%s", r.Stdout)
	}
	j := framework.Run(t, kc, time.Minute, "list", "cm", "--endpoints", endpoints, "-o", "json")
	var doc struct {
		Servers []map[string]any `json:"servers"`
		Verdict map[string]any   `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || len(doc.Servers) != 2 || j.Code != 1 {
		t.Fatalf("-o json: exit %d, %v:\n%s%s", j.Code, err, j.Stdout, j.Stderr)
	}
	for _, row := range doc.Servers {
		if row["reason"] != "ContractBreach" {
			continue
		}
		if row["currentKnown"] != false || row["cacheKnown"] != false || row["lagKnown"] != false || row["lag"] != nil {
			t.Errorf("-o json: the row in breach gives numbers: %v", row)
		}
	}
	if v := doc.Verdict; v["largestLagServer"] == bad.Host() || v["commonToServer"] == bad.Host() || v["commonFromServer"] == bad.Host() {
		t.Errorf("-o json: the verdict drawn from the server in breach: %v", v)
	}
}
