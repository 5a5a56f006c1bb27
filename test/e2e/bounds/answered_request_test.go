//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAnAnswerIsJudgedByTheRequestItAnswered: every diagnosis of a
// server's answer, whichever line says it (the error line, a relist's
// list step, a 429's sender), judges it against the request that got it
// as that request was sent (apiclient marks each answer with its query:
// diagnose.AnsweredContext). Adversary try 30:
//   - F1: the list step of watch --follow / --rv list sent no RV, and its
//     504 was read as "the request asked for RV 500", its bare 410 with a
//     pasted text's "cut or reworded";
//   - F2: a 429 "Too large resource version" is the watch cache's lag only
//     of a consistent read (a list with resourceVersion unset): a watch's
//     or a list's from RV 300 was said as that;
//   - F4: a request sent with RV 0 (any state) answered Expired was "RV 0
//     expired", fix "Relist".
func TestAnAnswerIsJudgedByTheRequestItAnswered(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	status := framework.StatusAnswer
	tooLarge := status(504, "Timeout", "Timeout: Too large resource version: 500, current: 400")
	bare410 := status(410, "Expired", "too old resource version")
	lag429 := status(429, "TooManyRequests", "Too large resource version: 500, current: 400")
	lag429.Head = "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 0"
	both := func(a framework.ScriptAnswer) map[string]framework.ScriptAnswer {
		return map[string]framework.ScriptAnswer{path: a, path + "?watch": a}
	}
	type want struct{ has, hasNot []string }
	for _, c := range []struct {
		name   string
		answer framework.ScriptAnswer
		args   []string
		want
	}{
		// F1: the list step sent no RV.
		{"follow relist 504", tooLarge, []string{"watch", "cm", "--follow", "--timeout", "3s"},
			want{[]string{"watch cache"}, []string{"asked for RV 500"}}},
		{"rv list 504", tooLarge, []string{"watch", "cm", "--rv", "list", "--timeout", "3s"},
			want{[]string{"watch cache"}, []string{"asked for RV 500"}}},
		{"follow relist bare 410", bare410, []string{"watch", "cm", "--follow", "--timeout", "3s"},
			want{[]string{"sent no resourceVersion"}, []string{"cut or reworded"}}},
		{"rv list bare 410", bare410, []string{"watch", "cm", "--rv", "list", "--timeout", "3s"},
			want{[]string{"sent no resourceVersion"}, []string{"cut or reworded"}}},
		// F4: RV 0 asks for any state.
		{"list rv 0 bare 410", bare410, []string{"list", "cm", "--rv", "0"},
			want{[]string{"sent resourceVersion 0"}, []string{"RV 0 expired"}}},
		{"watch rv 0 bare 410", bare410, []string{"watch", "cm", "--rv", "0", "--timeout", "3s"},
			want{[]string{"sent resourceVersion 0"}, []string{"RV 0 expired", "the last RV was answered"}}},
		// adversary try 31 F1: the watch cache's words to a list from RV
		// 300 name RV 5: inconsistent, and their numbers are there.
		{"list rv 300 window words", framework.StatusAnswer(410, "Expired", "too old resource version: 5 (300)"), []string{"list", "cm", "--rv", "300"},
			want{[]string{"the server's message names RV 5"}, []string{"has none of the numbers"}}},
		// adversary try 32 F3: their numbers are checked as a watch's.
		{"list rv 5 impossible window", framework.StatusAnswer(410, "Expired", "too old resource version: 5 (2)"), []string{"list", "cm", "--rv", "5"},
			want{[]string{"is not below the oldest servable RV 2"}, nil}},
		// fresh user try 31 F1, F2: a streaming list is a consistent read
		// whose lag is a 504, never the cacher's 429.
		{"streaming list 429", lag429, []string{"watch", "cm", "--send-initial-events", "--timeout", "3s"},
			want{[]string{"not the watch cache's answer"}, []string{"no consistent read", "its watch cache lags storage"}}},
		{"streaming list 504", tooLarge, []string{"watch", "cm", "--send-initial-events", "--timeout", "3s"},
			want{[]string{"consistent read was answered TooLarge"}, []string{"which no API server answers"}}},
		// F2: the cache's 429 answers a consistent read only.
		{"list 429 lag", lag429, []string{"list", "cm"},
			want{[]string{"its watch cache lags storage"}, nil}},
		{"list rv 300 429", lag429, []string{"list", "cm", "--rv", "300"},
			want{[]string{"not the watch cache's answer"}, []string{"its watch cache lags storage"}}},
		{"watch 429", lag429, []string{"watch", "cm", "--timeout", "3s"},
			want{[]string{"not the watch cache's answer"}, []string{"its watch cache lags storage"}}},
		{"watch rv 300 429", lag429, []string{"watch", "cm", "--rv", "300", "--timeout", "3s"},
			want{[]string{"not the watch cache's answer"}, []string{"its watch cache lags storage"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, kc := framework.ServeScript(t, both(c.answer))
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, c.args...)
			line := errorLine(r.Stderr)
			if line == "" || r.Code == 0 {
				t.Fatalf("exit %d and no error line:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
			}
			// The error line, and the diagnosis above it, say the answer
			// of the request that got it.
			said := line + "\n" + r.Stdout
			for _, w := range c.has {
				if !strings.Contains(said, w) {
					t.Errorf("%q is not said:\n%s\n%s", w, r.Stdout, r.Stderr)
				}
			}
			for _, w := range c.hasNot {
				if strings.Contains(said, w) {
					t.Errorf("%q is said of a request that cannot have got it:\n%s\n%s", w, r.Stdout, r.Stderr)
				}
			}
		})
	}
}

// TestARelistAfterRV0CountsNoAdvance (adversary try 31 F2): a relist after
// a watch from RV 0 (any state) has no point of the cluster's history to
// count from: "advanced 100 since RV 0" was a number derived from nothing.
func TestARelistAfterRV0CountsNoAdvance(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path + "?watch": framework.StatusAnswer(410, "Expired", "too old resource version")})
	r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "watch", "cm", "--rv", "0", "--follow", "--timeout", "3s")
	if !strings.Contains(r.Stdout, "RELIST") {
		t.Fatalf("exit %d: no relist after the 410:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "since RV 0") || !strings.Contains(r.Stdout, "no RV to count the cluster's advance from") {
		t.Errorf("the relist counts an advance from RV 0:\n%s", r.Stdout)
	}
}

