package framework

import (
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Answers no API server gives a get, list or watch (adversary try 10),
// each the one Fault of a FaultServer, for lists and watches of configmaps
// (and /metrics where named).
const (
	// FaultUpgrade: a 101 Switching Protocols head, then the connection
	// is held silent (lists, watches and /metrics).
	FaultUpgrade Fault = "upgrade"
	// FaultNoContent: a 204 No Content to every list and watch.
	FaultNoContent Fault = "no-content"
	// FaultStatusInList: a 200 whose body is a Status of 410 Expired.
	FaultStatusInList Fault = "status-in-list"
	// FaultCodeMismatch: a 404 whose Status says code 200.
	FaultCodeMismatch Fault = "code-mismatch"
	// FaultTrickleErrorBody: a 410 head at once, its Status one byte
	// every 100 ms, for ever.
	FaultTrickleErrorBody Fault = "trickle-error-body"
	// FaultProtobufText: a 404 typed as protobuf whose body is text.
	FaultProtobufText Fault = "protobuf-text"
	// FaultStatusNoFailure: a 403 whose Status has no "status" field.
	FaultStatusNoFailure Fault = "status-no-failure"
	// FaultListEndsEarly: a 200 list that ends, cleanly, after its
	// metadata, between two tokens.
	FaultListEndsEarly Fault = "list-ends-early"
	// FaultHugeHeaders: a 200 whose headers hold 11 MiB, past net/http's
	// 10 MiB limit.
	FaultHugeHeaders Fault = "huge-headers"
	// FaultEndlessEarlyHints: 103 Early Hints of 64 KiB each, for ever.
	FaultEndlessEarlyHints Fault = "endless-early-hints"
)

// FaultErrorEvent is the fault whose every watch is a 200 holding one ERROR
// event of variant: "string-code" (a code that is a string), "configmap"
// (an object that is no Status), "null" (no object), "code-200" (a
// Status of success's code), "expired-200", "expired-999", "expired--5",
// "expired-0" (reason Expired with a code that is no 410, no error's),
// "expired-absent", "expired-null" (reason Expired and no code).
// Lists are answered as usual.
func FaultErrorEvent(variant string) Fault { return Fault("error-event-" + variant) }

// FaultCoreDiscovery is the fault whose core discovery document (GET
// /api/v1) is answered with variant: "503", "403", "404" and "429" (a
// Status of that code), "empty" (a 200 without a body), "204" (No
// Content), "cut" (a 200 whose JSON ends half way), "hang" (no answer
// until the client gives up), "none" (a document that lists no resource
// type: valid, and no API server serves it). /api and /apis answer as
// usual.
func FaultCoreDiscovery(variant string) Fault { return Fault("core-discovery-" + variant) }

func (s *FaultServer) coreDiscovery(w http.ResponseWriter, r *http.Request) bool {
	switch strings.TrimPrefix(string(s.Fault), "core-discovery-") {
	case "503":
		s.json(w, 503, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from server","reason":"ServiceUnavailable","code":503}`)
	case "403":
		s.json(w, 403, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden: User \"fault\" cannot get path \"/api/v1\"","reason":"Forbidden","code":403}`)
	case "404":
		s.json(w, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom: no such path","reason":"NotFound","code":404}`)
	case "429":
		w.Header().Set("Retry-After", "1")
		s.json(w, 429, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too many requests, please try again later","reason":"TooManyRequests","code":429}`)
	case "hang":
		s.wait(r.Context(), 10*time.Minute)
	case "none":
		s.json(w, 200, `{"kind":"APIResourceList","groupVersion":"v1","resources":[]}`)
	case "empty":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
	case "204":
		w.WriteHeader(http.StatusNoContent)
	case "cut":
		s.json(w, 200, faultCoreV1[:len(faultCoreV1)/2])
	default:
		return false
	}
	return true
}

// FaultRootDiscovery is the fault whose root discovery documents answer
// with variant: "api-503" (/api: a 503 Status saying "api down"),
// "apis-403" (/apis: a 403 Status saying "apis forbidden for you"),
// "api-504" (/api: the 504 of a request's own timeout), "api-html" (/api: a
// 502 page of HTML), "api-500-trickle" (/api: a 500 head, then its Status
// one byte every 100 ms, for ever), "api-reset" (/api: the connection
// reset, no answer), and for either root ("api-" or "apis-" before it)
// "204" (No Content), "empty" (a 200 without a body), "cut" (a 200 whose
// JSON ends half way). client-go's discovery keeps only a
// text of its own for such answers; the plugin must say the server's.
func FaultRootDiscovery(variant string) Fault { return Fault("root-discovery-" + variant) }

func (s *FaultServer) rootDiscovery(w http.ResponseWriter, r *http.Request, p string) bool {
	switch v := strings.TrimPrefix(string(s.Fault), "root-discovery-"); {
	case v == "api-503" && p == "/api":
		s.json(w, 503, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"api down","reason":"ServiceUnavailable","code":503}`)
	case v == "apis-403" && p == "/apis":
		s.json(w, 403, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"apis forbidden for you","reason":"Forbidden","code":403}`)
	case v == "api-504" && p == "/api":
		s.json(w, 504, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"request did not complete within requested timeout - context deadline exceeded","reason":"Timeout","code":504}`)
	case v == "api-reset" && p == "/api":
		// A TCP reset for an answer (SO_LINGER 0, then close).
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				if tc, ok := c.(*net.TCPConn); ok {
					_ = tc.SetLinger(0)
				}
				_ = c.Close()
			}
		}
	case v == "api-500-trickle" && p == "/api":
		s.trickle(w, r, 500, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"api boom`+"")
	case strings.HasSuffix(v, "-204") && p == "/"+strings.TrimSuffix(v, "-204"):
		w.WriteHeader(http.StatusNoContent)
	case strings.HasSuffix(v, "-empty") && p == "/"+strings.TrimSuffix(v, "-empty"):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
	case v == "api-cut" && p == "/api":
		s.json(w, 200, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"client`)
	case v == "apis-cut" && p == "/apis":
		s.json(w, 200, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","vers`)
	case v == "api-html" && p == "/api":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		_, _ = io.WriteString(w, "<html>lb says bad gateway</html>")
	default:
		return false
	}
	return true
}

// FaultGroupDiscovery is the fault whose /apis lists the group apps/v1
// (aggregated discovery aside: the legacy documents), and whose document
// GET /apis/apps/v1 answers variant: "403" and "504" (a Status of that
// code), "html" (a 200 page of HTML), "hang" (no answer until the client
// gives up), "two" (a 403, and /apis lists batch/v1 too, which answers
// 500). The core group answers as usual.
func FaultGroupDiscovery(variant string) Fault { return Fault("group-discovery-" + variant) }

func (s *FaultServer) groupDiscovery(w http.ResponseWriter, r *http.Request, p string) bool {
	switch v := strings.TrimPrefix(string(s.Fault), "group-discovery-"); {
	case p == "/apis":
		s.json(w, 200, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},{"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}],"preferredVersion":{"groupVersion":"batch/v1","version":"v1"}}]}`)
	case p == "/apis/batch/v1" && v == "two":
		s.json(w, 500, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"batch is broken","reason":"InternalError","code":500}`)
	case p == "/apis/batch/v1":
		s.json(w, 200, `{"kind":"APIResourceList","groupVersion":"batch/v1","resources":[]}`)
	case p != "/apis/apps/v1":
		return false
	case v == "403" || v == "two":
		s.json(w, 403, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"apps is forbidden for you","reason":"Forbidden","code":403}`)
	case v == "504":
		s.json(w, 504, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"request did not complete within requested timeout - context deadline exceeded","reason":"Timeout","code":504}`)
	case v == "html":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "<html>apps</html>")
	case v == "hang":
		s.wait(r.Context(), 10*time.Minute)
	case v == "endless":
		s.endless(w, r, 200, `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"`, "deployments")
	default:
		return false
	}
	return true
}

