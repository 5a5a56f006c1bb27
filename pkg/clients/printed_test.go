package clients_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/clients"
)

// shifted is a copy of evs moved by d in time, each request a new one
// (its auditID tagged) and, when user is not "", of that user.
func shifted(t *testing.T, evs []map[string]any, d time.Duration, tag, user string) []map[string]any {
	t.Helper()
	out := clone(evs)
	for _, e := range out {
		for _, k := range []string{"requestReceivedTimestamp", "stageTimestamp"} {
			at, err := time.Parse(time.RFC3339Nano, e[k].(string))
			if err != nil {
				t.Fatal(err)
			}
			e[k] = at.Add(d).Format(time.RFC3339Nano)
		}
		e["auditID"] = tag + e["auditID"].(string)
		if user != "" {
			set(e, "user.username", user)
		}
	}
	return out
}

var (
	timeOfDay = regexp.MustCompile(`\b\d\d:\d\d(:\d\d)?\b`)
	// dated: a time of day right after its date, or the end of a range
	// whose start has the date (the same day: Span gives the end its own
	// date otherwise).
	dated = regexp.MustCompile(`(\d{4}-\d\d-\d\d |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d to )$`)
)

// Every time clients prints, wherever it prints it (the header, the chart,
// the evidence of every pattern and herd), carries its date, on a log that
// spans three days with the same times of day on each (adversary try 20
// #12: "Per 1h4m0s, 09:36 to 09:36 UTC" for a 47 h log).
func TestEveryPrintedTimeCarriesItsDate(t *testing.T) {
	base := events(t)
	var poller, nobody []map[string]any
	for _, e := range base {
		if e["userAgent"] == "watchrv-e2e-poller" {
			poller = append(poller, e)
		}
		if e["user"].(map[string]any)["username"] == "nobody" {
			nobody = append(nobody, e)
		}
	}
	evs := append(clone(base), shifted(t, base, 24*time.Hour, "day2-", "")...)
	for _, e := range evs[len(base):] {
		set(e, "user.username", e["user"].(map[string]any)["username"].(string)+"-day2")
	}
	// The same poller a day and two hours later: its consistent lists
	// span two days.
	evs = append(evs, shifted(t, poller, 26*time.Hour, "later-", "")...)
	// A herd on the third day: the looping informer as three users.
	for _, u := range []string{"ds-a", "ds-b", "ds-c"} {
		evs = append(evs, shifted(t, nobody, 48*time.Hour, u, u)...)
	}
	r, human := analyzeAll(t, lines(t, evs), clients.Options{Top: 100})
	if len(r.Herds) == 0 {
		t.Fatal("no herd: the test's log is not what it means to be")
	}
	for _, loc := range timeOfDay.FindAllStringIndex(human, -1) {
		if !dated.MatchString(human[max(0, loc[0]-40):loc[0]]) {
			line := human[strings.LastIndex(human[:loc[0]], "\n")+1:]
			t.Errorf("a time without its date: %q in %q", human[loc[0]:loc[1]], line[:strings.Index(line, "\n")])
		}
	}
	for _, want := range []string{
		"from 2026-12-01 10:44:35 to 2026-12-03 10:45:26 UTC",                        // the header
		"Per 1h4m0s, 2026-12-01 10:40:00 to 2026-12-03 11:44:00 UTC",                 // the chart
		"of configmaps from 2026-12-01 10:44:41 to 2026-12-02 12:44:52 UTC",          // a pattern across two days
		"12 lists of configmaps from 2026-12-02 10:44:41 to 10:44:52 UTC, one every", // the second day's poller
		"from 2026-12-03 10:44:42 to 10:44:46 UTC: ds-a / watchrv-e2e-informer",      // a herd
	} {
		if !strings.Contains(human, want) {
			t.Errorf("the report lacks %q:\n%s", want, human)
		}
	}
}

