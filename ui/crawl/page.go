package crawl

import (
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// pageView is one opened page: its markdown (through ui/content), its
// metadata and its links, one tab at a time. It holds the page's content
// only while it is open.
type pageView struct {
	url, title string
	markdown   string
	md         content.Model
	meta       []string
	links      []string
	tab        int // 0 markdown, 1 metadata, 2 links
	off        int // metadata and links scroll
	w, h       int
	st         *theme.Styles
	sym        theme.Symbols
	keys       scroll.Keys
	tabKey     key.Binding
}

func newPageView(d *poller.CrawlDoc, r *content.Renderer, st *theme.Styles, sym theme.Symbols) *pageView {
	v := &pageView{url: d.URL, title: d.Title, markdown: d.Markdown, md: content.New(r, model.KindMarkdown, d.Markdown),
		st: st, sym: sym, keys: scroll.DefaultKeys(), tabKey: DefaultKeyMap().Tab}
	v.links = d.Links
	var top map[string]jsontext.Value
	_ = json.Unmarshal(d.Raw, &top)
	var md map[string]jsontext.Value
	_ = json.Unmarshal(top["metadata"], &md)
	names := make([]string, 0, len(md))
	for k := range md {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		val := md[k]
		s := describe.JSON(val, 300)
		if val.Kind() == '"' {
			var str string
			_ = json.Unmarshal(val, &str)
			s = str
		}
		v.meta = append(v.meta, describe.OneLine(text.Sanitize(k), 40)+": "+describe.OneLine(text.Sanitize(s), 300))
	}
	return v
}

func (v *pageView) setSize(w, h int) tea.Cmd {
	v.w, v.h = w, h
	return v.md.SetSize(w, max(h-1, 1))
}

func (v *pageView) update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, v.tabKey) {
		switch km.String() {
		case "1", "2", "3":
			v.tab = int(km.String()[0] - '1')
		default:
			v.tab = (v.tab + 1) % 3
		}
		v.off = 0
		return nil
	}
	if v.tab == 0 {
		var cmd tea.Cmd
		v.md, cmd = v.md.Update(msg)
		return cmd
	}
	n := len(v.meta)
	if v.tab == 2 {
		n = len(v.links)
	}
	v.off, _ = scroll.Move(msg, v.keys, v.off, max(v.h-1, 1), n)
	return nil
}

// render draws the tabs line and h-1 lines of the tab.
func (v *pageView) render(w, h int) []string {
	tabs := []string{"1 markdown", "2 metadata", "3 links (" + strconv.Itoa(len(v.links)) + ")"}
	for i := range tabs {
		if i == v.tab {
			tabs[i] = v.st.TitleFocus.Render(" " + tabs[i] + " ")
		} else {
			tabs[i] = v.st.Muted.Render(" " + tabs[i] + " ")
		}
	}
	out := []string{" " + v.st.Bold.Render(describe.OneLine(v.title, max(w/2, 10))) + "  " + v.st.Muted.Render(describe.OneLine(v.url, max(w/2-4, 10))),
		strings.Join(tabs, " ")}
	body := h - 1
	switch v.tab {
	case 0:
		if s := v.md.View(); s != "" {
			out = append(out, strings.Split(s, "\n")...)
		}
	default:
		src := v.meta
		if v.tab == 2 {
			src = v.links
		}
		v.off = scroll.Clamp(v.off, len(src), body-1)
		for i := v.off; i < len(src) && len(out) < body+1; i++ {
			out = append(out, " "+describe.OneLine(src[i], max(w-2, 1)))
		}
		if len(src) == 0 {
			out = append(out, "   "+v.st.Muted.Render("none"))
		}
	}
	if len(out) > h+1 {
		out = out[:h+1]
	}
	return out
}

func (v *pageView) shortHelp() []key.Binding {
	return []key.Binding{v.tabKey, v.keys.Down, v.keys.PageDown}
}

// save writes the page's markdown to dir, secrets redacted.
func (v *pageView) save(dir string, secrets *text.Secrets) tea.Cmd {
	u, md := v.url, v.markdown
	return func() tea.Msg {
		p, err := SavePage(dir, u, ".md", md, secrets)
		return savedMsg{p, err}
	}
}
