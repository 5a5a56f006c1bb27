package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// runExplain runs the command line with stdin in and returns the exit code,
// stdout and stderr.
func runExplain(t *testing.T, in io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if in == nil {
		in = strings.NewReader("")
	}
	code := run(append([]string{"explain-error"}, args...), genericiooptions.IOStreams{In: in, Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func TestExplainErrorMessage(t *testing.T) {
	code, out, _ := runExplain(t, nil, "Error from server (Expired):", "too old resource version: 214 (257)")
	if code != ExitOK || !strings.HasPrefix(out, "Expired / WatchCacheWindow  (confidence: high)") || !strings.Contains(out, "requested 214 · oldest servable 257") {
		t.Fatalf("code %d:\n%s", code, out)
	}
}

func TestExplainErrorStdin(t *testing.T) {
	py := "Traceback (most recent call last):\nkubernetes.client.exceptions.ApiException: (410)\nReason: Expired: too old resource version: 123 (456)\n"
	for _, args := range [][]string{nil, {"-"}} {
		code, out, _ := runExplain(t, strings.NewReader(py), args...)
		if code != ExitOK || !strings.Contains(out, "WatchCacheWindow") || !strings.Contains(out, "Python kubernetes client") {
			t.Fatalf("args %v: code %d:\n%s", args, code, out)
		}
	}
}

// The note names a command that runs when pasted: the plugin's name, and
// for a text given as an argument (on no stdin) a file to save it to, where
// -f - would wait on the terminal (adversary try 52 F7).
func TestExplainErrorSeveralInOneMessage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin bool
		args  []string
		want  string
	}{
		{"piped", true, nil, "scan it as a log: pipe the same text to: kubectl watchrv explain-error --filename -"},
		{"stdin with -", true, []string{"-"}, "scan it as a log: pipe the same text to: kubectl watchrv explain-error --filename -"},
		{"argument", false, []string{testLog}, "scan it as a log: save the text to a file and run: kubectl watchrv explain-error --filename FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in io.Reader
			if tc.stdin {
				in = strings.NewReader(testLog)
			}
			code, out, errOut := runExplain(t, in, tc.args...)
			note := strings.Join(strings.Fields(errOut), " ")
			if code != ExitOK || !strings.Contains(note, "the input holds 3 errors of 2 kinds") || !strings.Contains(note, tc.want) || out == "" {
				t.Fatalf("code %d:\n%s\n%s", code, out, errOut)
			}
		})
	}
}

func TestExplainErrorOtherIsZero(t *testing.T) {
	code, out, _ := runExplain(t, nil, "HTTP/1.1 429 Too Many Requests")
	if code != ExitOK || !strings.HasPrefix(out, "Other / TooManyRequests") {
		t.Fatalf("code %d:\n%s", code, out)
	}
}

func TestExplainErrorUnrecognized(t *testing.T) {
	code, out, errOut := runExplain(t, nil, "pods \"web\" not found")
	if code != ExitUnrecognized || !strings.HasPrefix(out, "Unrecognized") || !strings.Contains(errOut, "no resourceVersion-related error") {
		t.Fatalf("code %d:\n%s\n%s", code, out, errOut)
	}
}

func TestExplainErrorJSON(t *testing.T) {
	code, out, _ := runExplain(t, nil, "-o", "json", "--rv", "77", "--operation", "watch", "The resourceVersion for the provided watch is too old.")
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m["class"] != "Expired" || m["kind"] != "EtcdCompactedWatch" || m["requestedResourceVersion"] != "77" || m["operation"] != "watch" {
		t.Fatalf("json = %v", m)
	}
}

func TestExplainErrorInputErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		in    io.Reader
		args  []string
		words string
	}{
		{"empty stdin", strings.NewReader(" \n"), nil, "stdin is empty"},
		{"empty stdin dash", strings.NewReader(""), []string{"-"}, "stdin is empty"},
		{"stdin too large", strings.NewReader(strings.Repeat("x", explainMaxMessageBytes+1)), nil, "use -f -"},
		{"empty message", nil, []string{" "}, "MESSAGE is empty"},
		{"missing file", nil, []string{"-f", filepath.Join(dir, "nope.log")}, "no such file"},
		{"directory", nil, []string{"-f", dir}, "is a directory"},
		{"message and file", nil, []string{"-f", "x.log", "msg"}, "not both"},
		{"rv with file", nil, []string{"-f", "x.log", "--rv", "5"}, "do not apply"},
		{"bad operation", nil, []string{"--operation", "get", "msg"}, "not a request kind"},
		{"bad rv", nil, []string{"--rv", "abc", "msg"}, "not a resourceVersion"},
		{"bad output", nil, []string{"-o", "wide", "msg"}, "unknown output format"},
		{"resource without check", nil, []string{"--resource", "pods", "msg"}, "add --check"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runExplain(t, c.in, c.args...)
			if code != ExitUsage || !strings.Contains(errOut, c.words) {
				t.Fatalf("code %d, stderr %q", code, errOut)
			}
		})
	}
}

const testLog = `I0101 10:00:00.000000       1 shared_informer.go:320] Caches are synced
W0508 18:04:04.833010       1 reflector.go:302] k8s.io/client-go/tools/cache/reflector.go:98: watch of *v1.Pod ended with: too old resource version: 100 (150)
E0105 21:08:43.745893       1 reflector.go:178] k8s.io/client-go/tools/cache/reflector.go:125: Failed to list *v1.Pod: Timeout: Too large resource version: 900, current: 800
W0508 18:09:04.833010       1 reflector.go:302] k8s.io/client-go/tools/cache/reflector.go:98: watch of *v1.Pod ended with: too old resource version: 150 (400)
`

func TestExplainErrorFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "controller.log")
	if err := os.WriteFile(path, []byte(testLog), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runExplain(t, nil, "-f", path)
	if code != ExitOK || !strings.Contains(out, "3 errors of 2 kinds") || !strings.Contains(out, "2 times, lines 2, 4") ||
		!strings.Contains(out, "2. TooLarge / ResourceVersionTooLarge") {
		t.Fatalf("code %d:\n%s", code, out)
	}

	code, out, _ = runExplain(t, strings.NewReader(testLog), "-f", "-", "-o", "json")
	var r struct {
		File     string `json:"file"`
		Lines    int    `json:"lines"`
		Findings int    `json:"findings"`
		Groups   []struct {
			Class  string `json:"class"`
			Kind   string `json:"kind"`
			Count  int    `json:"count"`
			Lines  []int  `json:"lines"`
			MaxGap string `json:"maxGap"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitOK {
		t.Fatalf("code %d, %v:\n%s", code, err, out)
	}
	if r.File != "stdin" || r.Lines != 4 || r.Findings != 3 || len(r.Groups) != 2 || r.Groups[0].Count != 2 ||
		r.Groups[0].Lines[1] != 4 || r.Groups[0].MaxGap != "250" || r.Groups[1].Kind != "ResourceVersionTooLarge" {
		t.Fatalf("report = %+v", r)
	}

	code, out, _ = runExplain(t, strings.NewReader("all good\n"), "-f", "-")
	if code != ExitUnrecognized || !strings.Contains(out, "no resourceVersion-related error found") {
		t.Fatalf("code %d:\n%s", code, out)
	}
}

// fakeAPIServer serves discovery for configmaps, a metadata list whose
// resourceVersion is rv, and, to a watch, the 410 ERROR event recorded from
// the real v1.37.2 server (pkg/probe/testdata); to a list not older than
// an RV above rv, the 504 TooLarge recorded from it: a list at rv would
// break the bound the request set (adversary try 25 F5).
func fakeAPIServer(t *testing.T, rv string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	reply := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("/api", reply(`{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`))
	mux.HandleFunc("/apis", reply(`{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`))
	mux.HandleFunc("/api/v1", reply(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]}`))
	expired, err := os.ReadFile(filepath.Join("..", "..", "pkg", "probe", "testdata", "cache-expired-event.json"))
	if err != nil {
		t.Fatal(err)
	}
	tooLarge, err := os.ReadFile(filepath.Join("..", "..", "pkg", "probe", "testdata", "toolarge-list.json"))
	if err != nil {
		t.Fatal(err)
	}
	mux.HandleFunc("/api/v1/namespaces/demo/configmaps", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			// The recorded event answered a watch from RV 1: the server
			// names the watch's own RV, so it names the RV asked here (an
			// answer naming another RV is inconsistent, and confirms
			// nothing: adversary try 28 F7).
			reply(strings.Replace(string(expired), "too old resource version: 1 (", "too old resource version: "+r.URL.Query().Get("resourceVersion")+" (", 1))(w, r)
			return
		}
		if r.URL.Query().Get("limit") != "1" {
			t.Errorf("the check must read one item, got %s", r.URL.RawQuery)
		}
		asked, _ := strconv.ParseUint(r.URL.Query().Get("resourceVersion"), 10, 64)
		if current, _ := strconv.ParseUint(rv, 10, 64); r.URL.Query().Get("resourceVersionMatch") == "NotOlderThan" && asked > current {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = w.Write(tooLarge)
			return
		}
		reply(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"`+rv+`"},"items":[]}`)(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "` + server + `"}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: demo}}]
current-context: c
users: [{name: u, user: {}}]
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExplainErrorCheck(t *testing.T) {
	srv := fakeAPIServer(t, "1214")
	kc := writeKubeconfig(t, srv.URL)
	code, out, errOut := runExplain(t, nil, "--kubeconfig", kc, "--cache-dir", t.TempDir(), "--check", "too old resource version: 214 (257)")
	if code != ExitOK || !strings.Contains(out, "Checked now    configmaps in namespace demo: RV 214 is 1000 behind the current RV 1214") ||
		!strings.Contains(strings.Join(strings.Fields(out), " "), "; tried: a watch from RV 214 fails (ERROR event 410 Expired") {
		t.Fatalf("code %d:\n%s\n%s", code, out, errOut)
	}
	// The label says "Checked now" once: its value does not again.
	if n := strings.Count(strings.ToLower(out), "checked now"); n != 1 {
		t.Errorf("\"checked now\" %d times:\n%s", n, out)
	}
	code, out, _ = runExplain(t, nil, "--kubeconfig", kc, "--cache-dir", t.TempDir(), "--check", "-o", "json", "Timeout: Too large resource version: 5000, current: 1200")
	var m struct {
		Class string `json:"class"`
		Check struct {
			CurrentResourceVersion string `json:"currentResourceVersion"`
			Ahead                  string `json:"ahead"`
			Namespace              string `json:"namespace"`
		} `json:"check"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || code != ExitOK || m.Check.CurrentResourceVersion != "1214" || m.Check.Ahead != "3786" || m.Check.Namespace != "demo" {
		t.Fatalf("code %d, %v:\n%s", code, err, out)
	}
}

func TestExplainErrorCheckUnreachable(t *testing.T) {
	kc := writeKubeconfig(t, "http://127.0.0.1:1")
	code, out, errOut := runExplain(t, nil, "--kubeconfig", kc, "--cache-dir", t.TempDir(), "--check", "too old resource version: 214 (257)")
	// The diagnosis is printed anyway; the exit code says why the check failed.
	if code != ExitUnreachable || !strings.HasPrefix(out, "Expired / WatchCacheWindow") || !strings.Contains(errOut, "--check") {
		t.Fatalf("code %d:\n%s\n%s", code, out, errOut)
	}
}

func TestExplainErrorHelp(t *testing.T) {
	code, out, _ := runExplain(t, nil, "--help")
	if code != ExitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--check") || !strings.Contains(out, "Exit codes") {
		t.Fatalf("code %d:\n%s", code, out)
	}
}

