package content

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// The patched goldmark (third_party/goldmark) builds its attribute filters
// and its default Markdown on first use; they must answer as built eagerly.
func TestGoldmarkLazyFilters(t *testing.T) {
	for _, c := range []struct {
		f    util.BytesFilter
		name string
		want bool
	}{
		{html.GlobalAttributeFilter, "class", true},
		{html.GlobalAttributeFilter, "href", false},
		{html.LinkAttributeFilter, "href", true},
		{html.LinkAttributeFilter, "class", true},
		{html.LinkAttributeFilter, "onclick", false},
		{html.ImageAttributeFilter, "srcset", true},
		{extension.TableThCellAttributeFilter, "colspan", true},
		{extension.TableAttributeFilter, "colspan", false},
	} {
		if got := c.f.Contains([]byte(c.name)); got != c.want {
			t.Errorf("filter %p Contains(%q) = %v, want %v", c.f, c.name, got, c.want)
		}
	}
	// An extended filter holds what its parent held when it was extended,
	// not what the parent was given after.
	f := util.NewBytesFilterString("a,bb")
	g := f.ExtendString("ccc")
	h := g.Extend([]byte("ee"))
	f.Add([]byte("dddd"))
	g.Add([]byte("fffff"))
	for _, c := range []struct {
		f     util.BytesFilter
		in    []string
		notIn []string
	}{
		{f, []string{"a", "bb", "dddd"}, []string{"ccc", "ee", "fffff"}},
		{g, []string{"a", "bb", "ccc", "fffff"}, []string{"dddd", "ee"}},
		{h, []string{"a", "bb", "ccc", "ee"}, []string{"dddd", "fffff"}},
	} {
		for _, s := range c.in {
			if !c.f.Contains([]byte(s)) {
				t.Errorf("filter %p lacks %q", c.f, s)
			}
		}
		for _, s := range c.notIn {
			if c.f.Contains([]byte(s)) {
				t.Errorf("filter %p holds %q", c.f, s)
			}
		}
	}
	var out bytes.Buffer
	if err := goldmark.Convert([]byte("# T\n\n[x](https://a.example/)\n"), &out); err != nil || out.String() != "<h1>T</h1>\n<p><a href=\"https://a.example/\">x</a></p>\n" {
		t.Errorf("goldmark.Convert: %q, %v", out.String(), err)
	}
}
