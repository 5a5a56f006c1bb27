package apiclient

import (
	"errors"
	"fmt"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// refusedAnswer is err as an *UnreadableAnswerError when it is net/http
// (or its HTTP/2 client) refusing what the server sent as no HTTP: a
// header line with a control character, NUL or a byte outside ASCII in
// its name, a status code that is no number, a Content-Length that is
// none, a chunked body whose framing is broken, an HTTP/2 head without a
// :status. No API server sends such an answer (a proxy or another server
// did), and net/http's words for it name neither the server nor the
// request and give no fix (adversary try 19 #3: "net/http: HTTP/1.x
// transport connection broken: malformed MIME header line: ...", exit 1
// unnamed). head: err is the request's (its answer's head); else it is
// the read of the body. net/http gives these errors no type (but
// textproto's): they are known by the stable words of net/http's
// transport.go, response.go, transfer.go and internal/chunked.go and of
// golang.org/x/net/http2 (Go 1.26); the e2e test
// TestAnAnswerNetHTTPRefusesIsNamed (test/e2e/bounds) fails should a Go
// release change them. Any other err is kept.
func refusedAnswer(err error, head bool) error {
	var ue *UnreadableAnswerError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		// textproto's: a header line (a trailer's, after a body).
		return &UnreadableAnswerError{What: headerLineWords(string(pe), head), Head: head}
	}
	msg := err.Error()
	for _, r := range refusals {
		if r.body == head {
			continue
		}
		if i := strings.Index(msg, r.words); i >= 0 {
			what := r.what
			if r.quoted {
				what += quotedValue(msg[i+len(r.words):])
			}
			return &UnreadableAnswerError{What: what, Head: head}
		}
	}
	if h2 := http2Refused(msg, head); h2 != "" {
		return &UnreadableAnswerError{What: h2, Head: head}
	}
	return err
}

// refusals are net/http's words for an answer it refuses, with the
// plugin's; quoted: the words end with the value, quoted (%q), which is
// said too (shortened: it is the server's).
var refusals = []struct {
	words, what string
	quoted      bool
	body        bool // in the read of a body (else: of a head)
}{
	// response.go ReadResponse: the status line.
	{words: "malformed HTTP response ", what: "a status line that is not HTTP's: ", quoted: true},
	{words: "malformed HTTP status code ", what: "a status code that is not a number of three digits: ", quoted: true},
	{words: "malformed HTTP version ", what: "a status line of no HTTP version: ", quoted: true},
	// transfer.go readTransfer: the headers that frame the body.
	{words: "unsupported transfer encoding: ", what: "a Transfer-Encoding other than chunked: ", quoted: true},
	{words: "too many transfer encodings: ", what: "more than one Transfer-Encoding: ", quoted: true},
	{words: "http: message cannot contain multiple Content-Length headers", what: "Content-Length headers that differ"},
	{words: "invalid empty Content-Length ", what: "an empty Content-Length"},
	{words: "bad Content-Length ", what: "a Content-Length that is not a number: ", quoted: true},
	{words: "invalid Trailer key ", what: "a Trailer header that names a header no trailer may carry: ", quoted: true},
	// internal/chunked.go and transfer.go: a chunked body and its trailer.
	{words: "invalid byte in chunk length", what: "its chunked framing is broken (a chunk length that is not hexadecimal)", body: true},
	{words: "empty hex number for chunk length", what: "its chunked framing is broken (a chunk without a length)", body: true},
	{words: "http chunk length too large", what: "its chunked framing is broken (a chunk length past 2^40)", body: true},
	{words: "malformed chunked encoding", what: "its chunked framing is broken (a chunk not ended by CRLF)", body: true},
	{words: "chunked line ends with bare LF", what: "its chunked framing is broken (a chunk line ended by LF without CR)", body: true},
	{words: "invalid CR in chunked line", what: "its chunked framing is broken (a CR inside a chunk line)", body: true},
	{words: "header line too long", what: "its chunked framing is broken (a chunk line past 4 KiB)", body: true},
	{words: "chunked encoding contains too much non-data", what: "its chunked framing is broken (more chunk extensions than data)", body: true},
	{words: "bad trailer key ", what: "a trailer whose name is no header's: ", quoted: true, body: true},
	{words: "http: suspiciously long trailer after chunked body", what: "a trailer past 32 KiB after its chunked body", body: true},
	{words: "net/http: server replied with more than declared Content-Length", what: "more bytes than its Content-Length", body: true},
}

