package framework

import (
	"net"
	"sync"
	"testing"
)

// SilentServers listens on n loopback addresses (LoopbackAddrs), takes
// every connection and never writes a byte: API servers that accept and
// never answer (a TLS handshake waits until the client gives up). It
// returns their "host:port"s, as --endpoints takes them; closed when t
// ends.
func SilentServers(t testing.TB, n int) []string {
	t.Helper()
	var (
		mu    sync.Mutex
		conns []net.Conn
		out   []string
	)
	for _, a := range LoopbackAddrs(n) {
		ln, err := net.Listen("tcp", a+":0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		out = append(out, ln.Addr().String())
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		}()
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return out
}
