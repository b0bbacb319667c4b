package jsonview

import (
	"flag"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/ui/internal/golden"
)

// -update: golden.Check rewrites the golden files instead of comparing.
var _ = flag.Bool("update", false, "rewrite the golden files")

func press(keys ...string) []tea.Msg {
	var msgs []tea.Msg
	for _, k := range keys {
		switch k {
		case "enter":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyEnter})
		case "space":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
		case "pgdown":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyPgDown})
		case "pgup":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyPgUp})
		case "down":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyDown})
		case "left":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyLeft})
		case "right":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyRight})
		default:
			r := []rune(k)[0]
			msgs = append(msgs, tea.KeyPressMsg{Code: r, Text: k})
		}
	}
	return msgs
}

func send(m Model, keys ...string) Model {
	for _, msg := range press(keys...) {
		m, _ = m.Update(msg)
	}
	return m
}

func load(t testing.TB, name string) jsontext.Value {
	t.Helper()
	return jsontext.Value(golden.Read(t, name))
}

func newView(t testing.TB, v jsontext.Value, w, h int, opts ...Option) Model {
	m := New(v, PlainStyles(), opts...)
	m.SetSize(w, h)
	return m
}

// check asserts the View's shape and safety and returns it without ANSI.
func check(t *testing.T, m Model) string {
	t.Helper()
	return golden.View(t, m.View(), m.Width(), m.Height())
}

func TestGoldenFolding(t *testing.T) {
	v := load(t, "result.json")
	m := newView(t, v, 64, 24)
	var out strings.Builder
	step := func(title string) {
		out.WriteString("== " + title + "\n" + check(t, m) + "\n")
	}
	step("initial: results and the long string start folded")

	// Down to "markdown" and unfold it: it wraps.
	for sel, _ := m.Selected(); sel.Path != "$.markdown"; sel, _ = m.Selected() {
		m = send(m, "j")
	}
	m = send(m, "enter")
	step("markdown unfolded with enter, wrapped to the width")
	m = send(m, "space")
	step("folded again with space")

	// Unfold results with l, step in with l, fold the first item with h.
	m = send(m, "j", "j", "l")
	if sel, _ := m.Selected(); sel.Path != "$.results" || sel.Kind != '[' {
		t.Fatalf("cursor on %q", sel.Path)
	}
	step("results unfolded with l")
	m = send(m, "l", "h")
	if sel, _ := m.Selected(); sel.Path != "$.results[0]" {
		t.Fatalf("cursor on %q", sel.Path)
	}
	step("first result folded with h")
	m = send(m, "down", "down", "h")
	if sel, _ := m.Selected(); sel.Path != "$.results[1]" {
		t.Fatalf("h on a scalar steps out: cursor on %q", sel.Path)
	}
	m = send(m, "pgdown")
	step("page down")
	m = send(m, "H")
	step("fold all (H): the cursor stays on results")
	m = send(m, "L", "G")
	step("expand all (L), then G")
	golden.Check(t, "folding.golden", out.String())
}

func TestGoldenColour(t *testing.T) {
	m := New(load(t, "result.json"), DefaultStyles())
	m.SetSize(64, 16)
	v := m.View()
	golden.Safe(t, v)
	if !strings.Contains(v, "\x1b[") {
		t.Fatal("no colour")
	}
	golden.Check(t, "colour.golden", v)
}

func TestGoldenNarrowASCII(t *testing.T) {
	m := newView(t, load(t, "result.json"), 30, 40, WithASCII(true))
	m = send(m, "L")
	out := check(t, m)
	if strings.ContainsAny(out, "▾▸…") {
		t.Fatal("unicode symbols in ASCII mode")
	}
	golden.Check(t, "narrow-ascii.golden", out)
}

func TestGoldenScalarsAndErrors(t *testing.T) {
	var out strings.Builder
	for _, tc := range []struct{ name, in string }{
		{"null", "null"},
		{"absent", ""},
		{"number", " 12.5e3 "},
		{"string", `"a \"quoted\" string\nwith a newline and \u0007 bell"`},
		{"empty object", "{}"},
		{"invalid", "{\"a\": 1,\n\t\"b\": tru\x1b[31me}"},
		{"two values", "1 2"},
		{"truncated", `{"a": [1, 2`},
	} {
		m := newView(t, jsontext.Value(tc.in), 50, 6)
		out.WriteString("== " + tc.name + "\n" + check(t, m) + "\n")
	}
	golden.Check(t, "scalars.golden", out.String())
}