// A log rotated as .gz is scanned decompressed, from a file or stdin, as
// clients reads one (fresh user try 22: the compressed bytes were scanned,
// "no resourceVersion-related error found", exit 3); one cut short says
// so after what it read, exit 2.
func TestExplainErrorFileGzip(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(testLog))
	w.Close()
	dir := t.TempDir()
	whole := filepath.Join(dir, "controller.log.1.gz")
	if err := os.WriteFile(whole, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runExplain(t, nil, "-f", whole)
	if code != ExitOK || !strings.Contains(out, "3 errors of 2 kinds") || !strings.Contains(out, "2 times, lines 2, 4") {
		t.Fatalf("-f FILE.gz: code %d:\n%s", code, out)
	}
	code, out, _ = runExplain(t, bytes.NewReader(gz.Bytes()), "-f", "-")
	if code != ExitOK || !strings.Contains(out, "3 errors of 2 kinds") {
		t.Fatalf("-f - of gzip: code %d:\n%s", code, out)
	}
	cut := filepath.Join(dir, "cut.gz")
	if err := os.WriteFile(cut, gz.Bytes()[:gz.Len()-12], 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runExplain(t, nil, "-f", cut)
	if code != ExitUsage || !strings.Contains(errOut, "the gzip stream is cut short") {
		t.Fatalf("a cut gzip: code %d, stderr %q", code, errOut)
	}
}

// Two forms of one server's address compare equal (hostPort): the text's
// URL and the kubeconfig's server are told apart only when they differ.
func TestHostPortComparesOneAddress(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"https://127.0.0.1:6443", "127.0.0.1:6443"},
		{"https://Example.COM", "example.com:443"},
		{"http://h", "h:80"},
		{"https://[::1]:6443", "[::1]:6443"},
	} {
		if hostPort(c.a) != hostPort(c.b) || hostPort(c.a) == "" {
			t.Errorf("%s and %s: %q and %q", c.a, c.b, hostPort(c.a), hostPort(c.b))
		}
	}
	if hostPort("https://127.0.0.1:6443") == hostPort("https://127.0.0.1:6444") {
		t.Error("two ports compare equal")
	}
}

// TestExplainErrorOneTraceOfSeveralRequests: a recorded kubectl -v=6
// trace pasted as one message, its discovery requests' 200 OK lines
// first, is explained as -f explains it, with its own request's RV, as
// an argument and on stdin (fresh user try 51 F11: Unrecognized, exit 3,
// "the server answered 200 OK"); several errors are said, with the line
// of the one explained.
func TestExplainErrorOneTraceOfSeveralRequests(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../pkg/diagnose/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	discovery := read("discovery-kubectl-v6.log")
	// kubectl get prints no answer's body at -v=6: the trace as F11 pasted it.
	var exact strings.Builder
	exact.WriteString(discovery)
	for _, l := range strings.SplitAfter(read("expired-list-exact-kubectl-v6.log"), "\n") {
		if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "}]") && !strings.Contains(l, "helpers.go") {
			exact.WriteString(l)
		}
	}
	for _, in := range []struct {
		args  []string
		stdin string
	}{{[]string{exact.String()}, ""}, {nil, exact.String()}, {[]string{"-"}, exact.String()}} {
		code, out, errOut := runExplain(t, strings.NewReader(in.stdin), in.args...)
		if code != ExitOK || !strings.HasPrefix(out, "Expired / EtcdCompactedExactList  (confidence: high)") ||
			!strings.Contains(out, "requested 214") || !strings.Contains(out, "Request        list-exact") || strings.Contains(out, "200 OK") || errOut != "" {
			t.Fatalf("stdin %v: code %d:\n%s\n%s", in.stdin != "", code, out, errOut)
		}
	}
	code, out, errOut := runExplain(t, nil, discovery+read("toolarge-list-exact-kubectl-v6.log"))
	if code != ExitOK || !strings.HasPrefix(out, "TooLarge / ResourceVersionTooLarge  (confidence: high)") ||
		!strings.Contains(errOut, "the input holds 11 errors of one kind; this explains the one at line 27") {
		t.Fatalf("code %d:\n%s\n%s", code, out, errOut)
	}
}
