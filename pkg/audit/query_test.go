package audit

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// serverQuery is what the API server reads of a requestURI: req.URL.Query()
// (its error ignored, as the server does), the first value of each
// parameter, and each boolean with apimachinery's own conversion.
func serverQuery(t *testing.T, uri string) Query {
	t.Helper()
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		t.Fatalf("%s: %v", uri, err)
	}
	v := u.Query()
	serverBool := func(k string) bool {
		in, b := v[k], false
		if err := runtime.Convert_Slice_string_To_bool(&in, &b, nil); err != nil {
			t.Fatal(err)
		}
		return b
	}
	// sendInitialEvents is a *bool: read by the generated conversion
	// itself (nil when absent), alone, so that no other parameter's
	// error stops it.
	var lo metav1.ListOptions
	sie := url.Values{"sendInitialEvents": v["sendInitialEvents"]}
	if err := metav1.Convert_url_Values_To_v1_ListOptions(&sie, &lo, nil); err != nil {
		t.Fatal(err)
	}
	q := Query{Path: u.Path, ResourceVersion: v.Get("resourceVersion"), HasRV: v.Get("resourceVersion") != "",
		ResourceVersionMatch: v.Get("resourceVersionMatch"), Continue: v.Get("continue") != "",
		Watch: serverBool("watch"), AllowWatchBookmarks: serverBool("allowWatchBookmarks"),
		SendInitialEvents: lo.SendInitialEvents != nil && *lo.SendInitialEvents, SendInitialEventsSet: lo.SendInitialEvents != nil}
	q.Limit, _ = strconv.ParseInt(v.Get("limit"), 10, 64)
	q.TimeoutSeconds, _ = strconv.ParseInt(v.Get("timeoutSeconds"), 10, 64)
	return q
}

// ParseQuery reads what the API server reads, on every recorded
// requestURI and on encoded, repeated, dropped and odd parameters.
func TestParseQueryEqualsTheServers(t *testing.T) {
	uris := []string{
		"/api/v1/configmaps?resourceVersion=5&resourceVersion=7&limit=%35%30",
		"/api/v1/configmaps?resource%56ersion=9&watch=1&timeoutSeconds=30",
		"/api/v1/configmaps?continue=a%2Bb%3D&limit=2",
		// A pair with a ";" is dropped by net/url, not split; the next
		// pair of the same key is then the first value.
		"/api/v1/configmaps?watch=0;x=1&watch=yes&resourceVersion=3;&resourceVersion=4",
		"/api/v1/configmaps?sendInitialEvents=true;&resourceVersionMatch=NotOlderThan&watch",
		// An escape that does not decode drops its pair only.
		"/api/v1/configmaps?watch=%zz&watch=0&resourceVersion=%&resourceVersion=8&limit=1",
		"/api/v1/configmaps?%zz=1&allowWatchBookmarks=&watch=+0",
		"/api/v1/configmaps?watch=&&=1&sendInitialEvents=False&allowWatchBookmarks=no",
		// Past net/url's bound on pairs, the server reads no parameter.
		"/api/v1/configmaps?watch=1&resourceVersion=5" + strings.Repeat("&x=1", maxQueryParams),
		"/api/v1/configmaps?watch=1&resourceVersion=5" + strings.Repeat("&x=1", maxQueryParams-2),
	}
	for _, l := range recordedLines(t) {
		var e Event
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		uris = append(uris, e.RequestURI)
	}
	for _, uri := range uris {
		got, ok := ParseQuery(uri)
		if want := serverQuery(t, uri); !ok || got != want {
			t.Errorf("%.120s:\n got %+v %v\nwant %+v", uri, got, ok, want)
		}
	}
}

// Every query boolean clients reads, in every spelling: the server's rule
// (only absent, "0" and "false" in any case are false), never
// strconv.ParseBool's (adversary try 20 #13: watch=yes&sendInitialEvents=yes
// is a streaming list, not a watch with RV unset).
func TestQueryBooleansAreReadAsTheServerReadsThem(t *testing.T) {
	params := map[string]func(Query) bool{
		"watch":               func(q Query) bool { return q.Watch },
		"sendInitialEvents":   func(q Query) bool { return q.SendInitialEvents },
		"allowWatchBookmarks": func(q Query) bool { return q.AllowWatchBookmarks },
	}
	spellings := []struct {
		query string // after "name"
		want  bool
	}{
		{"=true", true}, {"=1", true}, {"=True", true}, {"=TRUE", true}, {"=t", true},
		{"=yes", true}, {"=y", true}, {"=on", true}, {"=no", true}, {"=f", true}, {"=F", true},
		{"=", true}, {"", true}, {"=00", true}, {"=+0", true}, {"=-1", true}, {"=2", true},
		{"=0", false}, {"=false", false}, {"=False", false}, {"=FALSE", false}, {"=fAlSe", false},
		{"=%30", false}, {"=%66alse", false},
		{"=0&{}=1", false}, {"=yes&{}=0", true}, // the first value counts
	}
	for name, field := range params {
		if got := field(mustParse(t, "/api/v1/pods?limit=1")); got {
			t.Errorf("%s absent: read as true", name)
		}
		for _, sp := range spellings {
			uri := "/api/v1/pods?" + name + strings.ReplaceAll(sp.query, "{}", name)
			if want := field(serverQuery(t, uri)); want != sp.want {
				t.Fatalf("%s: the table says %v, apimachinery %v", uri, sp.want, want)
			}
			if got := field(mustParse(t, uri)); got != sp.want {
				t.Errorf("%s: read as %v, the API server reads %v", uri, got, sp.want)
			}
		}
	}
}

// sendInitialEvents is optional (a *bool): given in any spelling, false
// included, it is set, and a watch from resourceVersion unset or 0 gets
// no state; absent (or in a pair the server drops), it is not, and the
// same watch gets the whole state.
func TestSendInitialEventsGivenIsToldFromAbsent(t *testing.T) {
	for _, c := range []struct {
		query string
		set   bool
	}{
		{"watch=1", false}, {"watch=1&sendInitialEvents=false", true}, {"watch=1&sendInitialEvents=0", true},
		{"watch=1&sendInitialEvents=", true}, {"watch=1&sendInitialEvents", true}, {"watch=1&sendInitialEvents=true", true},
		{"watch=1&sendInitialEvents=0;x", false}, {"watch=1&sendInitialEvents=%zz", false},
		{"watch=1&sendInitialEvents=%zz&sendInitialEvents=false", true},
	} {
		uri := "/api/v1/pods?" + c.query
		if want := serverQuery(t, uri).SendInitialEventsSet; want != c.set {
			t.Fatalf("%s: the table says given %v, apimachinery %v", uri, c.set, want)
		}
		if got := mustParse(t, uri).SendInitialEventsSet; got != c.set {
			t.Errorf("%s: read as given %v, the API server reads %v", uri, got, c.set)
		}
	}
}

func mustParse(t *testing.T, uri string) Query {
	t.Helper()
	q, ok := ParseQuery(uri)
	if !ok {
		t.Fatalf("%s: not parsed", uri)
	}
	return q
}
