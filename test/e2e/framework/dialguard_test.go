package framework

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The guard must catch the text Go itself writes for a failed dial. The
// loopback line comes from a real dial to a closed port; the other is the
// same error value with a documentation address, formatted by Go, never
// dialled.
func TestNonLoopbackDialsFindsGoDialErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, loopErr := net.Dial("tcp", closed)
	if loopErr == nil {
		t.Fatalf("dialling the closed port %s succeeded", closed)
	}
	away := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("198.51.100.2"), Port: 6443}, Err: os.ErrDeadlineExceeded}
	dir := t.TempDir()
	log := filepath.Join(dir, "kube-apiserver.log")
	content := "W0101 transport: " + loopErr.Error() + "\nE0101 proxy: " + away.Error() + "\nI0101 nothing here\n"
	if err := os.WriteFile(log, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{APIServers: []*APIServer{{LogPath: log}}}
	got, err := c.NonLoopbackDials()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{log + ": E0101 proxy: " + away.Error()}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NonLoopbackDials = %q, want %q", got, want)
	}
}
