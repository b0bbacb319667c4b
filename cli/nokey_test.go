package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/text"
)

// firewatch alone on a terminal with no key prints the help and then the
// hint, last, where the prompt comes back: stdout and stderr share the
// terminal, so the order of the two is what the user sees.
func TestNoKeyHintLast(t *testing.T) {
	t.Setenv("FIRECRAWL_API_KEY", "")
	var term bytes.Buffer
	secrets := text.NewSecrets()
	a := &app{stdout: &term, print: &outputs.WriteGuard{W: &term}, stderr: &scrubWriter{w: &term, secrets: secrets}, secrets: secrets}
	root := a.rootCommand()
	root.SetOut(a.print)
	root.SetErr(a.stderr)
	if err := a.firstScreen(root, &watchOptions{}); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimRight(term.String(), "\n")
	lines := strings.Split(out, "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "set FIRECRAWL_API_KEY") || !strings.Contains(last, "firewatch demo") {
		t.Errorf("the last line is %q, want the hint:\n%s", last, out)
	}
	if !strings.Contains(out, "Available Commands:") || strings.Count(out, "set FIRECRAWL_API_KEY to see") != 1 {
		t.Errorf("want the help once and the hint once:\n%s", out)
	}
}
