package diff

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

// -update: golden.Check rewrites the golden files instead of comparing.
var _ = flag.Bool("update", false, "rewrite the golden files")

func check(t *testing.T, m Model, w, h int) string {
	t.Helper()
	return golden.View(t, m.View(), w, h)
}

func TestGoldenJSON(t *testing.T) {
	r := linediff.Compute(model.KindJSON, golden.Read(t, "v1.json"), golden.Read(t, "v2.json"), linediff.DefaultContext)
	if !r.JSON || r.Note != "" {
		t.Fatalf("%+v", r)
	}
	if r.Summary(false) != "+15 −4 lines" || r.Summary(true) != "+15 -4 lines" {
		t.Fatal(r.Summary(false))
	}
	var out strings.Builder
	for _, w := range []int{80, 40} {
		m := New(r, PlainStyles(), WithLabel("result v1 → v2"))
		m.SetSize(w, 100)
		fmt.Fprintf(&out, "== width %d\n%s\n", w, check(t, m, w, 100))
	}
	golden.Check(t, "json.golden", out.String())

	m := New(r, DefaultStyles())
	m.SetSize(60, 20)
	v := m.View()
	if !strings.Contains(v, "\x1b[32m+ ") || !strings.Contains(v, "\x1b[31m- ") {
		t.Fatalf("no colour: %q", v)
	}
	golden.Check(t, "json-colour.golden", v)
}

func TestGoldenText(t *testing.T) {
	r := linediff.Compute(model.KindMarkdown, golden.Read(t, "v1.md"), golden.Read(t, "v2.md"), linediff.DefaultContext)
	var out strings.Builder
	for _, w := range []int{80, 40} {
		m := New(r, PlainStyles(), WithASCII(true), WithLabel("notes.md v1 \x1b[31m→ v2"))
		m.SetSize(w, 100)
		fmt.Fprintf(&out, "== width %d\n%s\n", w, check(t, m, w, 100))
	}
	golden.Check(t, "text.golden", out.String())
	if strings.Contains(out.String(), "⋯") || strings.Contains(out.String(), "−") {
		t.Fatal("unicode in ASCII mode")
	}
}

func TestNotJSON(t *testing.T) {
	r := linediff.Compute(model.KindJSON, `{"a":1}`, "oops {", 3)
	m := New(r, PlainStyles())
	m.SetSize(60, 10)
	if v := check(t, m, 60, 10); !strings.Contains(v, "not JSON") {
		t.Fatal(v)
	}
}

func TestNavigation(t *testing.T) {
	var a, b []string
	for i := range 200 {
		a = append(a, fmt.Sprint("line ", i))
		if i%50 == 25 {
			b = append(b, fmt.Sprint("changed ", i))
		} else {
			b = append(b, a[i])
		}
	}
	m := New(linediff.Lines(a, b, 2), PlainStyles())
	m.SetSize(40, 6) // 1 header row, 5 body rows
	press := func(k string) { m, _ = m.Update(tea.KeyPressMsg{Code: []rune(k)[0], Text: k}) }
	first := func() string { return strings.Split(ansi.Strip(m.View()), "\n")[1] }

	press("n")
	if first() != "- line 25" {
		t.Fatalf("n: %q", first())
	}
	press("n")
	if first() != "- line 75" {
		t.Fatalf("n: %q", first())
	}
	press("N")
	if first() != "- line 25" {
		t.Fatalf("N: %q", first())
	}
	press("G")
	if m.Offset() != m.Len()-5 {
		t.Fatalf("G: offset %d of %d", m.Offset(), m.Len())
	}
	press("n") // no change below: stays
	if m.Offset() != m.Len()-5 {
		t.Fatalf("n at the end moved to %d", m.Offset())
	}
	press("g")
	if m.Offset() != 0 {
		t.Fatal(m.Offset())
	}
	m, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.Offset() != 3 {
		t.Fatal(m.Offset())
	}
	if len(m.ShortHelp()) == 0 || len(m.FullHelp()) != 2 {
		t.Fatal("help")
	}
}

// BenchmarkView shows that drawing costs the same for a small diff and one
// of two 5 MB JSON documents: only the visible rows are rendered.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{20, 20_000} {
		b.Run(fmt.Sprint(n, "items"), func(b *testing.B) {
			old, new := bigPair(n)
			r := linediff.Compute(model.KindJSON, old, new, linediff.DefaultContext)
			m := New(r, DefaultStyles())
			m.SetSize(120, 40)
			m.View()
			b.ResetTimer()
			for range b.N {
				_ = m.View()
			}
			b.ReportMetric(float64(len(old)), "input-bytes")
			b.ReportMetric(float64(m.Len()), "rows")
		})
	}
}

// BenchmarkCompute is the cost of comparing two versions (run it in a
// command for large snapshots).
func BenchmarkCompute(b *testing.B) {
	old, new := bigPair(20_000)
	b.SetBytes(int64(len(old)))
	for range b.N {
		linediff.Compute(model.KindJSON, old, new, linediff.DefaultContext)
	}
}

func bigPair(n int) (string, string) {
	var a, c strings.Builder
	a.WriteString(`{"results":[`)
	c.WriteString(`{"results":[`)
	for i := range n {
		if i > 0 {
			a.WriteByte(',')
			c.WriteByte(',')
		}
		item := fmt.Sprintf(`{"url":"https://example.com/page/%d","title":"Result %d","score":%d,"snippet":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor %d"}`, i, i, i%100, i)
		a.WriteString(item)
		if i%1000 == 7 {
			item = strings.Replace(item, "Result", "Changed result", 1)
		}
		c.WriteString(item)
	}
	a.WriteString(`]}`)
	c.WriteString(`]}`)
	return a.String(), c.String()
}
