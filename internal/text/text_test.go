package text

import (
	"fmt"
	"strings"
	"testing"
)

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

func TestEchoAndShortenBoundValues(t *testing.T) {
	if got := Echo("12345"); got != "12345" {
		t.Fatalf("Echo of a short value = %q", got)
	}
	long := strings.Repeat("9", 131072)
	if got := Echo(long); len(got) > MaxEcho+32 || !strings.HasSuffix(got, "…[131072 bytes]") {
		t.Fatalf("Echo of 128 KiB = %d bytes: %.100q", len(got), got)
	}
	// Echoed twice (a caller and usageErrorf each echo), a value keeps
	// its real length (fresh try 7: "[142 bytes]" for 300 digits).
	for _, n := range []int{MaxEcho + 1, 300, 1000, 131072} {
		v := strings.Repeat("9", n)
		if once, twice := Echo(v), Echo(Echo(v)); once != twice || !strings.HasSuffix(twice, fmt.Sprintf("…[%d bytes]", n)) {
			t.Fatalf("Echo(Echo(%d bytes)) = %q, Echo once = %q", n, twice, once)
		}
	}
	// A cut never splits a rune.
	if got := Echo(strings.Repeat("é", 100)); !strings.HasPrefix(got, strings.Repeat("é", MaxEcho/2)+"…") {
		t.Fatalf("Echo split a rune: %q", got)
	}
	line := "error: head " + long + " fix: do this"
	got := Shorten(line, MaxLine)
	if len(got) > MaxLine+16 || !strings.HasPrefix(got, "error: head ") || !strings.HasSuffix(got, " fix: do this") || !strings.Contains(got, "bytes left out") {
		t.Fatalf("Shorten = %d bytes: %.80q ... %.80q", len(got), got, got[len(got)-80:])
	}
	if Shorten("short", MaxLine) != "short" {
		t.Fatal("Shorten changed a short line")
	}
}

func TestRedactURLHidesPasswordsAndQueryValues(t *testing.T) {
	for in, want := range map[string]string{
		"https://admin:SECRET@127.0.0.1:9":                  "https://admin:xxxxx@127.0.0.1:9",
		"admin:SECRET@127.0.0.1:9":                          "admin:xxxxx@127.0.0.1:9",
		"https://127.0.0.1:6443":                            "https://127.0.0.1:6443",
		"127.0.0.1:6443":                                    "127.0.0.1:6443",
		"http://u:p@127.0.0.2:80/login?token=abc&next=/x#f": "http://u:xxxxx@127.0.0.2:80/login?token=xxxxx&next=xxxxx",
		"https://user@h/api":                                "https://xxxxx@h/api",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(RedactURL(in), "SECRET") {
			t.Errorf("RedactURL(%q) kept the password", in)
		}
	}
	// Every form a kubeconfig or an answer may hold, bad escapes and
	// opaque forms included: no password or query value survives, and the
	// result is never longer in scheme than what was given.
	for _, scheme := range []string{"", "https://", "http://", "weird+x://"} {
		for _, user := range []string{"u:SECRET", "u:SE%zzCRET", "SECRET", "u:SECRET%", "u:%SECRET", "u:SECRET#", "u:SE#CRET", "u:SE?CRET", "u:SE/CRET", "u:1234#SECRET", "SECRET#"} {
			for _, tail := range []string{"", "/", "/%zz", "/p?token=SECRET", "/?a=%zzSECRET&b=SECRET", "#SECRET", "?SECRET", "?token=SECRET&next=https://y", "/%zz?token=SECRET&next=http://y"} {
				in := scheme + user + "@127.0.0.1:6443" + tail
				got := RedactURL(in)
				if strings.Contains(got, "SECRET") {
					t.Errorf("RedactURL(%q) = %q: a secret kept", in, got)
				}
				if strings.Count(got, "://") > strings.Count(in, "://") {
					t.Errorf("RedactURL(%q) = %q: a scheme added", in, got)
				}
			}
		}
	}
	// Without a user: a query or fragment never hides a token.
	for _, in := range []string{"host:6443?token=SECRET&next=https://y", "127.0.0.1:1/%zz?token=SECRET&next=http://y", "https://h:1/?t=SECRET#SECRET"} {
		if got := RedactURL(in); strings.Contains(got, "SECRET") {
			t.Errorf("RedactURL(%q) = %q: a secret kept", in, got)
		}
	}
	// A numeric password before # reads as a port to net/url.
	if got := RedactURL("https://admin:1234#@h:1"); strings.Contains(got, "1234") {
		t.Errorf("RedactURL kept a numeric password: %q", got)
	}
	// Not a URL at all: nothing before the last @ survives.
	if got := RedactURL("https://a:SE CRET@h:1"); got != "https://xxxxx@h:1" {
		t.Errorf("unparseable URL kept the password: %q", got)
	}
}
