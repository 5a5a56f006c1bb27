// Command wirecount forwards TCP connections from a loopback port to an
// API server and counts the bytes that cross, both ways, as they cross
// the wire (TLS and gzip included): what a command really took from the
// server, whatever the command says of itself. bench/compare.sh points a
// kubeconfig at it.
//
//	wirecount -target 127.0.0.1:6443 -addr-file /tmp/addr -count-file /tmp/count
//
// The count file holds "BYTES_FROM_SERVER BYTES_TO_SERVER CONNECTIONS",
// rewritten when a connection closes; truncate it to reset (or read the
// difference between two reads).
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
)

func main() {
	target := flag.String("target", "", "the API server's host:port (loopback)")
	addrFile := flag.String("addr-file", "", "where to write the listening address")
	countFile := flag.String("count-file", "", "where to write the counts")
	flag.Parse()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*addrFile, []byte(l.Addr().String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var down, up, conns atomic.Int64
	var mu sync.Mutex
	write := func() {
		mu.Lock()
		defer mu.Unlock()
		_ = os.WriteFile(*countFile, []byte(fmt.Sprintf("%d %d %d\n", down.Load(), up.Load(), conns.Load())), 0o644)
	}
	write()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", *target)
			if err != nil {
				return
			}
			defer s.Close()
			conns.Add(1)
			done := make(chan struct{})
			go func() {
				n, _ := io.Copy(s, c)
				up.Add(n)
				s.(*net.TCPConn).CloseWrite()
				close(done)
			}()
			n, _ := io.Copy(c, s)
			down.Add(n)
			c.(*net.TCPConn).CloseWrite()
			<-done
			write()
		}()
	}
}
