package content

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

// -update: golden.Check rewrites the golden files instead of comparing.
var _ = flag.Bool("update", false, "rewrite the golden files")

var (
	sgr  = regexp.MustCompile(`\x1b\[[0-9;:]*m`)
	osc8 = regexp.MustCompile(`\x1b\]8;[A-Za-z0-9=:._-]*;(https?://|mailto:)?[\x21-\x7e]*?\x07`)
)

// assertSafe fails when s holds anything but sanitised text, newlines, SGR
// and OSC 8 hyperlinks to http(s)/mailto targets.
func assertSafe(t testing.TB, s string) {
	t.Helper()
	for _, m := range osc8.FindAllString(s, -1) {
		_, uri, _ := strings.Cut(m[len("\x1b]8;"):len(m)-1], ";")
		if uri != "" && !strings.HasPrefix(uri, "http") && !strings.HasPrefix(uri, "mailto:") {
			t.Fatalf("hyperlink to %q", uri)
		}
	}
	golden.Safe(t, osc8.ReplaceAllString(s, ""))
}

// show builds the view of a snapshot at width × height, finishing any
// markdown render, and checks its shape.
func show(t *testing.T, r *Renderer, kind model.ArtifactKind, snap string, w, h int) Model {
	t.Helper()
	m := New(r, kind, snap)
	if cmd := m.SetSize(w, h); cmd != nil {
		if !m.Rendering() {
			t.Fatal("a command but no render in flight")
		}
		// Until the render is in, the text is shown as it is.
		check(t, m)
		m, _ = m.Update(cmd())
	}
	if m.Rendering() {
		t.Fatal("still rendering")
	}
	check(t, m)
	return m
}

func check(t *testing.T, m Model) string {
	t.Helper()
	v := m.View()
	assertSafe(t, v)
	golden.Fits(t, v, m.st.width, m.st.height)
	return v
}

func trimRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func TestGoldenKinds(t *testing.T) {
	kinds := []struct {
		kind model.ArtifactKind
		snap string
	}{
		{model.KindJSON, `{"items":[{"name":"Niche Zero","price":699},{"name":"Encore \u001b[31mESP","price":199}],"count":2,"note":"` + strings.Repeat("long ", 80) + `"}`},
		{model.KindMarkdown, golden.Read(t, "snap.md")},
		{model.KindHTML, golden.Read(t, "snap.html")},
		{model.KindText, golden.Read(t, "snap.txt")},
		{model.KindScreenshot, "https://cdn.example.com/shots/abc.png"},
		{"spreadsheet", "a,b,c\n1,2,3\n\x1b[2Jboom"},
	}
	for _, w := range []int{80, 40} {
		var out strings.Builder
		r := NewRenderer(DefaultStyles(), Options{Glamour: GlamourDark})
		for _, k := range kinds {
			m := show(t, r, k.kind, k.snap, w, 60)
			out.WriteString("== " + string(k.kind) + "\n" + trimRight(ansi.Strip(m.View())) + "\n")
		}
		golden.Check(t, "kinds-"+itoa(w)+".golden", out.String())
	}
}

func TestGoldenColour(t *testing.T) {
	r := NewRenderer(DefaultStyles(), Options{Glamour: GlamourDark})
	md := show(t, r, model.KindMarkdown, golden.Read(t, "snap.md"), 60, 40)
	html := show(t, r, model.KindHTML, golden.Read(t, "snap.html"), 60, 20)
	golden.Check(t, "colour.golden", md.View()+"\n==\n"+html.View())
	if !strings.Contains(md.View(), "\x1b[") || !strings.Contains(html.View(), "\x1b[") {
		t.Fatal("no colour")
	}
}

func TestNoColour(t *testing.T) {
	r := NewRenderer(PlainStyles(), Options{Glamour: GlamourNoTTY, ASCII: true})
	for _, k := range []model.ArtifactKind{model.KindMarkdown, model.KindHTML, model.KindText, model.KindJSON} {
		m := show(t, r, k, golden.Read(t, "snap.md"), 60, 40)
		// Attributes only: no colour parameters (30-37, 38, 39, 40-49,
		// 90-107) in any SGR.
		for _, seq := range sgr.FindAllString(m.View(), -1) {
			for _, p := range strings.FieldsFunc(seq[2:len(seq)-1], func(r rune) bool { return r == ';' || r == ':' }) {
				if len(p) >= 2 && (p[0] == '3' || p[0] == '4' || p[0] == '9') || strings.HasPrefix(p, "10") {
					t.Fatalf("%s: colour in %q", k, seq)
				}
			}
		}
	}
}

