package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// CountingProxy is a TCP relay on loopback in front of one API server: the
// TLS session runs end to end through it (the server's certificate names
// 127.0.0.1, whatever the port), and it counts the bytes the server sends,
// as they cross the wire: TLS records, HTTP headers, gzip as sent. It is
// the same count for kubectl and for the plugin.
type CountingProxy struct {
	ln     net.Listener
	target string
	down   atomic.Int64 // server -> client
	active atomic.Int64
}

func NewCountingProxy(target string) (*CountingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &CountingProxy{ln: ln, target: target}
	go p.serve()
	return p, nil
}

func (p *CountingProxy) Addr() string { return p.ln.Addr().String() }
func (p *CountingProxy) Close()       { p.ln.Close() }
func (p *CountingProxy) Reset()       { p.down.Store(0) }

// Settle waits (up to 3 s) for the run's connections to close and returns
// the bytes the server sent during the run.
func (p *CountingProxy) Settle() int64 {
	for deadline := time.Now().Add(3 * time.Second); p.active.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	return p.down.Load()
}

func (p *CountingProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.relay(c)
	}
}

func (p *CountingProxy) relay(client net.Conn) {
	p.active.Add(1)
	defer p.active.Add(-1)
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(server, client)
		if tc, ok := server.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	_, _ = io.Copy(&counter{w: client, n: &p.down}, server)
	client.Close()
	wg.Wait()
}

type counter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

func auditSizes(logs []string) []int64 {
	out := make([]int64, len(logs))
	for i, l := range logs {
		if st, err := os.Stat(l); err == nil {
			out[i] = st.Size()
		}
	}
	return out
}

// countAudit counts the distinct requests of user admin that are not the
// harness's own, logged after the offsets from: every request of the
// measured command (kubectl and the plugin both use the admin token; no
// other admin client runs while a command is measured). A request's
// ResponseComplete is written just after its answer, a closed watch's when
// the server notices: wait until the logs stop growing (up to 3 s).
func countAudit(logs []string, from []int64) (int, []string) {
	prev := auditSizes(logs)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		time.Sleep(150 * time.Millisecond)
		cur := auditSizes(logs)
		if equal(cur, prev) {
			break
		}
		prev = cur
	}
	ids := map[string]bool{}
	var reqs []string
	for i, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			continue
		}
		if _, err := f.Seek(from[i], io.SeekStart); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			for sc.Scan() {
				var e struct {
					AuditID    string `json:"auditID"`
					Verb       string `json:"verb"`
					RequestURI string `json:"requestURI"`
					UserAgent  string `json:"userAgent"`
					User       struct {
						Username string `json:"username"`
					} `json:"user"`
				}
				if json.Unmarshal(sc.Bytes(), &e) != nil || e.User.Username != "admin" || strings.HasPrefix(e.UserAgent, framework.HarnessUserAgent) {
					continue
				}
				if !ids[e.AuditID] {
					path, _, _ := strings.Cut(e.RequestURI, "?")
					reqs = append(reqs, e.Verb+" "+path)
				}
				ids[e.AuditID] = true
			}
		}
		f.Close()
	}
	return len(ids), reqs
}

func equal(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
