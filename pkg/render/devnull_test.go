package render

import (
	"os"
	"testing"
)

// /dev/null is a character device and no terminal (fresh user try 29 F4):
// no color, no progress, no live view of top on it, whatever TERM says.
func TestDevNullIsNoTerminal(t *testing.T) {
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if IsTerminal(null) {
		t.Fatal("IsTerminal(/dev/null) = true")
	}
	p := NewPrinter(null, null, FormatTable, false)
	if p.Color || p.progress || p.Live() || IsTerminal(p.Out) {
		t.Fatalf("on /dev/null: color %v, progress %v, live %v", p.Color, p.progress, p.Live())
	}
}