func TestMarkdownSanitised(t *testing.T) {
	r := NewRenderer(DefaultStyles(), Options{Glamour: GlamourNoTTY})
	m := show(t, r, model.KindMarkdown, golden.Read(t, "snap.md"), 120, 80)
	v := m.View()
	plain := ansi.Strip(v)
	for _, bad := range []string{"\x1b[31", "\x1b[2J", "\u202e", "\u200e"} {
		if strings.Contains(v, bad) {
			t.Errorf("output holds %q", bad)
		}
	}
	for _, want := range []string{"red", "override", "marks", "clear", "javascript link"} {
		if !strings.Contains(plain, want) {
			t.Errorf("text %q lost", want)
		}
	}
	// The survey link stays a hyperlink; the javascript: one does not.
	if !strings.Contains(v, "\x1b]8;") || !strings.Contains(v, "https://example.com/survey?year=2026&x=1\a") {
		t.Error("no hyperlink to the survey")
	}
	if strings.Contains(v, "]8;;javascript") || strings.Contains(v, ";javascript:") {
		t.Error("javascript: hyperlink kept")
	}
}

// HTML in markdown shows as its text: no tags, no comments, nothing of a
// script or a style, character references decoded (glamour's own path,
// bluemonday's strict policy).
func TestMarkdownHTMLAsText(t *testing.T) {
	r := NewRenderer(DefaultStyles(), Options{Glamour: GlamourNoTTY})
	src := "# Limits\n\n<div class=\"note\">\n<p>Burst &lt;b&gt; is 10 &amp; more</p>\n<!-- hidden -->\n<script>alert(1)</script><style>p{color:red}</style>\n</div>\n\nInline <span style=\"x\">spanned</span> and <br> done.\n"
	plain := ansi.Strip(show(t, r, model.KindMarkdown, src, 100, 40).View())
	for _, want := range []string{"Burst <b> is 10 & more", "spanned", "done."} {
		if !strings.Contains(plain, want) {
			t.Errorf("text %q lost:\n%s", want, plain)
		}
	}
	for _, bad := range []string{"<div", "<p>", "</p>", "hidden", "alert", "color:red", "<span", "<br>", "&lt;", "&amp;"} {
		if strings.Contains(plain, bad) {
			t.Errorf("output holds %q:\n%s", bad, plain)
		}
	}
}

// A fenced code block is highlighted by chroma through glamour: its tokens
// come in more than one colour, and the colours survive filterOutput.
func TestMarkdownCodeHighlighted(t *testing.T) {
	lines, err := renderMarkdown("```go\nfunc main() { return 42 }\n```\n", GlamourDark, 60)
	if err != nil {
		t.Fatal(err)
	}
	colours := map[string]bool{}
	for _, l := range lines {
		for _, m := range sgrColour.FindAllString(l, -1) {
			colours[m] = true
		}
	}
	if len(colours) < 3 {
		t.Errorf("code block in %d colours %v, want chroma's per-token colours:\n%q", len(colours), colours, lines)
	}
	plain := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(plain, "func") || !strings.Contains(plain, "42") {
		t.Errorf("code text lost: %q", plain)
	}
}

var sgrColour = regexp.MustCompile(`38;5;\d+`)