func TestNavigation(t *testing.T) {
	m := newView(t, load(t, "result.json"), 64, 5)
	m = send(m, "L")
	n := m.Len()
	if n < 60 {
		t.Fatalf("only %d rows expanded", n)
	}
	m = send(m, "G")
	if m.Cursor() != n-1 || m.Offset() != n-5 {
		t.Fatalf("G: cursor %d offset %d of %d", m.Cursor(), m.Offset(), n)
	}
	m = send(m, "g")
	if m.Cursor() != 0 || m.Offset() != 0 {
		t.Fatalf("g: cursor %d offset %d", m.Cursor(), m.Offset())
	}
	m = send(m, "pgdown", "pgdown")
	if m.Cursor() != 10 || m.Offset() != 10 {
		t.Fatalf("pgdown: cursor %d offset %d", m.Cursor(), m.Offset())
	}
	m = send(m, "k")
	if m.Cursor() != 9 || m.Offset() != 9 {
		t.Fatalf("k: cursor %d offset %d", m.Cursor(), m.Offset())
	}
	m, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.Offset() != 12 {
		t.Fatalf("wheel: offset %d", m.Offset())
	}
	m = send(m, "pgup", "pgup", "pgup", "pgup")
	if m.Cursor() != 0 || m.Offset() != 0 {
		t.Fatalf("pgup: cursor %d offset %d", m.Cursor(), m.Offset())
	}
	// Resizing keeps the cursor on screen.
	m = send(m, "G")
	m.SetSize(20, 3)
	if c, o := m.Cursor(), m.Offset(); c < o || c >= o+3 {
		t.Fatalf("after resize: cursor %d offset %d", c, o)
	}
	check(t, m)
}

func TestSelection(t *testing.T) {
	m := newView(t, load(t, "result.json"), 80, 100)
	m = send(m, "L")
	want := map[string]struct{ ptr, text string }{
		"$":                          {"", ""},
		"$.query":                    {"/query", "best espresso grinders 2026"},
		"$.hostile":                  {"/hostile", "red TEXT evil and a bell done"},
		"$.results[2].url":           {"/results/2/url", "https://example.com/p/2"},
		"$.meta.nested.deep":         {"/meta/nested/deep", `{"deeper":[1,2,3]}`},
		`$["weird key with spaces"]`: {"/weird key with spaces", "1e-07"},
	}
	seen := map[string]bool{}
	for i := 0; i < m.Len(); i++ {
		sel, ok := m.Selected()
		if !ok {
			t.Fatal("no selection")
		}
		if w, ok := want[sel.Path]; ok && !seen[sel.Path] {
			seen[sel.Path] = true
			if sel.Pointer != w.ptr || (w.text != "" && sel.Text != w.text) {
				t.Errorf("%s: pointer %q text %q", sel.Path, sel.Pointer, sel.Text)
			}
		}
		m.MoveBy(1)
	}
	if len(seen) != len(want) {
		t.Fatalf("saw only %v", seen)
	}

	// A key that needs escaping in both forms.
	m = newView(t, jsontext.Value(`{"a/b~c":{"\u001b":[0,"x"]}}`), 40, 10)
	m.MoveBy(4)
	sel, _ := m.Selected()
	if sel.Path != `$["a/b~c"]["\u001b"][1]` || sel.Pointer != "/a~1b~0c//1" || sel.Text != "x" {
		t.Fatalf("%+v", sel)
	}
	// Text that is not JSON selects the whole text.
	m = newView(t, jsontext.Value("not json\x1b[2J"), 40, 10)
	if sel, ok := m.Selected(); !ok || sel.Path != "" || sel.Text != "not json" {
		t.Fatalf("%+v", sel)
	}
	if _, ok := newView(t, nil, 40, 10).Selected(); ok {
		t.Fatal("selection in an absent value")
	}
}

// FuzzView: whatever the input, the view is safe, fits its box and the
// keys never panic.
func FuzzView(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"\u001b]52;c;eA==\u0007"}]}`))
	f.Add([]byte("\"\u202e\xff\""))
	f.Add([]byte(`[[[[[[]]]]]]`))
	f.Add([]byte("{\"k\":\"" + strings.Repeat("日本", 200) + "\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, w := range []int{7, 33} {
			m := New(b, DefaultStyles(), WithFoldLines(3), WithFoldString(10))
			m.SetSize(w, 5)
			for _, k := range []string{"", "L", "j", "j", "enter", "G", "h", "H", "l"} {
				if k != "" {
					m = send(m, k)
				}
				v := m.View()
				golden.Safe(t, v)
				for _, l := range strings.Split(v, "\n") {
					if ansi.StringWidth(l) > w {
						t.Fatalf("line %q wider than %d", l, w)
					}
				}
				m.Selected()
			}
		}
	})
}
