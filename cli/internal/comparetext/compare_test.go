package comparetext

import (
	"strings"
	"testing"

	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/text"
)

// Each mode writes its own form, and the key never: JSON indented, the
// Markdown's table, the text.
func TestWrite(t *testing.T) {
	const key = "fc-0123456789abcdef"
	c := comparison()
	c.Baseline.Ref = "base-" + key
	secrets := text.NewSecrets(key)
	for mode, want := range map[string]string{"json": "{\n  \"baseline\": {", "md": "### firewatch compare:", "plain": "baseline  base-" + text.Redacted} {
		var b strings.Builder
		if err := Write(&b, c, mode, secrets, false); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); strings.Contains(out, key) || !strings.Contains(out, want) {
			t.Errorf("%s: want %q, got\n%s", mode, want, out)
		}
	}
}

// A threshold on a tool neither run called is said, with the tools they
// did call, sanitised.
func TestUnused(t *testing.T) {
	gs, err := compare.ParseFailOn("toolCalls:mcp__x\x1b[2J:+1")
	if err != nil {
		t.Fatal(err)
	}
	c := comparison()
	c.Metrics = append(c.Metrics, compare.Metric{Name: compare.ToolMetricPrefix + "scrape\x1b[31m"})
	got := Unused(gs, c, text.NewSecrets())
	if strings.Contains(got, "\x1b") || !strings.Contains(got, "neither run called mcp__x") || !strings.Contains(got, "(they called scrape") {
		t.Errorf("%q", got)
	}
}