func TestFilterOutput(t *testing.T) {
	for in, want := range map[string]string{
		"a\x1b[1;38;5;2mb\x1b[mc":              "a\x1b[1;38;5;2mb\x1b[mc",
		"x\x1b[2Jy\x1b[?25l":                   "xy",
		"\x1b]0;title\ax":                      "x",
		"\x1b]8;id=1;https://e.com/\alink":     "\x1b]8;id=1;https://e.com/\alink",
		"\x1b]8;;javascript:x\alink\x1b]8;;\a": "link\x1b]8;;\a",
		"\x1b]8;;https://e.com/\x1b[31m\a":     "\x1b[31m",
		"\x1b]52;c;ZXZpbA==\x1b\\ok":           "ok",
		"\x1bPq#0;2;0;0;0\x1b\\ok":             "ok",
		"bi\u202edi\u200b":                     "bidi",
		"\x1b7\x1b8done\x1b":                   "done",
	} {
		got := filterOutput(in)
		if got != want {
			t.Errorf("filterOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNeutraliseCharRefs(t *testing.T) {
	for in, want := range map[string]string{
		"&#27;[31m":            "\uFFFD[31m",
		"&#x1B;]8;;":           "\uFFFD]8;;",
		"&#x202E;":             "\uFFFD",
		"&#155;":               "\uFFFD",
		"&#0;":                 "\uFFFD",
		"&#x110000;":           "\uFFFD",
		"&#xD800;":             "\uFFFD",
		"&#65;&#x42;&#233;":    "&#65;&#x42;&#233;",
		"&amp; &lt; &#x1F600;": "&amp; &lt; &#x1F600;",
	} {
		if got := neutraliseCharRefs(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownAsync(t *testing.T) {
	r := NewRenderer(DefaultStyles(), Options{})
	src := golden.Read(t, "snap.md")
	m := New(r, model.KindMarkdown, src)
	cmd := m.SetSize(50, 20)
	if cmd == nil || !m.Rendering() {
		t.Fatal("no render command")
	}
	// Before the render: the source text, as it is.
	if !strings.Contains(ansi.Strip(m.View()), "# Espresso grinders") {
		t.Fatalf("fallback: %q", m.View())
	}
	// A resize while rendering does not start a second render...
	if c := m.SetSize(60, 20); c != nil {
		t.Fatal("second render started")
	}
	// ...but the first one's result, for 50 columns, starts one for 60.
	m, next := m.Update(cmd())
	if next == nil || !m.Rendering() {
		t.Fatal("no render for the new width")
	}
	m, _ = m.Update(next())
	if m.Rendering() || !m.st.glamour || m.st.linesWidth != 60 {
		t.Fatalf("rendering %v glamour %v width %d", m.Rendering(), m.st.glamour, m.st.linesWidth)
	}
	// Cached: a new view of the same content at 60 needs no command, and
	// one for a different model ignores the message.
	m2 := New(r, model.KindMarkdown, src)
	if c := m2.SetSize(60, 20); c != nil || !m2.st.glamour {
		t.Fatal("cache not used")
	}
	m2, _ = m2.Update(renderedMsg{id: m.st.id, width: 60, lines: []string{"other"}})
	if strings.Contains(m2.View(), "other") {
		t.Fatal("took another model's render")
	}
}

func TestMarkdownTooLarge(t *testing.T) {
	r := NewRenderer(DefaultStyles(), Options{MaxMarkdown: 100})
	m := New(r, model.KindMarkdown, strings.Repeat("# big\n", 50))
	if cmd := m.SetSize(40, 5); cmd != nil {
		t.Fatal("rendered")
	}
	v := ansi.Strip(m.View())
	if !strings.HasPrefix(v, "shown as text: 300 B is too large") || !strings.Contains(v, "# big") {
		t.Fatalf("%q", v)
	}
}

func TestCache(t *testing.T) {
	r := NewRenderer(DefaultStyles(), Options{CacheEntries: 2})
	for i, w := range []int{30, 31, 32} {
		if _, err := r.markdown("# x", [32]byte{byte(i)}, w); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.cache) != 2 {
		t.Fatalf("%d entries", len(r.cache))
	}
	if _, ok := r.cached(cacheKey{[32]byte{0}, 30, GlamourDark}); ok {
		t.Fatal("oldest not evicted")
	}
}

func TestScrollAndCopy(t *testing.T) {
	r := NewRenderer(PlainStyles(), Options{})
	text := strings.Repeat("line\n", 99) + "last \x1b[31mline"
	m := show(t, r, model.KindText, text, 20, 10)
	if m.Len() != 100 {
		t.Fatalf("%d lines", m.Len())
	}
	press := func(k tea.KeyPressMsg) { m, _ = m.Update(k) }
	press(tea.KeyPressMsg{Code: tea.KeyPgDown})
	press(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if m.Offset() != 11 {
		t.Fatalf("offset %d", m.Offset())
	}
	press(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if m.Offset() != 90 || !strings.HasSuffix(m.View(), "last line") {
		t.Fatalf("offset %d, view %q", m.Offset(), m.View())
	}
	press(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if m.Offset() != 0 {
		t.Fatalf("offset %d", m.Offset())
	}
	if txt, what := m.CopyText(); !strings.HasSuffix(txt, "last line") || what != "text content" {
		t.Fatalf("%q %q", txt, what)
	}

	j := show(t, r, model.KindJSON, `{"a":{"b":"c\u001b"}}`, 40, 10)
	j, _ = j.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	j, _ = j.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if txt, what := j.CopyText(); txt != "c" || what != "JSON at $.a.b" {
		t.Fatalf("%q %q", txt, what)
	}
	if len(j.ShortHelp()) == 0 || j.JSON() == nil {
		t.Fatal("no JSON help")
	}

	s := show(t, r, model.KindScreenshot, " https://cdn.example.com/a.png\u202e ", 40, 10)
	if s.Reference() != "https://cdn.example.com/a.png" {
		t.Fatalf("%q", s.Reference())
	}
	if txt, what := s.CopyText(); txt != s.Reference() || what != "screenshot reference" {
		t.Fatalf("%q %q", txt, what)
	}
	d := show(t, r, model.KindScreenshot, "data:image/png;base64,"+strings.Repeat("A", 5000), 60, 10)
	if d.Reference() != "" || !strings.Contains(d.Note(), "inline data (image/png, 5.0 kB)") || strings.Contains(d.View(), "AAAA") {
		t.Fatalf("%q / %q", d.Note(), d.View())
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add(golden.Read(f, "snap.md"))
	f.Add("[a](https://x.example/&#27;)\n\n&#x9b;2J `\x1b[31m` <b onclick=x>&lrm;</b>")
	f.Fuzz(func(t *testing.T, s string) {
		lines, err := renderMarkdown(s, GlamourDark, 30)
		if err != nil {
			return
		}
		for _, l := range lines {
			assertSafe(t, l)
			if ansi.StringWidth(l) > 30 {
				t.Fatalf("%q wider than 30", l)
			}
		}
	})
}
