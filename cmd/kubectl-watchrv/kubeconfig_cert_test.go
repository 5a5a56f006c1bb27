package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Fresh user try 11: a --certificate-authority file that is not PEM was
// told to "pass --kubeconfig, set KUBECONFIG". The fix names the
// certificate flags and fields, in every command.
func TestBadCertificateDataNamesTheCertificateFlags(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"list", "cm"}, {"watch", "cm"}, {"probe", "cm"}, {"streaming", "cm"}, {"top", "--once"}} {
		var out, errb bytes.Buffer
		code := run(append(args, "--server", "https://127.0.0.1:1", "--certificate-authority", notPEM), genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errb})
		msg := errb.String()
		if code != ExitUsage || !strings.Contains(msg, "check --certificate-authority") || strings.Contains(msg, "pass --kubeconfig") {
			t.Errorf("%v: exit %d: %s", args, code, msg)
		}
	}
}
