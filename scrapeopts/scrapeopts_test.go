package scrapeopts

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // Lines
	}{
		{"v2 defaults hidden", `{"formats":["markdown"],"maxAge":172800000,"skipTlsVerification":true,"removeBase64Images":true,"blockAds":true}`,
			[]string{"formats: markdown"}},
		{"defaults turned off", `{"maxAge":0,"skipTlsVerification":false,"removeBase64Images":false,"blockAds":false}`,
			[]string{"maxAge: 0 (no cache)", "skipTlsVerification: false", "removeBase64Images: false", "blockAds: false"}},
		{"json and screenshot objects", `{"formats":[{"type":"json","prompt":"Get the price","schema":{"type":"object","properties":{"price":{},"name":{}}}},{"type":"screenshot","fullPage":true,"quality":80,"viewport":{"width":1280,"height":800}}]}`,
			[]string{`formats: json{prompt "Get the price", schema {name, price}}, screenshot{full page, quality 80, 1280x800}`}},
		{"v1 extract format", `{"formats":[{"type":"extract","prompt":"p"}]}`,
			[]string{`formats: extract{prompt "p"}  [renamed: v1 format: "extract" is {type: "json"} in v2]`}},
		{"v1 string formats", `{"formats":["extract","screenshot@fullPage"]}`,
			[]string{`formats: extract, screenshot@fullPage  [renamed: v1 format: v2 uses {type: "screenshot", fullPage: true}]`}},
		{"parsePDF", `{"parsePDF":false,"parsers":["pdf"]}`,
			[]string{"parsers: pdf", `parsePDF: false  [renamed: v1 option: v2 uses parsers: ["pdf"]]`}},
		{"actions location headers", `{"actions":[{"type":"wait","milliseconds":500},{"type":"click","selector":"#go"}],"location":{"country":"DE","languages":["de"]},"headers":{"Cookie":"secret=1","X-A":"b"}}`,
			[]string{"headers: Cookie: (hidden); X-A: b", "actions: wait 500ms → click #go", "location: DE (de)"}},
		{"maxAge hours, unknown option, hostile text", `{"maxAge":3600000,"zeta":{"a":1},"proxy":"\u001b[31mred"}`,
			[]string{"maxAge: 1h", "proxy: red", `zeta: {"a":1}`}},
		{"not an object", `[1]`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Lines(Render(jsontext.Value(tc.in)))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestScrapeOptions(t *testing.T) {
	if got := string(ScrapeOptions(jsontext.Value(`{"scrapeOptions":{"formats":["html"]},"limit":5}`))); got != `{"formats":["html"]}` {
		t.Fatalf("nested: %s", got)
	}
	if got := ScrapeOptions(jsontext.Value(`{"limit":5}`)); got != nil {
		t.Fatalf("none: %s", got)
	}
}

// Options at their v2 defaults are not shown; the same options set
// otherwise are.
func TestV2DefaultsHidden(t *testing.T) {
	defaults := `{"formats":["markdown"],"onlyMainContent":true,"proxy":"auto","storeInCache":true,"mobile":false,"waitFor":0,"timeout":30000,"maxAge":172800000,"skipTlsVerification":true,"removeBase64Images":true,"blockAds":true}`
	got := Lines(Render(jsontext.Value(defaults)))
	if len(got) != 1 || !strings.HasPrefix(got[0], "formats:") {
		t.Errorf("v2 defaults rendered as %q, want the formats alone", got)
	}
	changed := `{"onlyMainContent":false,"proxy":"stealth","storeInCache":false,"mobile":true,"waitFor":500,"timeout":60000}`
	if got := Lines(Render(jsontext.Value(changed))); len(got) != 6 {
		t.Errorf("options off their defaults: %q, want six lines", got)
	}
}
