package scrapeopts

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzCrawlOptions: any crawl options the service sends (nested past any
// depth, wrong types, escape sequences) render as one-line, escape-free
// options, without a panic.
func FuzzCrawlOptions(f *testing.F) {
	f.Add([]byte(`{"scrapeOptions":{"formats":["markdown",{"type":"json","prompt":"\u001b]52;c;x\u0007"}],"parsePDF":true,"maxAge":-1}}`))
	f.Add([]byte(`{"scrapeOptions":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200) + `}`))
	f.Add([]byte(`{"scrapeOptions":"\u202e"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := Render(ScrapeOptions(jsontext.Value(b)))
		for _, l := range append(Lines(opts), Pretty(jsontext.Value(b))) {
			if strings.ContainsAny(l, "\x1b\a\u009b") {
				t.Fatalf("escape in %q", l)
			}
		}
		for _, o := range opts {
			if strings.ContainsAny(o.Value, "\n\r") {
				t.Fatalf("value on more than one line: %q", o.Value)
			}
		}
	})
}
