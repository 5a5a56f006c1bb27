package diagnose

import (
	"bytes"
	"strings"
)

// The parts of one error across lines of a log: a weak finding (a bare
// code) joins the message that completes it, never another request's.

// compatible reports whether f can be the rest of the weak finding w.
func compatible(w, f Finding) bool {
	if w.Code != 0 && f.Code != 0 && w.Code != f.Code {
		return false
	}
	if w.Request != nil && f.Request != nil {
		// Each line names its own request: two answers (a -v=6 trace's
		// retries), not the parts of one (fresh user try 50 F3).
		return false
	}
	if !typeFits(f.Type, w.Request) || !typeFits(w.Type, f.Request) {
		// A line naming its own Go type is that type's request's, never
		// another's (adversary try 52 F8).
		return false
	}
	if w.Code != 0 && f.Code == 0 && !fitsCode(f.Kind, int(w.Code)) {
		// The code is another answer's: a 503 is never an Expired's
		// (adversary try 52 F1: a discovery 503 gave a 410 its code).
		return false
	}
	if ownWords(w) || ownWords(f) && w.Class != f.Class {
		// A line with a message of its own is its own error, never the
		// code line of another's (adversary try 52 F1: metrics-server's
		// "the server is currently unable to handle the request").
		return false
	}
	return w.Class == f.Class || (w.Class == ClassExpired && f.Kind == KindInternalErrorAtCompaction) ||
		(w.Class == ClassOther && f.IsRVProblem())
}

// ownWords reports whether the weak finding w's line holds a server
// error's own message, not a bare code waiting for one.
func ownWords(w Finding) bool {
	return w.Class == ClassOther && containsAny(w.src, []string{phraseInternal, phraseServerErr, phraseUnavailable})
}

// mergeWeak joins two weak parts of one error ("(410)" then "Reason: Gone").
func mergeWeak(w, f Finding) *Finding {
	out := w
	if out.Code == 0 {
		out.Code = f.Code
	}
	if out.Reason == "" {
		out.Reason = f.Reason
	}
	if out.Code == 410 && (out.Reason == "Expired" || out.Reason == "Gone") && out.Kind == KindGone {
		out.Confidence = ConfidenceMedium
	}
	if out.Source == "" {
		out.Source = f.Source
	}
	return &out
}

// rereadWith is f read again with the request req another line named,
// when f's own line names none: its RV and operation are req's.
func rereadWith(f Finding, req *Request, ctx Context) Finding {
	if f.Request != nil || f.RequestUnread != "" || !typeFits(f.Type, req) {
		return f
	}
	var d Diagnosis
	switch {
	case f.status != nil:
		d = fromStatus(*f.status, ctx, req)
		d.Source = f.Source
	case f.src != "":
		d = classifyTextOf(f.src, ctx, req)
	}
	if d.Recognized() && d.Class == f.Class {
		f.Diagnosis = d
	}
	return f
}

// typeFits reports whether the Go type g a line names (nil: none) may be
// that of the objects req reads (nil: no request): its version is req's,
// and its kind is req's resource by the usual plural (ConfigMap:
// configmaps, NetworkPolicy: networkpolicies, Ingress: ingresses). A line
// naming *v1.Secret is never a configmaps watch's error.
func typeFits(g *GoType, req *Request) bool {
	if g == nil || req == nil {
		return true
	}
	if g.Version != req.Version {
		return false
	}
	k := strings.ToLower(g.Kind)
	r := req.Resource
	return r == k || r == k+"s" || r == k+"es" ||
		strings.HasSuffix(k, "y") && r == strings.TrimSuffix(k, "y")+"ies"
}

// watchAnswered is the watch request a line names when it says the
// request was answered 200 OK (a -v=6 trace's line), nil otherwise: the
// watch's errors come in its stream, after that line.
func watchAnswered(line []byte) *Request {
	if !bytes.Contains(line, []byte("200")) || !bytes.Contains(line, []byte("watch")) && !bytes.Contains(line, []byte("sendInitialEvents")) {
		return nil
	}
	t := string(line)
	if statusCodeIn(t) != 200 {
		return nil
	}
	if req, _ := requestOfText(t); req != nil && (req.Operation == OpWatch || req.Operation == OpStreamingList) {
		return req
	}
	return nil
}

// completeWith gives the strong finding f what the weak one knew: its
// code, its reason, and the request its line named when f's names none
// (kubectl -v=6 prints "GET URL 410 Gone", then "Error from server
// (Expired): ..." without the URL): f is read again with it, so its RV
// and operation are its request's.
func completeWith(f, w Finding, ctx Context) Finding {
	if w.Request != nil {
		f = rereadWith(f, w.Request, ctx)
	}
	if f.Code == 0 {
		f.Code = w.Code
	}
	if f.Reason == "" {
		f.Reason = w.Reason
	}
	if f.Source == "" {
		f.Source = w.Source
	}
	return f
}
