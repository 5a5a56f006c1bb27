package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheStatusFileNeverHoldsTheNonce: the plugin can read and write the
// relay's status file (its path is in the relay's argv), so what the file
// holds must give it no nonce to forge a verdict with, in band or in the
// file, and what it writes there, the nonce's old form included, is no
// verdict (make test-long: the relay wrote the nonce at its start, and a
// plugin that read it forged "signal killed").
func TestTheStatusFileNeverHoldsTheNonce(t *testing.T) {
	const nonce = "0123456789abcdef0123456789abcdef"
	path := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st := relayStatus{path: path, nonce: nonce}
	for _, verdict := range []string{"", verdictHeldOpen, verdictNotRerun, verdictSignal + " killed"} {
		st.write(verdict)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), nonce) {
			t.Errorf("after write(%q) the file holds the nonce: %q", verdict, b)
		}
		kind, detail, exists := st.read()
		if got := strings.TrimSpace(kind + " " + detail); got != verdict || !exists {
			t.Errorf("write(%q) reads back as %q (exists %v)", verdict, got, exists)
		}
		if other := (relayStatus{path: path, nonce: strings.Repeat("f", 32)}); verdict != "" {
			if kind, _, _ := other.read(); kind != "" {
				t.Errorf("write(%q) of one run reads as %q in another's", verdict, kind)
			}
		}
	}
	for _, forged := range []string{nonce + " " + verdictHeldOpen, verdictHeldOpen, strings.Repeat("0", 64) + " " + verdictHeldOpen, " " + verdictNotRerun} {
		if err := os.WriteFile(path, []byte(forged), 0o600); err != nil {
			t.Fatal(err)
		}
		if kind, _, _ := st.read(); kind != "" {
			t.Errorf("the plugin's %q reads as the verdict %q", forged, kind)
		}
	}
}
