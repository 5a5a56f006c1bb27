package servers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

func TestParseEndpoints(t *testing.T) {
	got, err := ParseEndpoints([]string{"10.0.0.1:6443", " 10.0.0.2:6443", "10.0.0.1:6443", "[fd00::1]:6443"})
	if err != nil || len(got) != 3 || got[2] != "[fd00::1]:6443" {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"10.0.0.1", "10.0.0.1:0", "10.0.0.1:https", ":6443", "[10.0.0.1:5]:6443", "10.0.0.1\x1b[31m:6443", "a b:6443", "host/path:6443"} {
		if _, err := ParseEndpoints([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseEndpoints(nil); err == nil {
		t.Error("no endpoint accepted")
	}
	if got, err := ParseEndpoints([]string{"api-1.example.com:6443", "[fe80::1%eth0]:6443"}); err != nil || len(got) != 2 {
		t.Errorf("a DNS name or a zoned IPv6 address by hand: %v, %v", got, err)
	}
	var many []string
	for i := 0; i <= MaxServers; i++ {
		many = append(many, fmt.Sprintf("10.0.%d.%d:6443", i/250, i%250+1))
	}
	if _, err := ParseEndpoints(many[:MaxServers]); err != nil {
		t.Errorf("%d endpoints refused: %v", MaxServers, err)
	}
	if _, err := ParseEndpoints(many); err == nil || !strings.Contains(err.Error(), "65 endpoints given, more than the 64") {
		t.Errorf("%d endpoints: %v", len(many), err)
	}
}

// The URL of one server is built from its parts: an IPv6 zone is escaped
// as a URL writes it, and the scheme is there once.
func TestConfigForBuildsTheURLOnce(t *testing.T) {
	for addr, want := range map[string]string{
		"10.0.0.1:6443":       "https://10.0.0.1:6443",
		"[fd00::1]:6443":      "https://[fd00::1]:6443",
		"[fe80::1%eth0]:6443": "https://[fe80::1%25eth0]:6443",
	} {
		c, err := ConfigFor(&rest.Config{Host: "https://api.example.test:6443"}, addr)
		if err != nil || c.Host != want {
			t.Errorf("%s: got %v, %v, want %s", addr, c, err, want)
		}
	}
	_, err := ConfigFor(&rest.Config{Host: "https://api.example.test:6443"}, "10.0.0.9\x1b[31m:6443")
	if err == nil || strings.Contains(err.Error(), "://") || strings.Contains(err.Error(), "net/url") {
		t.Errorf("a host with a control character: %v", err)
	}
}

// Dialling one server keeps the kubeconfig's proxy, credentials and CA,
// and verifies TLS against the kubeconfig's server name; it never turns
// verification off.
func TestConfigForKeepsProxyAndVerifiesTheKubeconfigName(t *testing.T) {
	proxy, _ := url.Parse("http://127.0.0.1:3128")
	cfg := &rest.Config{Host: "https://api.example.test:6443", BearerToken: "t", Proxy: http.ProxyURL(proxy),
		TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}
	c, err := ConfigFor(cfg, "198.51.100.2:6443")
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "https://198.51.100.2:6443" || c.TLSClientConfig.ServerName != "api.example.test" || c.TLSClientConfig.Insecure {
		t.Fatalf("got host %s, TLS %+v", c.Host, c.TLSClientConfig)
	}
	if c.Proxy == nil || c.BearerToken != "t" || string(c.TLSClientConfig.CAData) != "ca" || c.Timeout != DefaultRequestTimeout {
		t.Fatalf("lost settings: %+v", c)
	}
	if cfg.Host != "https://api.example.test:6443" || cfg.TLSClientConfig.ServerName != "" {
		t.Fatal("the kubeconfig's config was changed")
	}
	cfg.TLSClientConfig.ServerName = "named"
	if c, _ := ConfigFor(cfg, "10.0.0.1:6443"); c.TLSClientConfig.ServerName != "named" {
		t.Fatal("an explicit tls-server-name was replaced")
	}
}

// The verdict is arithmetic over what the servers answered (the numbers
// of the lagging-server e2e run): the common range ends at the lagging
// server's cache RV, and only it answers 504 from the newest RV.
func TestDecideNamesTheLaggingServer(t *testing.T) {
	ss := []*Server{
		{Endpoint: "a", CurrentRV: 239, CurrentKnown: true, CacheRV: 239, CacheKnown: true, Oldest: 1, WindowKnown: true},
		{Endpoint: "b", CurrentRV: 239, CurrentKnown: true, CacheRV: 239, CacheKnown: true, Oldest: 100, WindowKnown: true},
		{Endpoint: "c", CacheRV: 234, CacheKnown: true},
	}
	for _, s := range ss[:2] {
		s.setLag(s.CurrentRV, "")
	}
	v := Decide(ss, 0)
	if v.LargestLagServer != "c" || v.LargestLag != 5 || ss[2].LagAgainst == "" {
		t.Fatalf("largest lag: %+v", v)
	}
	if !v.CommonKnown || v.CommonFrom != 100 || v.CommonFromServer != "b" || v.CommonTo != 234 || v.CommonToServer != "c" || !v.CommonToLagging || v.CommonEmpty {
		t.Fatalf("common range: %+v", v)
	}
	want := []string{AnswerStarts, AnswerStarts, AnswerTooLarge}
	for i, a := range v.Reconnect.Answers {
		if a.Answer != want[i] {
			t.Errorf("server %s: %s, want %s", a.Endpoint, a.Answer, want[i])
		}
	}
	v = Decide(ss, 50)
	if a := v.Reconnect.Answers[1]; a.Answer != AnswerExpired || a.By != 50 {
		t.Fatalf("from RV 50 on b: %+v", a)
	}
}

// Only what answered counts (issue 16 item 14): a server cut off from
// etcd (cache RV read, consistent list and window not) answers partly,
// its oldest RV is unknown; a refused server answers nothing and bounds
// nothing; the range is claimed for the servers with both bounds only.
func TestDecideCountsAndRangesOnlyWhatAnswered(t *testing.T) {
	cut := errors.New("no answer")
	ss := []*Server{
		{Endpoint: "a", CurrentRV: 374, CurrentKnown: true, CacheRV: 374, CacheKnown: true, Oldest: 1, WindowKnown: true},
		{Endpoint: "b", CacheRV: 349, CacheKnown: true, Err: cut, Error: cut.Error()},
		{Endpoint: "c", Err: cut, Error: cut.Error()},
	}
	ss[0].setLag(374, "")
	v := Decide(ss, 0)
	if v.Answered != 1 || v.AnsweredPartly != 1 || v.Servers != 3 {
		t.Fatalf("answered %d, partly %d of %d: want 1, 1 of 3", v.Answered, v.AnsweredPartly, v.Servers)
	}
	if fmt.Sprint(v.OldestUnknown) != "[b c]" || fmt.Sprint(v.NewestUnknown) != "[c]" || fmt.Sprint(v.Covered(ss)) != "[a]" {
		t.Fatalf("unknown oldest %v, newest %v, covered %v", v.OldestUnknown, v.NewestUnknown, v.Covered(ss))
	}
	if !v.CommonFromKnown || v.CommonFrom != 1 || v.CommonTo != 349 || v.CommonToServer != "b" {
		t.Fatalf("range %+v", v)
	}
	// list: no window anywhere, so the 410 side is unknown, not "from 0".
	for _, s := range ss {
		s.WindowKnown, s.Oldest = false, 0
	}
	if v := Decide(ss, 0); v.CommonFromKnown || v.CommonFrom != 0 || len(v.OldestUnknown) != 3 {
		t.Fatalf("no window measured: %+v", v)
	}
}

// oldestResourceVersion is a string in "probe --servers -o json" as in
// "probe -o json": one field, one type.
func TestOldestResourceVersionIsAString(t *testing.T) {
	b, err := json.Marshal(&Server{Oldest: 257})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"oldestResourceVersion":"257"`) {
		t.Fatalf("got %s, want \"oldestResourceVersion\":\"257\"", b)
	}
	var back Server
	if err := json.Unmarshal(b, &back); err != nil || back.Oldest != 257 {
		t.Fatalf("round trip: %v %d", err, back.Oldest)
	}
}

// Issue 25 item 12: a server without a watch cache for the resource (its
// probe met storage's 410) reads storage for its rv=0 list: it is named,
// it serves up to the newest RV, and its "lag" is no cache's lag.
func TestDecideServerWithoutWatchCache(t *testing.T) {
	on := &Server{Endpoint: "a:6443", CurrentRV: 224, CurrentKnown: true, CacheRV: 224, CacheKnown: true, Source: "watch-cache", Oldest: 200, WindowKnown: true}
	off := &Server{Endpoint: "b:6443", CurrentRV: 224, CurrentKnown: true, CacheRV: 230, CacheKnown: true, Source: "storage", Oldest: 221, WindowKnown: true}
	unknown := &Server{Endpoint: "c:6443", CurrentRV: 224, CurrentKnown: true, CacheRV: 224, CacheKnown: true, Source: "none", Oldest: 1, WindowKnown: true}
	for _, s := range []*Server{on, off, unknown} {
		s.setWatchCache("configmaps")
		s.setLag(s.CurrentRV, "")
	}
	if on.WatchCache != CacheOn || off.WatchCache != CacheOff || unknown.WatchCache != CacheUnknown {
		t.Fatalf("watch caches: %s %s %s", on.WatchCache, off.WatchCache, unknown.WatchCache)
	}
	v := Decide([]*Server{on, off, unknown}, 0)
	if len(v.NoWatchCache) != 1 || v.NoWatchCache[0] != "b:6443" || len(v.CacheUnknown) != 1 || v.CacheUnknown[0] != "c:6443" {
		t.Fatalf("no cache %v, unknown %v", v.NoWatchCache, v.CacheUnknown)
	}
	if v.LargestLagServer == "b:6443" || v.CommonFrom != 221 || v.CommonTo != 224 || v.CommonToLagging {
		t.Fatalf("verdict %+v", v)
	}
}

// E28 (issue 25): without a verified identity (insecure-skip-tls-verify,
// http://), the kubeconfig's credentials go only to the addresses given by
// hand and to its own server, never to one the EndpointSlices list.
func TestCheckDialableKeepsCredentialsToVerifiedOrGivenAddresses(t *testing.T) {
	listed := Found{From: FromEndpointSlice, Endpoints: []string{"10.0.0.5:6443", "198.51.100.9:6443"}}
	given := Found{From: FromFlag, Endpoints: listed.Endpoints}
	verified := &rest.Config{Host: "https://api.example.test:6443", BearerToken: "t", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}
	insecure := &rest.Config{Host: "https://10.0.0.5:6443", BearerToken: "t", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	plain := &rest.Config{Host: "http://10.0.0.5:6443", BearerToken: "t"}
	cases := []struct {
		name   string
		cfg    *rest.Config
		found  Found
		listed []string
	}{
		{"verified TLS, listed", verified, listed, nil},
		{"insecure, given by hand", insecure, given, nil},
		{"insecure, listed: its own server is fine, the other is not", insecure, listed, []string{"198.51.100.9:6443"}},
		{"plain http, listed", plain, listed, []string{"198.51.100.9:6443"}},
		{"insecure, only its own server listed", insecure, Found{From: FromEndpointSlice, Endpoints: []string{"10.0.0.5:6443"}}, nil},
		{"insecure, bare host:port", &rest.Config{Host: "10.0.0.5:6443", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, listed, []string{"198.51.100.9:6443"}},
	}
	for _, c := range cases {
		err := CheckDialable(c.cfg, c.found)
		var ue *UnverifiedError
		if c.listed == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.As(err, &ue) || fmt.Sprint(ue.Listed) != fmt.Sprint(c.listed) {
			t.Errorf("%s: got %v, want the listed %v refused", c.name, err, c.listed)
		}
	}
}
