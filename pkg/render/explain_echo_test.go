package render

import (
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// TestAnEchoedValueIsWrappedWhole: adversary try 52 F3. A value shortened
// before it reaches the explanation ("hhh…[3016 bytes]") keeps its
// length: the wrapper neither splits its marker nor shortens its head
// again ("…[136 bytes]" and a stray "bytes]," on the next line); a long
// word is still bounded.
func TestAnEchoedValueIsWrappedWhole(t *testing.T) {
	host := strings.Repeat("h", 3000) + ".example.com:443"
	out := explainWrap("Note the text's request went to "+text.Echo(host)+", and the server checked is 127.0.0.1:1", "", "  ", 100)
	if !strings.Contains(out, "…[3016 bytes],") || strings.Count(out, "bytes]") != 1 {
		t.Errorf("the echoed host lost its length:\n%s", out)
	}
	long := explainWrap("a "+strings.Repeat("w", 300000)+" b", "", "", 100)
	if len(long) > 400 || !strings.Contains(long, "…[300000 bytes]") {
		t.Errorf("a long word is not bounded: %d bytes", len(long))
	}
}