// headerLineWords says which rule of a header line textproto found
// broken (pe: its error, with the line quoted), naming the header where
// its name is one.
func headerLineWords(pe string, head bool) string {
	what := "a header line"
	if !head {
		what = "a trailer line"
	}
	switch {
	case strings.HasPrefix(pe, "malformed MIME header initial line: "):
		return "a first " + what[2:] + " that starts with a space (a folded line)"
	case strings.HasPrefix(pe, "malformed MIME header: missing colon: "):
		return what + " without a colon"
	}
	line, err := strconv.Unquote(strings.TrimPrefix(pe, "malformed MIME header line: "))
	if err != nil {
		return what + " that is not HTTP's"
	}
	name, _, ok := strings.Cut(line, ":")
	switch {
	case !ok:
		return what + " without a colon"
	case !isToken(name):
		return what + " whose name holds a byte no header name may (a space, a control character, a byte outside ASCII)"
	}
	return fmt.Sprintf("%s whose value holds a control character or NUL (%s)", what, text.Shorten(name, 64))
}

// isToken: s is an HTTP token (RFC 9110), a header name as it may be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// quotedValue is the %q-quoted value that starts s, as net/http quoted it
// (every control byte escaped), shortened; "" if s starts with none.
func quotedValue(s string) string {
	v, err := strconv.QuotedPrefix(s)
	if err != nil {
		return ""
	}
	if u, err := strconv.Unquote(v); err == nil && len(u) > 32 {
		return strconv.Quote(text.Shorten(u, 32))
	}
	return v
}

// http2Refused is the plugin's words for an HTTP/2 answer that the client
// refused as breaking the protocol (a stream error of its own, not one
// the server sent: "received from peer" is http2Lost's), "" for any
// other msg. The head's faults have words of their own ("malformed
// response from server: missing status pseudo header", "invalid header
// field value for \"x\""); a connection error ("connection error:
// PROTOCOL_ERROR") or a stream error without a cause names its code only.
func http2Refused(msg string, head bool) string {
	if _, code, ok := strings.Cut(msg, "connection error: "); ok && strings.HasSuffix(code, "_ERROR") && !strings.ContainsAny(code, " :") {
		// HTTP/2 gives no more than its code for a head it refuses (a
		// header past the limit: PROTOCOL_ERROR across CONTINUATION
		// frames, COMPRESSION_ERROR for one long string) (adversary try
		// 13: raw "connection error: PROTOCOL_ERROR", exit 1 unnamed).
		if !head {
			return fmt.Sprintf("its HTTP/2 frames broke the protocol (%s)", code)
		}
		return fmt.Sprintf("its HTTP/2 head broke the protocol (%s): headers past net/http's 10 MiB, or a frame", code)
	}
	i := strings.Index(msg, "stream error: stream ID ")
	if i < 0 || strings.Contains(msg, "received from peer") {
		return ""
	}
	parts := strings.SplitN(msg[i:], "; ", 3)
	if len(parts) < 2 {
		return ""
	}
	code := parts[1]
	if len(parts) == 2 {
		return fmt.Sprintf("its HTTP/2 stream broke the protocol (%s)", text.Shorten(code, 32))
	}
	cause := parts[2]
	for _, c := range []struct{ words, what string }{
		{"malformed response from server: missing status pseudo header", "an HTTP/2 head without a :status"},
		{"malformed response from server: malformed non-numeric status pseudo header", "an HTTP/2 :status that is not a number"},
		{"invalid header field value for ", "a header value that holds a control character or NUL"},
		{"invalid header field name ", "a header name that holds a byte no header name may"},
		{"invalid pseudo-header ", "an HTTP/2 pseudo-header that an answer has not"},
		{"duplicate pseudo-header ", "an HTTP/2 pseudo-header sent twice"},
		{"mix of request and response pseudo headers", "HTTP/2 pseudo-headers of a request and of an answer"},
		{"pseudo header field after regular", "an HTTP/2 pseudo-header after the headers"},
		{"1xx informational response with END_STREAM flag", "a 1xx answer that ended its HTTP/2 stream"},
		{"protocol error: headers after END_STREAM", "headers after the end of its HTTP/2 stream"},
	} {
		if strings.HasPrefix(cause, c.words) {
			if v := quotedValue(strings.TrimPrefix(cause, c.words)); v != "" && strings.HasPrefix(c.words, "invalid header field value") {
				return fmt.Sprintf("%s (%s)", c.what, v)
			}
			return c.what
		}
	}
	return fmt.Sprintf("its HTTP/2 stream broke the protocol (%s)", text.Shorten(code, 32))
}
