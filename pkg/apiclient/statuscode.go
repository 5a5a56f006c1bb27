package apiclient

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
)

// fillStatusCode gives an error answer's Status the HTTP status as its
// code when the server sent one without (code 0 or absent). client-go
// classifies an error answer by its decoded Status alone once it decodes
// as one (rest.Result.Error: errors.FromObject), so a 404 whose Status
// has no code is no NotFound, a 410 no Expired, a 422 no Invalid: every
// command would misname the failure and exit with the wrong code. The
// meter calls it on every answer, under every client and discovery, so
// that no caller can meet such an answer. resp.Body is already capped
// (error bodies are capped small); a body that is not a JSON Status, or
// is cut by the cap, is handed on as it came.
func fillStatusCode(resp *http.Response) *http.Response {
	if resp.StatusCode < 400 || !isJSON(resp.Header.Get("Content-Type")) {
		return resp
	}
	orig := resp.Body
	body, rerr := io.ReadAll(orig)
	if rerr != nil {
		resp.Body = &replayBody{Reader: io.MultiReader(bytes.NewReader(body), errAfter{rerr}), closer: orig}
		return resp
	}
	if filled, ok := withStatusCode(body, resp.StatusCode); ok {
		body = filled
		resp.ContentLength = int64(len(body))
		resp.Header.Del("Content-Length")
	}
	resp.Body = &replayBody{Reader: bytes.NewReader(body), closer: orig}
	return resp
}

// withStatusCode is body with "code" set to status when body is a JSON
// Status object whose code is 0 or missing; ok is false for anything else.
func withStatusCode(body []byte, status int) ([]byte, bool) {
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
		if json.Unmarshal(raw, &code) != nil || code != 0 {
			return nil, false
		}
	}
	obj["code"] = json.RawMessage(fmtInt(status))
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}

func fmtInt(n int) []byte {
	b, _ := json.Marshal(n)
	return b
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
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