var errorEvents = map[string]string{
	"string-code": `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from server","code":"410"}}`,
	"configmap":   `{"type":"ERROR","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}`,
	"null":        `{"type":"ERROR","object":null}`,
	"code-200":    `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Success","message":"boom from server","code":200}}`,
	// Reason Expired with a code that is no 410 (no error's): said as
	// sent, never as a 410 Gone.
	"expired-200": `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from server","reason":"Expired","code":200}}`,
	"expired-999": `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from server","reason":"Expired","code":999}}`,
	"expired--5":  `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from server","reason":"Expired","code":-5}}`,
	"expired-0":   `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom from server","reason":"Expired","code":0}}`,
	// Reason Expired and no code (absent, null): said missing, never a 0.
	"expired-absent": `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom from server","reason":"Expired"}}`,
	"expired-null":   `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom from server","reason":"Expired","code":null}}`,
}

func (s *FaultServer) oddAnswer(w http.ResponseWriter, r *http.Request, watch bool) bool {
	p := r.URL.Path
	collection := strings.HasSuffix(p, "/configmaps")
	switch {
	case p == "/api/v1" && strings.HasPrefix(string(s.Fault), "core-discovery-"):
		return s.coreDiscovery(w, r)
	case strings.HasPrefix(string(s.Fault), "root-discovery-") && s.rootDiscovery(w, r, p):
		return true
	case strings.HasPrefix(string(s.Fault), "group-discovery-") && s.groupDiscovery(w, r, p):
		return true
	case s.Fault == FaultUpgrade && (collection || p == "/metrics"):
		hj, ok := w.(http.Hijacker)
		if !ok {
			return false
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return true
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n")
		_ = buf.Flush()
		// Held until the client closes (a read returns) or the server stops.
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, conn); close(done) }()
		select {
		case <-done:
		case <-s.stop:
		case <-time.After(10 * time.Minute):
		}
	case s.Fault == FaultHugeHeaders && collection:
		w.Header().Set("X-Boom", strings.Repeat("b", 11<<20))
		w.WriteHeader(200)
	case s.Fault == FaultEndlessEarlyHints && collection:
		w.Header().Set("Link", "</"+strings.Repeat("h", 64<<10)+">; rel=preload")
		for s.wait(r.Context(), time.Millisecond) {
			w.WriteHeader(http.StatusEarlyHints)
		}
	case s.Fault == FaultNoContent && collection:
		w.WriteHeader(http.StatusNoContent)
	case s.Fault == FaultStatusInList && collection && !watch:
		s.json(w, 200, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (100)","reason":"Expired","code":410}`)
	case s.Fault == FaultProtobufText && collection:
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.WriteHeader(404)
		_, _ = io.WriteString(w, "boom from the proxy")
	case s.Fault == FaultStatusNoFailure && collection:
		s.json(w, 403, `{"kind":"Status","apiVersion":"v1","message":"boom from server","code":403}`)
	case s.Fault == FaultListEndsEarly && collection && !watch:
		s.json(w, 200, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"}`)
	case s.Fault == FaultCodeMismatch && collection:
		s.json(w, 404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom from server","code":200}`)
	case s.Fault == FaultTrickleErrorBody && collection:
		s.trickle(w, r, http.StatusGone, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"`)
	case strings.HasPrefix(string(s.Fault), "error-event-") && collection && watch:
		ev, ok := errorEvents[strings.TrimPrefix(string(s.Fault), "error-event-")]
		if !ok {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, ev+"\n")
	default:
		return false
	}
	return true
}
