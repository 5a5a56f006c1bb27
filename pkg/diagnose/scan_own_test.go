package diagnose

import (
	"fmt"
	"strings"
	"testing"
)

// Real log lines put together as a log shows them (adversary try 52):
// kubectl's and client-go's own lines when metrics-server is down, a
// reflector's lines, and a recorded -v=6 trace (testdata).
const (
	discovery503 = `I1207 22:00:00.000000    4123 round_trippers.go:553] GET https://127.0.0.1:6443/apis/metrics.k8s.io/v1beta1?timeout=32s 503 Service Unavailable in 3 milliseconds`
	memcache503  = `E1207 22:00:00.100000   91234 memcache.go:287] couldn't get resource list for metrics.k8s.io/v1beta1: the server is currently unable to handle the request`
	memcacheList = `E1207 22:00:00.000000    4123 memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: the server is currently unable to handle the request"`
	secret5xx    = `E1207 22:00:00.000000       1 reflector.go:158] "Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.Secret: failed to list *v1.Secret: an error on the server (\"unknown\") has prevented the request from succeeding (get secrets)"`
	cmWatch410   = `W1207 22:00:01.000000       1 reflector.go:561] k8s.io/client-go/informers/factory.go:160: watch of *v1.ConfigMap ended with: too old resource version: 5 (100)`
	cmWatchBare  = `W1207 22:00:01.000000    4123 reflector.go:561] watch of *v1.ConfigMap ended with: too old resource version`
	expiredEcho  = `Error from server (Expired): too old resource version: 5 (520)`
	expiredList  = `Error from server (Expired): The resourceVersion for the provided list is too old.`
	cmWatch200   = `I1207 22:00:00.000000 1 round_trippers.go:553] GET https://127.0.0.1:26562/api/v1/namespaces/demo/configmaps?allowWatchBookmarks=true&resourceVersion=5&watch=true 200 OK in 1 milliseconds`
	secretWatch  = `W1207 22:00:01.000000 1 reflector.go:561] k8s.io/client-go/informers/factory.go:160: watch of *v1.Secret ended with: too old resource version: 5 (100)`
)

// scanned is each finding of text as "line:kind:code".
func scanned(t *testing.T, text string) []string {
	t.Helper()
	var got []string
	if err := ScanLog(strings.NewReader(text), func(f Finding) {
		got = append(got, fmt.Sprintf("%d:%s:%d", f.Line, f.Kind, f.Code))
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// A weak 5xx line is the code line of the next error only when it is a
// bare code that error's kind can have: a line with a message of its own
// (the server is currently unable to handle the request) is its own error,
// and a 503 never gives a 410's words its code (adversary try 52 F1).
func TestAServerErrorLineIsItsOwnError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
		kind  string // ReadText's
		code  int32
	}{
		{"memcache then reflector 410", []string{memcache503, cmWatch410},
			[]string{"1:ServerError:503", "2:WatchCacheWindow:0"}, KindWatchCacheWindow, 0},
		{"kubectl's stderr, metrics-server down", []string{memcache503, memcache503, expiredList},
			[]string{"1:ServerError:503", "2:ServerError:503", "3:EtcdCompactedExactList:0"}, KindEtcdCompactedExactList, 0},
		{"discovery 503 then Error from server (Expired)", []string{discovery503, expiredEcho},
			[]string{"1:ServerError:503", "2:WatchCacheWindow:0"}, KindWatchCacheWindow, 0},
		{"discovery 503 then reflector 410", []string{discovery503, cmWatch410},
			[]string{"1:ServerError:503", "2:WatchCacheWindow:0"}, KindWatchCacheWindow, 0},
		{"numberless 410 after a 503 is not swallowed", []string{discovery503, memcacheList, cmWatchBare},
			[]string{"1:ServerError:503", "3:TooOldResourceVersion:0"}, KindTooOldResourceVersion, 0},
		{"another resource's 5xx is not swallowed", []string{secret5xx, cmWatch410},
			[]string{"1:ServerError:0", "2:WatchCacheWindow:0"}, KindWatchCacheWindow, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			if got := scanned(t, text); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			d, _ := ReadText(text, Context{})
			if d.Kind != tc.kind || d.Code != tc.code {
				t.Errorf("ReadText: %s code %d, want %s code %d", d.Kind, d.Code, tc.kind, tc.code)
			}
		})
	}
}

// A lone CR ends a line as LF does (adversary try 52 F2): the recorded
// trace of a watch's 200 OK and its ERROR event reads the same with LF,
// CRLF and CR-only line ends.
func TestALoneCREndsALine(t *testing.T) {
	lf := strings.Join(readLines(t, "expired-watch-kubectl-v6.log"), "\n")
	two := strings.Join([]string{`GET https://127.0.0.1:6443/api/v1/namespaces/demo/configmaps?limit=500&resourceVersion=0 200 OK in 5 milliseconds`, cmWatch410}, "\n")
	for _, tc := range []struct {
		name, text string
		want       []string
		kind, op   string
	}{
		{"recorded watch trace", lf, []string{"3:WatchCacheWindow:410"}, KindWatchCacheWindow, OpWatch},
		{"list 200 then a reflector 410", two, []string{"2:WatchCacheWindow:0"}, KindWatchCacheWindow, OpWatch},
	} {
		for _, end := range []string{"\n", "\r\n", "\r"} {
			t.Run(fmt.Sprintf("%s/%q", tc.name, end), func(t *testing.T) {
				text := strings.ReplaceAll(tc.text, "\n", end)
				if got := scanned(t, text); strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("findings %v, want %v", got, tc.want)
				}
				d, r := ReadText(text, Context{})
				if d.Kind != tc.kind || d.Operation != tc.op || r.Findings != 1 {
					t.Errorf("ReadText: %s %s, %d findings; want %s %s, 1", d.Kind, d.Operation, r.Findings, tc.kind, tc.op)
				}
			})
		}
	}
}

// A line that names its own Go type is never another resource's watch's
// error (adversary try 52 F8): after a configmaps watch's 200 OK, a
// *v1.Secret watch's 410 keeps no request (its type names secrets); a
// *v1.ConfigMap one is that watch's.
func TestAnErrorNamingItsTypeIsNotAnotherWatchs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		request bool
		conf    string
	}{
		{"*v1.Secret after a configmaps watch", []string{cmWatch200, secretWatch}, false, ConfidenceHigh},
		{"*v1.Secret after a configmaps watch at another RV", []string{strings.Replace(cmWatch200, "resourceVersion=5", "resourceVersion=650", 1), secretWatch}, false, ConfidenceHigh},
		{"*v1.ConfigMap after a configmaps watch", []string{cmWatch200, cmWatch410}, true, ConfidenceHigh},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := ReadText(strings.Join(tc.lines, "\n"), Context{})
			if (d.Request != nil) != tc.request || d.Confidence != tc.conf || d.Kind != KindWatchCacheWindow {
				t.Errorf("%s %s request %v, want WatchCacheWindow %s request %v", d.Kind, d.Confidence, d.Request, tc.conf, tc.request)
			}
			if !tc.request && d.Type == nil {
				t.Errorf("no Go type read")
			}
		})
	}
}