// Span: the date always, the end's date when it is another day (across
// midnight too), in UTC whatever the times' zone.
func TestSpan(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ from, to, want string }{
		{"2026-12-01T10:00:00Z", "2026-12-01T10:05:09Z", "2026-12-01 10:00:00 to 10:05:09 UTC"},
		{"2026-12-01T23:59:00Z", "2026-12-02T00:01:00Z", "2026-12-01 23:59:00 to 2026-12-02 00:01:00 UTC"},
		{"2026-12-01T10:00:00Z", "2027-12-01T10:00:00Z", "2026-12-01 10:00:00 to 2027-12-01 10:00:00 UTC"},
		{"2026-12-01T20:00:00-05:00", "2026-12-01T21:00:00-05:00", "2026-12-02 01:00:00 to 02:00:00 UTC"},
		{"2026-12-01T18:00:00-05:00", "2026-12-01T20:00:00-05:00", "2026-12-01 23:00:00 to 2026-12-02 01:00:00 UTC"},
	} {
		if got := clients.Span(at(c.from), at(c.to)); got != c.want {
			t.Errorf("Span(%s, %s) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

// Values of the log that print like a placeholder, like another value, or
// like the separators of a name or a herd's list (adversary try 20 #12: a
// user named "(unauthenticated)" looked like the missing user).
var lookalikes = []string{
	"", "(unauthenticated)", "(no user agent)", "(no source IP)", "(no resource or path)", "(other resources)",
	`"(unauthenticated)"`, `"(no user agent)"`, `\"(unauthenticated)\"`, `"`, "(", ")", "x",
	"x / y", "x /", "/ y", "x / y / z", "x, y", "x,y", `x\y`, `x\ny`, "x\ny", `x\x1b`, "x\x1b", "x\ty", "x  y", "x y", " x", "x ", "\u00a0x",
}

// Each value of every field clients names (user, user agent, source IP,
// resource) prints as itself alone: a missing one as its placeholder, a
// real one that could be read as a placeholder or as another value quoted.
// N values of the log are N names in the human report.
func TestNoValueIsPrintedAsAnother(t *testing.T) {
	var list map[string]any
	for _, e := range events(t) {
		if e["verb"] == "list" && e["stage"] == "ResponseComplete" && e["userAgent"] == "watchrv-e2e-poller" {
			list = e
			break
		}
	}
	for _, field := range []string{"user.username", "userAgent", "sourceIPs", "objectRef.resource"} {
		var evs []map[string]any
		for i, v := range lookalikes {
			e := clone([]map[string]any{list})[0]
			e["auditID"] = fmt.Sprint(i, "-", e["auditID"])
			set(e, "user.username", "u")
			set(e, "userAgent", "ua")
			set(e, "sourceIPs", []any{"10.0.0.1"})
			if field == "sourceIPs" {
				set(e, field, []any{v})
			} else {
				set(e, field, v)
			}
			evs = append(evs, e)
		}
		r, human := analyzeAll(t, lines(t, evs), clients.Options{BySourceIP: true})
		printed := map[string]bool{}
		var names []string
		if field == "objectRef.resource" {
			// "" is no resource: the request's path names it.
			for _, res := range r.Clients[0].Resources {
				names = append(names, "  "+text.Inline(res.Resource))
			}
		} else {
			for _, c := range r.Clients {
				names = append(names, text.Inline(c.Name()))
			}
		}
		for _, n := range names {
			if printed[n] {
				t.Errorf("%s: two values print as %q", field, n)
			}
			printed[n] = true
			if !strings.Contains(human, "\n"+n+"\n") {
				t.Errorf("%s: the report does not print %q on a line of its own", field, n)
			}
		}
		if len(names) != len(lookalikes) {
			t.Errorf("%s: %d values of the log gave %d names: %q", field, len(lookalikes), len(names), names)
		}
		missing := map[string]string{"user.username": "(unauthenticated) / ua / 10.0.0.1", "userAgent": "u / (no user agent) / 10.0.0.1",
			"sourceIPs": "u / ua / (no source IP)", "objectRef.resource": "  /api/v1/namespaces/clients-a/configmaps"}[field]
		if !printed[missing] {
			t.Errorf("%s: the missing value is not printed as %q: %q", field, missing, names)
		}
	}
}

// A resource named like the one that holds a client's resources past
// maxResources is a resource of its own, never counted in it.
func TestNoResourceIsTakenForTheOthers(t *testing.T) {
	var list map[string]any
	for _, e := range events(t) {
		if e["verb"] == "list" && e["stage"] == "ResponseComplete" {
			list = e
			break
		}
	}
	var evs []map[string]any
	for i := 0; i <= 1001; i++ {
		e := clone([]map[string]any{list})[0]
		e["auditID"] = fmt.Sprint(i, "-", e["auditID"])
		set(e, "objectRef.resource", fmt.Sprint("r", i))
		if i == 0 {
			set(e, "objectRef.resource", "(other resources)")
		}
		evs = append(evs, e)
	}
	r, _ := analyzeAll(t, lines(t, evs), clients.Options{})
	got := map[string]int64{}
	for _, res := range r.Clients[0].Resources {
		got[res.Resource] = res.Requests
	}
	if got[`"(other resources)"`] != 1 || got["(other resources)"] != 2 {
		t.Errorf(`the resource "(other resources)" has %d request(s), want 1; the others %d, want 2`, got[`"(other resources)"`], got["(other resources)"])
	}
}
