package crawlprint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// 10 001 URLs that share their first 150 bytes get 10 001 page names,
// each short enough for any file system (a short hash of the URL tells
// them apart). The names were once cut at 120 bytes and numbered -2 to
// -9999: the 10 000th page stopped the watch.
func TestCrawlPageNamesStayApart(t *testing.T) {
	t.Parallel()
	prefix := "https://docs.example.com/" + strings.Repeat("a-long-section-name/", 7)
	names := map[string]string{}
	for i := range 10001 {
		u := fmt.Sprint(prefix, i)
		name := PageName(u) + ".md"
		if other, ok := names[name]; ok || len(name) > 120 {
			t.Fatalf("page %s is named %s (%d bytes), as is %q", u, name, len(name), other)
		}
		names[name] = u
	}
}

// Pages whose URLs share their start, one URL twice, and a file already
// where a page would go: every page gets a file of its own, none is
// written over, the key is in none of them, and the index maps each URL
// to its file.
func TestCrawlPagesDirNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prefix := "https://docs.example.com/" + strings.Repeat("a-long-section-name/", 7)
	if err := os.WriteFile(filepath.Join(dir, PageName(prefix+"0")+".md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "fc-0123456789abcdef0123456789abcdef"
	p, err := OpenPages(dir, text.NewSecrets(key))
	if err != nil {
		t.Fatal(err)
	}
	const n = 301
	for i := range n {
		if err := p.Write(&poller.CrawlDoc{URL: fmt.Sprint(prefix, i), Markdown: fmt.Sprint("page ", i, " ", key)}); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	if err := p.Write(&poller.CrawlDoc{URL: prefix + "7", Markdown: "page 7 again"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, PageName(prefix+"0")+".md")); string(b) != "mine" {
		t.Fatalf("a file already there was written over: %q", b)
	}
	index, err := os.ReadFile(filepath.Join(dir, PagesIndex))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(index)), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%d index lines for %d pages", len(lines), n+1)
	}
	files := map[string]bool{}
	for i, l := range lines {
		var e struct {
			URL  string `json:"url"`
			File string `json:"file"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || files[e.File] || len(e.File) > 120 {
			t.Fatalf("index line %d %s: %v", i, l, err)
		}
		files[e.File] = true
		b, err := os.ReadFile(filepath.Join(dir, e.File))
		want := "page " + strings.TrimPrefix(e.URL, prefix) + " "
		if i == n {
			want = "page 7 again"
		}
		if err != nil || !strings.HasPrefix(string(b), want) || strings.Contains(string(b), key) {
			t.Fatalf("%s holds %q (%v), want %q and no key", e.File, b, err, want)
		}
	}
}
