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
	"time"
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

// listObject reads only the length of a list's items: decoding each item
// into an empty struct skips its fields without keeping anything.
type listObject struct {
	Items *[]struct{} `json:"items"`
}

// Code is the response code, 0 when the event has none (RequestReceived).
func (e *Event) Code() int {
	if e.ResponseStatus == nil {
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
	SendInitialEvents    bool
	AllowWatchBookmarks  bool
	// TimeoutSeconds is the watch's timeoutSeconds, 0 when not given.
	TimeoutSeconds int64
}

// ParseQuery parses a requestURI with net/url. A URI that does not parse
// gives an empty Query and false.
func ParseQuery(requestURI string) (Query, bool) {
	u, err := url.ParseRequestURI(requestURI)
	if err != nil {
		return Query{}, false
	}
	q := Query{Path: u.Path}
	if u.RawQuery == "" {
		return q, true
	}
	v, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return q, false
	}
	if rv, ok := v["resourceVersion"]; ok && len(rv) > 0 {
		q.ResourceVersion, q.HasRV = rv[0], rv[0] != ""
	}
	q.ResourceVersionMatch = v.Get("resourceVersionMatch")
	q.Limit, _ = strconv.ParseInt(v.Get("limit"), 10, 64)
	q.Continue = v.Get("continue") != ""
	q.Watch = boolParam(v.Get("watch"))
	q.SendInitialEvents = boolParam(v.Get("sendInitialEvents"))
	q.AllowWatchBookmarks = boolParam(v.Get("allowWatchBookmarks"))
	q.TimeoutSeconds, _ = strconv.ParseInt(v.Get("timeoutSeconds"), 10, 64)
	return q, true
}

// boolParam reads a query boolean the way the API server does
// (strconv.ParseBool: 1, t, true, ...).
func boolParam(s string) bool {
	b, _ := strconv.ParseBool(s)
	return b
}
