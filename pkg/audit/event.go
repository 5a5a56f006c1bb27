// Package audit reads Kubernetes API server audit logs (audit.k8s.io/v1
// Event JSON lines, as the log backend writes them) as a stream: one event at
// a time, in time order across several files, with the lines it cannot read
// counted instead of stopping the read. It keeps only the fields an analysis
// of List/Watch traffic needs, so that memory does not grow with the log.
//
// k8s.io/apiserver's audit types are not used: the plugin's go.mod does not
// carry k8s.io/apiserver, and these fields are the stable part of the v1
// schema (the same since audit.k8s.io/v1 replaced v1beta1 in Kubernetes 1.12).
package audit

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
)

// Stages of an audit event (audit.k8s.io/v1 Stage).
const (
	StageRequestReceived  = "RequestReceived"
	StageResponseStarted  = "ResponseStarted"
	StageResponseComplete = "ResponseComplete"
	StagePanic            = "Panic"
)

// Event is the part of an audit.k8s.io/v1 Event this package reads, plus
// the query of its requestURI, parsed.
type Event struct {
	Level      string     `json:"level"`
	AuditID    string     `json:"auditID"`
	Stage      string     `json:"stage"`
	RequestURI string     `json:"requestURI"`
	Verb       string     `json:"verb"`
	User       User       `json:"user"`
	SourceIPs  []string   `json:"sourceIPs"`
	UserAgent  string     `json:"userAgent"`
	ObjectRef  *ObjectRef `json:"objectRef"`
	// ResponseStatus is absent at stage RequestReceived.
	ResponseStatus *Status `json:"responseStatus"`
	// ResponseObject is recorded at level RequestResponse only; its items
	// are counted, never kept.
	ResponseObject *listObject `json:"responseObject"`

	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`

	// Query is requestURI's query, parsed (not part of the JSON).
	Query Query `json:"-"`
	// Items is the item count of a list's response object, -1 when the
	// level does not record it (not part of the JSON).
	Items int `json:"-"`
	// ResponseRV is the response object's metadata.resourceVersion (a
	// list's RV, or an object's), "" when the level does not record it:
	// an RV the server had reached, measured (not part of the JSON).
	ResponseRV string `json:"-"`
}

// User is the authenticated user of a request.
type User struct {
	Username string `json:"username"`
}

// ObjectRef names what a resource request was about.
type ObjectRef struct {
	Resource    string `json:"resource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	APIGroup    string `json:"apiGroup"`
	APIVersion  string `json:"apiVersion"`
	Subresource string `json:"subresource"`
}

// Status is the response's status (only the code is read).
type Status struct {
	Code int `json:"code"`
}

// listObject reads only the length of a list's items (decoding each item
// into an empty struct skips its fields without keeping anything) and the
// response's resourceVersion.
type listObject struct {
	Items    *[]struct{} `json:"items"`
	Metadata *listMeta   `json:"metadata"`
}

type listMeta struct {
	ResourceVersion string `json:"resourceVersion"`
}

// Every field an Event keeps is bounded, whatever the log holds (a client
// chooses its user agent and its path; the API server's own limit is 1 MB
// of headers): a longer value keeps its first bytes and says its length,
// so that memory is bounded by the number of events held, not their size.
// Values this long are no real user agent, path or name.
const (
	MaxField   = 512 // a string field
	maxRVField = 64  // resourceVersion, resourceVersionMatch, auditID
	maxIPs     = 4   // source IPs kept (the analysis reads the first)
)

// bound cuts every kept field to its limit (after the query is parsed).
func (e *Event) bound() {
	for _, f := range []*string{&e.Level, &e.Stage, &e.Verb, &e.RequestURI, &e.User.Username, &e.UserAgent, &e.Query.Path} {
		*f = cut(*f, MaxField)
	}
	for _, f := range []*string{&e.AuditID, &e.ResponseRV, &e.Query.ResourceVersion, &e.Query.ResourceVersionMatch} {
		*f = cut(*f, maxRVField)
	}
	if len(e.SourceIPs) > maxIPs {
		e.SourceIPs = e.SourceIPs[:maxIPs]
	}
	for i := range e.SourceIPs {
		e.SourceIPs[i] = cut(e.SourceIPs[i], maxRVField)
	}
	if o := e.ObjectRef; o != nil {
		for _, f := range []*string{&o.Resource, &o.Namespace, &o.Name, &o.APIGroup, &o.APIVersion, &o.Subresource} {
			*f = cut(*f, MaxField)
		}
	}
}

// cut keeps the first max bytes of s (at a rune's start) and its length.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "…[" + strconv.Itoa(len(s)) + " bytes]"
}

// Code is the response code, 0 when the event has none (RequestReceived).
// A code no HTTP answer has (below 100 or above 999: the log is untrusted)
// is 0 too.
func (e *Event) Code() int {
	if e.ResponseStatus == nil || e.ResponseStatus.Code < 100 || e.ResponseStatus.Code > 999 {
		return 0
	}
	return e.ResponseStatus.Code
}