// TestFollowRowsAreOfAnsweredStreams (fresh user try 31 F3, F7): with
// --follow, a watch's own 410 whose relist then failed has its row (no
// RELIST line came to name it), and the header is over rows, never over
// reconnect notes of watches that were never answered.
func TestFollowRowsAreOfAnsweredStreams(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	gone := framework.StatusAnswer(410, "Expired", "too old resource version")
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: gone, path + "?watch": gone})
	r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "watch", "cm", "--follow", "--timeout", "3s")
	if !strings.Contains(r.Stdout, "ERROR") || !strings.Contains(r.Stdout, "TIME ") {
		t.Errorf("exit %d: the watch's own 410, whose relist failed, has no row:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	// fresh user try 32 F1: a relist that fails with a retryable 500
	// until --timeout says, in each reconnect note, the answer it was for.
	broke := framework.StatusAnswer(500, "InternalError", "etcd exploded")
	_, kc = framework.ServeScript(t, map[string]framework.ScriptAnswer{path: broke, path + "?watch": gone})
	r = framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "watch", "cm", "--follow", "--timeout", "3s")
	if !strings.Contains(r.Stdout, "relist (after the API server answered watch configmaps with 410") {
		t.Errorf("exit %d: a failing relist does not say the watch answer it was for:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	busy := framework.StatusAnswer(503, "ServiceUnavailable", "busy")
	_, kc = framework.ServeScript(t, map[string]framework.ScriptAnswer{path + "?watch": busy})
	r = framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "watch", "cm", "--follow", "--timeout", "3s")
	if !strings.Contains(r.Stdout, "reconnect") || strings.Contains(r.Stdout, "TIME ") {
		t.Errorf("exit %d: a header over the reconnect notes of watches never answered:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestARetriedCheckReadIsNotTheWatchsRetries (adversary try 30 F3): the
// read of the current RV that checks watch --rv N says its own retries on
// its own line; the watch's error line after it says the watch's answer
// without them (it was sent once), where it said "(after 2 retries ...;
// first sent again after: 503 ...)" of a watch answered 500. The retries
// stay in the run's cost (-o json).
func TestARetriedCheckReadIsNotTheWatchsRetries(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	busy := framework.ScriptAnswer{Head: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 0",
		Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd leader changed","reason":"ServiceUnavailable","code":503}`}
	broke := framework.ScriptAnswer{Code: 500, Type: "application/json",
		Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"watch broke","reason":"InternalError","code":500}`}
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: busy, path + "?watch": broke})
	r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, "watch", "cm", "--rv", "300", "--timeout", "20s")
	line := errorLine(r.Stderr)
	if !strings.Contains(line, "answered watch configmaps with 500") {
		t.Fatalf("exit %d: the error line does not say the watch's 500:\n%s", r.Code, r.Stderr)
	}
	if strings.Contains(line, "retries") || strings.Contains(line, "503") {
		t.Errorf("the watch's error line says the check read's retries as its own:\n%s", r.Stderr)
	}
	if !strings.Contains(r.Stderr, "cannot read the current RV to check --rv 300") || !strings.Contains(r.Stderr, "retries and") {
		t.Errorf("the check read's warning does not say its retries:\n%s", r.Stderr)
	}
}

// errorLine is the "error: ..." line of stderr, "" when none.
func errorLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "error: ") {
			return l
		}
	}
	return ""
}
