package apiclient

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// errorMessageLimit bounds the message made of an error body that is not
// a Status: enough for a proxy's sentence, not a page of HTML.
const errorMessageLimit = 512

// asStatus makes every error answer (HTTP 4xx and 5xx) a JSON Status whose
// code is the HTTP status and whose message is the server's own words.
// client-go classifies an error answer by its decoded Status alone
// (rest.Result.Error: errors.FromObject), so a 404 whose Status has no
// code is no NotFound and a 422 no Invalid; and for an answer that is not
// a Status (a proxy's HTML or text) it invents a reason and a message of
// its own (a 502 is "InternalError", a 503 "the server is currently
// unable to handle the request"), dropping what the server said. Every
// command would misname the failure, exit with the wrong code, or hide
// the server's words. The meter calls asStatus on every answer, under
// every client and discovery, so no caller can meet such an answer.
//
// A Status keeps all it says; only a missing or zero code is filled. Any
// other body becomes the message of a Status without a reason (the error
// line then names the code by HTTP's words: "502 Bad Gateway"), one line,
// at most errorMessageLimit bytes. resp.Body is already capped (error
// bodies are capped small); a body cut by the cap is handed on as it came,
// so the cap's error is what the caller meets.
func asStatus(resp *http.Response) *http.Response {
	if resp.StatusCode < 400 {
		return resp
	}
	orig := resp.Body
	body, rerr := io.ReadAll(orig)
	if rerr != nil {
		resp.Body = &replayBody{Reader: io.MultiReader(bytes.NewReader(body), errAfter{rerr}), closer: orig}
		return resp
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/vnd.kubernetes.protobuf":
		// client-go decodes a protobuf Status itself; the plugin asks
		// for JSON, so only a server that ignored it sends one.
	case "application/json":
		if filled, isStatus := withStatusCode(body, resp.StatusCode); isStatus {
			body = filled
		} else {
			body = statusOf(resp.StatusCode, body)
		}
	default:
		body = statusOf(resp.StatusCode, body)
		resp.Header.Set("Content-Type", "application/json")
	}
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	resp.Header.Del("Content-Encoding")
	resp.Body = &replayBody{Reader: bytes.NewReader(body), closer: orig}
	return resp
}

// withStatusCode is body, with "code" set to status when it is 0 or
// missing, if body is a JSON Status object; isStatus is false for any
// other body.
func withStatusCode(body []byte, status int) (out []byte, isStatus bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return nil, false
	}
	var kind string
	if json.Unmarshal(obj["kind"], &kind) != nil || kind != "Status" {
		return nil, false
	}
	if raw, has := obj["code"]; has {
		var code float64
		if json.Unmarshal(raw, &code) != nil {
			return nil, false // not a Status client-go can decode
		}
		if code != 0 {
			return body, true
		}
	}
	obj["code"], _ = json.Marshal(status)
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}

// statusOf is the Status of an error answer of status whose body was not
// a Status: the body, one line and bounded, is its message.
func statusOf(status int, body []byte) []byte {
	out, _ := json.Marshal(map[string]any{
		"kind":       "Status",
		"apiVersion": "v1",
		"metadata":   map[string]any{},
		"status":     "Failure",
		"code":       status,
		"message":    text.Shorten(text.OneLine(string(body)), errorMessageLimit),
	})
	return out
}

// mediaType is contentType without its parameters, "" when unreadable.
func mediaType(contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt
}

// replayBody reads what was read ahead and closes the body it came from.
type replayBody struct {
	io.Reader
	closer io.Closer
}

func (r *replayBody) Close() error { return r.closer.Close() }

// errAfter is a reader that fails with err (io.EOF when nil): the read
// error of the original body, handed to the caller where it came.
type errAfter struct{ err error }

func (e errAfter) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}