// Done reports whether this event is the last of its request
// (ResponseComplete, or Panic).
func (e *Event) Done() bool { return e.Stage == StageResponseComplete || e.Stage == StagePanic }

// Query is what the requestURI's query says about a get, list or watch.
type Query struct {
	Path string
	// ResourceVersion is the resourceVersion parameter; HasRV tells "" from
	// absent (both mean "unset" to the server).
	ResourceVersion string
	HasRV           bool
	// ResourceVersionMatch is Exact, NotOlderThan or "".
	ResourceVersionMatch string
	Limit                int64
	Continue             bool
	Watch                bool
	// SendInitialEvents is the parameter's value; SendInitialEventsSet
	// says it was given at all (the server's ListOptions.SendInitialEvents
	// is then not nil): a watch from resourceVersion unset or 0 without it
	// gets the whole state (the legacy default), with it false only the
	// changes.
	SendInitialEvents    bool
	SendInitialEventsSet bool
	AllowWatchBookmarks  bool
	// TimeoutSeconds is the watch's timeoutSeconds, 0 when not given.
	TimeoutSeconds int64
}

// ParseQuery parses a requestURI's query as the API server does: it reads
// req.URL.Query() (net/url.ParseQuery, whose error it ignores) and the
// first value of each parameter. So a pair holding a ";" or an escape that
// does not decode is dropped, never the rest of the query, and a query of
// more than maxQueryParams pairs is read as none. A URI that does not
// parse gives an empty Query and false.
func ParseQuery(requestURI string) (Query, bool) {
	u, err := url.ParseRequestURI(requestURI)
	if err != nil {
		return Query{}, false
	}
	q := Query{Path: u.Path}
	if u.RawQuery == "" || strings.Count(u.RawQuery, "&")+1 > maxQueryParams {
		return q, true
	}
	var seen uint8
	// The pairs one by one, unescaped with net/url only where needed: no
	// map per request (this runs for every line of the log).
	for rest := u.RawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if strings.Contains(pair, ";") {
			continue // net/url drops it (no longer a separator since Go 1.17)
		}
		k, v, _ := strings.Cut(pair, "=")
		if strings.ContainsAny(k, "%+") {
			if k, err = url.QueryUnescape(k); err != nil {
				continue
			}
		}
		bit := paramBit(k)
		if bit == 0 || seen&bit != 0 {
			continue // not read, or not its first value (url.Values.Get's rule)
		}
		if strings.ContainsAny(v, "%+") {
			if v, err = url.QueryUnescape(v); err != nil {
				continue // dropped: a later pair may give the first value
			}
		}
		seen |= bit
		switch k {
		case "resourceVersion":
			q.ResourceVersion, q.HasRV = v, v != ""
		case "resourceVersionMatch":
			q.ResourceVersionMatch = v
		case "limit":
			q.Limit, _ = strconv.ParseInt(v, 10, 64)
		case "continue":
			q.Continue = v != ""
		case "watch":
			q.Watch = boolParam(v)
		case "sendInitialEvents":
			q.SendInitialEvents, q.SendInitialEventsSet = optionalBoolParam(v)
		case "allowWatchBookmarks":
			q.AllowWatchBookmarks = boolParam(v)
		case "timeoutSeconds":
			q.TimeoutSeconds, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return q, true
}

// maxQueryParams is net/url's bound on a query's pairs (Go 1.26, the Go
// of kube-apiserver v1.37.2): beyond it url.ParseQuery gives no value at
// all, so the server reads none of them.
const maxQueryParams = 10000

// paramBit numbers the parameters ParseQuery reads (0: not read).
func paramBit(k string) uint8 {
	switch k {
	case "resourceVersion":
		return 1
	case "resourceVersionMatch":
		return 2
	case "limit":
		return 4
	case "continue":
		return 8
	case "watch":
		return 16
	case "sendInitialEvents":
		return 32
	case "allowWatchBookmarks":
		return 64
	case "timeoutSeconds":
		return 128
	}
	return 0
}

// boolParam reads a present query boolean with the API server's own rule,
// apimachinery's runtime.Convert_Slice_string_To_bool: "0" and "false" (in
// any case) are false, every other value is true, "" (?watch, ?watch=)
// and "yes" included. strconv.ParseBool is not that rule: it refuses
// "yes" and "", which the server serves as true (adversary try 20 #13).
func boolParam(s string) bool {
	in, b := []string{s}, false
	_ = runtime.Convert_Slice_string_To_bool(&in, &b, nil) // never fails
	return b
}

// optionalBoolParam reads a present optional query boolean (a *bool of
// ListOptions: sendInitialEvents) with the API server's own rule,
// apimachinery's runtime.Convert_Slice_string_To_Pointer_bool, which the
// generated conversion calls only for a parameter given: given, it is set
// (true or false by the rule of boolParam); absent, nil.
func optionalBoolParam(s string) (value, set bool) {
	in, p := []string{s}, (*bool)(nil)
	_ = runtime.Convert_Slice_string_To_Pointer_bool(&in, &p, nil) // never fails
	if p == nil {
		return false, false
	}
	return *p, true
}
