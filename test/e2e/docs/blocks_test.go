//go:build e2e

package docs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A capture block: the marker names the command line, the body is rewritten
// by `make docs` to "$ <command>" and its output in a console code block.
// Markers inside a fenced code block are examples, not captures.
var (
	openMarker  = regexp.MustCompile(`^<!-- capture: (.*) -->$`)
	closeMarker = "<!-- /capture -->"
)

// captureTimeout bounds one command; commands that would run forever (watch)
// must bound themselves with --timeout, --max-events or --until.
const captureTimeout = 90 * time.Second

type block struct {
	command string // as written in the marker, with $vars
	body    string // what is checked in between the markers
	start   int    // byte offsets of the whole block in the file
	end     int
}

func parseBlocks(content string) []block {
	var blocks []block
	inFence := false
	offset := 0 // byte offset of the current line
	lines := strings.SplitAfter(content, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\n")
		m := openMarker.FindStringSubmatch(line)
		switch {
		case strings.HasPrefix(line, "```"):
			inFence = !inFence
		case m != nil && !inFence:
			// The body runs to the closing marker, fences included.
			start, bodyStart := offset, offset+len(lines[i])
			pos := bodyStart
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimRight(lines[j], "\n") == closeMarker {
					blocks = append(blocks, block{
						command: strings.TrimSpace(m[1]),
						body:    content[bodyStart:pos],
						start:   start,
						end:     pos + len(closeMarker),
					})
					for k := i; k < j; k++ {
						offset += len(lines[k])
					}
					i = j
					break
				}
				pos += len(lines[j])
			}
		}
		offset += len(lines[i])
	}
	return blocks
}

// expand replaces the demo's $vars (RVs recorded while making history) in a
// command line; an unknown $var is an error, not an empty string.
func (e *demoEnv) expand(command string) (string, error) {
	var missing []string
	out := os.Expand(command, func(name string) string {
		v, ok := e.vars[name]
		if !ok {
			missing = append(missing, "$"+name)
			return ""
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unknown variables %s in %q (known: %s)", strings.Join(missing, ", "), command, e.varNames())
	}
	return out, nil
}

func (e *demoEnv) varNames() string {
	var names []string
	for n := range e.vars {
		names = append(names, "$"+n)
	}
	return strings.Join(names, " ")
}

// capture runs one command line with bash, where `kubectl watchrv` is the
// plugin under test, against the demo cluster, and returns the block body.
func (e *demoEnv) capture(command string) (string, error) {
	line, err := e.expand(command)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), captureTimeout)
	defer cancel()
	script := `kubectl() { if [ "$1" = watchrv ]; then shift; "$WATCHRV_PLUGIN" "$@"; else command kubectl "$@"; fi; }` + "\n" + line
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	// From the repository root, so that a capture may read a recorded file
	// of the repository (docs/clients.md reads a recorded audit log).
	cmd.Dir = framework.RepoRoot()
	cmd.Env = append(os.Environ(),
		"WATCHRV_PLUGIN="+e.plugin,
		"KUBECONFIG="+e.kubeconfig,
		"NO_COLOR=1",
		"HOME="+e.dir,
		"COLUMNS=100",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%q did not finish within %s: bound it with --timeout, --max-events or --until", line, captureTimeout)
	}
	text := strings.TrimRight(out.String(), " \n")
	if strings.Contains(text, "goroutine ") || strings.Contains(text, "panic:") {
		return "", fmt.Errorf("%q panicked:\n%s", line, text)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		text += fmt.Sprintf("\n(exit code %d)", ee.ExitCode())
	default:
		return "", fmt.Errorf("running %q: %v", line, err)
	}
	return "```console\n$ " + line + "\n" + strings.TrimLeft(text, "\n") + "\n```\n", nil
}

// rewrite replaces every block's body with its new capture.
func rewrite(content string, blocks []block, bodies []string) string {
	var b strings.Builder
	last := 0
	for i, bl := range blocks {
		b.WriteString(content[last:bl.start])
		fmt.Fprintf(&b, "<!-- capture: %s -->\n%s<!-- /capture -->", bl.command, bodies[i])
		last = bl.end
	}
	b.WriteString(content[last:])
	return b.String()
}

// TestParseBlocks: markers in fenced examples are left alone, bodies span
// their own fences, and rewriting with the same bodies changes nothing.
func TestParseBlocks(t *testing.T) {
	doc := "intro\n```markdown\n<!-- capture: kubectl watchrv example -->\n<!-- /capture -->\n```\n" +
		"<!-- capture: kubectl watchrv list cm -->\n```console\n$ kubectl watchrv list cm\nout\n```\n<!-- /capture -->\n" +
		"<!-- capture: kubectl watchrv version -->\n<!-- /capture -->\nend\n"
	blocks := parseBlocks(doc)
	if len(blocks) != 2 || blocks[0].command != "kubectl watchrv list cm" || blocks[1].command != "kubectl watchrv version" {
		t.Fatalf("parsed %+v, want the list and version blocks only", blocks)
	}
	if blocks[0].body != "```console\n$ kubectl watchrv list cm\nout\n```\n" || blocks[1].body != "" {
		t.Errorf("bodies %q and %q", blocks[0].body, blocks[1].body)
	}
	if got := rewrite(doc, blocks, []string{blocks[0].body, blocks[1].body}); got != doc {
		t.Errorf("rewriting with the same bodies changed the page:\n%s", got)
	}
}
