package framework

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2Fault is how an H2FaultServer ends the HTTP/2 request it breaks (what
// no API server does to a get, list or watch, except the graceful GOAWAY,
// which a kube-apiserver sends when it shuts down or with --goaway-chance).
type H2Fault string

const (
	// H2GoAwayProtocol: a GOAWAY with PROTOCOL_ERROR, then the close.
	H2GoAwayProtocol H2Fault = "goaway-protocol"
	// H2GoAwayGraceful: a GOAWAY with NO_ERROR, then the close.
	H2GoAwayGraceful H2Fault = "goaway-graceful"
	// H2ResetStream: a RST_STREAM PROTOCOL_ERROR of the request's stream.
	H2ResetStream H2Fault = "rst-protocol"
	// H2ResetAfterHeaders: a 200 head, half the body, then RST_STREAM
	// INTERNAL_ERROR.
	H2ResetAfterHeaders H2Fault = "rst-after-headers"
	// H2RefuseStream: a RST_STREAM REFUSED_STREAM of the request's stream
	// (a server past its concurrent streams says so): net/http sends the
	// request again by itself, up to 7 times in a minute.
	H2RefuseStream H2Fault = "rst-refused"
	// H2HeaderControl: a head whose header value holds ESC and NUL, which
	// the HTTP/2 client refuses (adversary try 19 #3).
	H2HeaderControl H2Fault = "header-control"
	// H2NoStatus: a head without a :status.
	H2NoStatus H2Fault = "no-status"
	// H2StatusNotNumber: a :status that is no number ("2x0").
	H2StatusNotNumber H2Fault = "status-not-number"
	// H2DataBeforeHeaders: a DATA frame on the stream before its head.
	H2DataBeforeHeaders H2Fault = "data-before-headers"
)

// H2FaultServer is a raw HTTP/2 server (TLS, h2 only) on 127.0.0.1 that
// answers discovery, /version, /metrics and configmaps as a small API
// server, and breaks each request of one kind (On: "list", "watch",
// "version", "metrics") with Fault. net/http's server cannot send these
// frames, so it speaks HTTP/2 through golang.org/x/net/http2's framer.
type H2FaultServer struct {
	Fault H2Fault
	On    string
	URL   string
	ln    net.Listener
	ca    []byte
	wg    sync.WaitGroup
}

// StartH2FaultServer starts the server until Close.
func StartH2FaultServer(f H2Fault, on string) (*H2FaultServer, error) {
	ca, err := newCA("watchrv-h2fault-ca")
	if err != nil {
		return nil, err
	}
	serving, err := newServingCert(ca, "h2fault", nil, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(serving.certPEM, serving.keyPEM)
	if err != nil {
		return nil, err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, NextProtos: []string{"h2"}})
	if err != nil {
		return nil, err
	}
	s := &H2FaultServer{Fault: f, On: on, URL: "https://" + ln.Addr().String(), ln: ln, ca: ca.certPEM}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s, nil
}

// Close stops the server.
func (s *H2FaultServer) Close() { _ = s.ln.Close(); s.wg.Wait() }

// Kubeconfig writes a kubeconfig for the server into dir.
func (s *H2FaultServer) Kubeconfig(dir string) (string, error) {
	p := filepath.Join(dir, "h2fault.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: f\n  cluster:\n    server: %s\n    certificate-authority-data: %s\ncontexts:\n- name: f\n  context:\n    cluster: f\n    user: f\n    namespace: default\ncurrent-context: f\nusers:\n- name: f\n  user:\n    token: h2fault-token\n", s.URL, base64.StdEncoding.EncodeToString(s.ca))
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}

// h2Kind is what a request path asks for.
func h2Kind(path string) string {
	p, q, _ := strings.Cut(path, "?")
	switch {
	case p == "/version":
		return "version"
	case p == "/metrics":
		return "metrics"
	case strings.HasSuffix(p, "/configmaps") && strings.Contains(q, "watch="):
		return "watch"
	case strings.HasSuffix(p, "/configmaps"):
		return "list"
	}
	return p
}

const h2Metrics = "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1.7e+09\n# TYPE apiserver_audit_event_total counter\napiserver_audit_event_total 0\n"

func h2Answer(kind string) (int, string, string) {
	item := `{"metadata":{"name":"a","namespace":"default","uid":"4b5f3c1e-0000-4000-8000-000000000001","resourceVersion":"99","creationTimestamp":"2026-01-01T00:00:00Z"}}`
	switch kind {
	case "/api":
		return 200, "application/json", faultAPIVersions
	case "/apis":
		return 200, "application/json", faultAPIGroups
	case "/api/v1":
		return 200, "application/json", faultCoreV1
	case "version":
		return 200, "application/json", faultVersion
	case "metrics":
		return 200, "text/plain; version=0.0.4", h2Metrics
	case "list":
		return 200, "application/json", `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"100"},"items":[` + item + `]}`
	case "watch":
		return 200, "application/json", ""
	}
	return 404, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`
}

func (s *H2FaultServer) serve(c net.Conn) {
	defer c.Close()
	pre := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, pre); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(65536, nil)
	if fr.WriteSettings() != nil {
		return
	}
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	head := func(code int, ct string) []byte {
		buf.Reset()
		_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: fmt.Sprint(code)})
		_ = enc.WriteField(hpack.HeaderField{Name: "content-type", Value: ct})
		return append([]byte(nil), buf.Bytes()...)
	}
	// rawHead is a head of the fields as given, in order.
	rawHead := func(fields ...string) []byte {
		buf.Reset()
		for i := 0; i+1 < len(fields); i += 2 {
			_ = enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
		}
		return append([]byte(nil), buf.Bytes()...)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = fr.WritePing(true, f.Data)
			}
		case *http2.MetaHeadersFrame:
			sid, kind := f.StreamID, h2Kind(f.PseudoValue("path"))
			code, ct, body := h2Answer(kind)
			if kind == s.On {
				switch s.Fault {
				case H2GoAwayProtocol:
					_ = fr.WriteGoAway(0, http2.ErrCodeProtocol, []byte("h2fault"))
					return
				case H2GoAwayGraceful:
					_ = fr.WriteGoAway(sid-2, http2.ErrCodeNo, nil)
					time.Sleep(100 * time.Millisecond)
					return
				case H2ResetStream:
					_ = fr.WriteRSTStream(sid, http2.ErrCodeProtocol)
					continue
				case H2RefuseStream:
					_ = fr.WriteRSTStream(sid, http2.ErrCodeRefusedStream)
					continue
				case H2HeaderControl, H2NoStatus, H2StatusNotNumber:
					fields := map[H2Fault][]string{
						H2HeaderControl:   {":status", "200", "content-type", ct, "x-evil", "a\x1b[31mRED\x00"},
						H2NoStatus:        {"content-type", ct},
						H2StatusNotNumber: {":status", "2x0", "content-type", ct},
					}[s.Fault]
					_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: sid, BlockFragment: rawHead(fields...), EndHeaders: true})
					continue
				case H2DataBeforeHeaders:
					_ = fr.WriteData(sid, false, []byte("{}"))
					continue
				case H2ResetAfterHeaders:
					_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: sid, BlockFragment: head(code, ct), EndHeaders: true})
					if body != "" {
						_ = fr.WriteData(sid, false, []byte(body[:len(body)/2]))
					}
					_ = fr.WriteRSTStream(sid, http2.ErrCodeInternal)
					continue
				}
			}
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: sid, BlockFragment: head(code, ct), EndHeaders: true, EndStream: body == "" && kind != "watch"})
			if body != "" {
				_ = fr.WriteData(sid, true, []byte(body))
			}
		}
	}
}
