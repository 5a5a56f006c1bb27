package framework

// Servers of the adversary of try 19: a TLS ScriptServer (the per-server
// view dials the addresses of the EndpointSlices only when the kubeconfig
// verifies TLS), an EndpointSlice list of any addresses, and a server that
// answers every request with a raw HTTP/1 head as given (a header line
// with control characters, a status code that is no number), which
// net/http's Server would never write.

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// TLSScriptServer is a ScriptServer served over TLS (HTTP/1 and HTTP/2)
// by httptest, with a kubeconfig that verifies its certificate: what
// --servers needs before it dials an EndpointSlice's address.
type TLSScriptServer struct {
	*ScriptServer
	tls *httptest.Server
}

// StartTLSScriptServer starts a TLS server whose answers are
// ScriptDefaults with script over them.
func StartTLSScriptServer(script map[string]ScriptAnswer) *TLSScriptServer {
	return startTLSScript(script, nil)
}

// startTLSScript is StartTLSScriptServer with answer before the script
// (ScriptServer's answer; nil: none).
func startTLSScript(script map[string]ScriptAnswer, answer func(w http.ResponseWriter, r *http.Request) bool) *TLSScriptServer {
	all := ScriptDefaults()
	for p, a := range script {
		all[p] = a
	}
	s := &ScriptServer{script: all, answer: answer}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	s.ln = ts.Listener
	return &TLSScriptServer{ScriptServer: s, tls: ts}
}

// URL is the server's https:// address.
func (s *TLSScriptServer) URL() string { return s.tls.URL }

// Close stops the server.
func (s *TLSScriptServer) Close() { s.tls.Close() }

// Kubeconfig writes a kubeconfig for the server (its CA inline, a bearer
// token) into dir.
func (s *TLSScriptServer) Kubeconfig(dir string) (string, error) {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.tls.Certificate().Raw})
	p := filepath.Join(dir, "tls-script.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: script\n  cluster:\n    server: %s\n    certificate-authority-data: %s\ncontexts:\n- name: script\n  context:\n    cluster: script\n    user: script\n    namespace: default\ncurrent-context: script\nusers:\n- name: script\n  user:\n    token: script-token\n",
		s.URL(), base64.StdEncoding.EncodeToString(ca))
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}

// EndpointSlicesPath is the path --servers lists the API servers from.
const EndpointSlicesPath = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"

// EndpointSliceList is the answer to EndpointSlicesPath that lists addrs
// (as given: an address need not be an IP) at port, 1,000 endpoints a
// slice as the EndpointSlice controller cuts them.
func EndpointSliceList(addrs []string, port int) ScriptAnswer {
	return EndpointSlicesOf(SliceSpec{AddressType: "IPv4", Addrs: addrs, Port: port})
}

// SliceSpec is what EndpointSlices of one address type list: Addrs (as
// given) at Port.
type SliceSpec struct {
	AddressType string
	Addrs       []string
	Port        int
}

// EndpointSlicesOf is the answer to EndpointSlicesPath with the slices of
// each spec, 1,000 ready endpoints a slice, written slice by slice as it
// goes (so that the test process stays small however many there are).
func EndpointSlicesOf(specs ...SliceSpec) ScriptAnswer {
	type endpoint struct {
		Addresses  []string        `json:"addresses"`
		Conditions map[string]bool `json:"conditions"`
	}
	write := func(w io.Writer) {
		_, _ = io.WriteString(w, `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{"resourceVersion":"100"},"items":[`)
		n := 0
		for _, sp := range specs {
			for i := 0; i < len(sp.Addrs); i += 1000 {
				var eps []endpoint
				for _, a := range sp.Addrs[i:min(i+1000, len(sp.Addrs))] {
					eps = append(eps, endpoint{Addresses: []string{a}, Conditions: map[string]bool{"ready": true}})
				}
				b, _ := json.Marshal(map[string]any{
					"metadata":    map[string]any{"name": fmt.Sprintf("kubernetes-%d", n), "namespace": "default", "labels": map[string]string{"kubernetes.io/service-name": "kubernetes"}},
					"addressType": sp.AddressType,
					"endpoints":   eps,
					"ports":       []map[string]any{{"name": "https", "port": sp.Port, "protocol": "TCP"}},
				})
				if n > 0 {
					_, _ = io.WriteString(w, ",")
				}
				_, _ = w.Write(b)
				n++
			}
		}
		_, _ = io.WriteString(w, "]}")
	}
	return ScriptAnswer{Code: 200, Type: "application/json", Write: write}
}

// OneEndpointSlice is the answer to EndpointSlicesPath of one IPv4 slice
// whose one endpoint lists n addresses of 127.0.0.0/8 at port: one long
// list, written as it goes.
func OneEndpointSlice(n, port int) ScriptAnswer {
	write := func(w io.Writer) {
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{"resourceVersion":"100"},"items":[{"metadata":{"name":"kubernetes","namespace":"default"},"addressType":"IPv4","ports":[{"name":"https","port":%d,"protocol":"TCP"}],"endpoints":[{"conditions":{"ready":true},"addresses":[`, port)
		for i := 0; i < n; i++ {
			if i > 0 {
				_ = bw.WriteByte(',')
			}
			fmt.Fprintf(bw, `"127.%d.%d.%d"`, 1+i/65024%250, (i/254)%256, 1+i%254)
		}
		_, _ = bw.WriteString(`]}]}]}`)
		_ = bw.Flush()
	}
	return ScriptAnswer{Code: 200, Type: "application/json", Write: write}
}

// LoopbackAddrs is n distinct addresses in 127.0.0.0/8 (none of them
// 127.0.0.1): a refused port there answers at once, on loopback only.
func LoopbackAddrs(n int) []string {
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, fmt.Sprintf("127.%d.%d.%d", 1+i/65024, (i/254)%256, 1+i%254))
	}
	return out
}

// RawHeadServer answers every request on 127.0.0.1 with Head written as
// it is (the status line and header lines, without the blank line that
// ends them), then "Content-Length" and Body, and closes the connection.
type RawHeadServer struct {
	ln   net.Listener
	wg   sync.WaitGroup
	Head string
	Body string
}

// StartRawHeadServer starts it.
func StartRawHeadServer(head, body string) (*RawHeadServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &RawHeadServer{ln: ln, Head: head, Body: body}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(c)
				for { // the request's head
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" || line == "\n" {
						break
					}
				}
				_, _ = fmt.Fprintf(c, "%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", s.Head, len(s.Body), s.Body)
			}()
		}
	}()
	return s, nil
}

// URL is the server's http:// address.
func (s *RawHeadServer) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server.
func (s *RawHeadServer) Close() { _ = s.ln.Close(); s.wg.Wait() }

// Kubeconfig writes a kubeconfig for the server into dir.
func (s *RawHeadServer) Kubeconfig(dir string) (string, error) {
	p := filepath.Join(dir, "rawhead.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: raw\n  cluster:\n    server: %s\ncontexts:\n- name: raw\n  context:\n    cluster: raw\n    user: raw\n    namespace: default\ncurrent-context: raw\nusers:\n- name: raw\n  user:\n    token: raw-token\n", s.URL())
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}

// StatusAnswer is an API server's JSON Status answer: code, reason and
// message, with that HTTP status.
func StatusAnswer(code int, reason, msg string) ScriptAnswer {
	return ScriptAnswer{Code: code, Type: "application/json",
		Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + msg + `","reason":"` + reason + `","code":` + strconv.Itoa(code) + `}`}
}
