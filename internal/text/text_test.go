package text

import "testing"

func TestOneLineAndThousands(t *testing.T) {
	if got := OneLine("  a\n\tb  c\r\n"); got != "a b c" {
		t.Fatalf("OneLine = %q", got)
	}
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 1204: "1,204", 18446744073709551615: "18,446,744,073,709,551,615"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
