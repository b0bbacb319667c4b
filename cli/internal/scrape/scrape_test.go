package scrape

import (
	"strings"
	"testing"
)

// scrape's options become the v2 body; bad ones are the command's usage
// errors.
func TestRequestFromOptions(t *testing.T) {
	mainContentSet := func(flag string) bool { return flag == "only-main-content" }
	none := func(string) bool { return false }
	tests := []struct {
		url     string
		o       Options
		changed func(string) bool
		body    string // "" when an error
		err     string
	}{
		{"https://a.dev", Options{OnlyMainContent: true}, none, `{"url":"https://a.dev"}`, ""},
		{"https://a.dev", Options{Formats: []string{"markdown", "links", "html"}}, none, `{"url":"https://a.dev","formats":["markdown","links","html"]}`, ""},
		{"https://a.dev", Options{WaitFor: 1500, Mobile: true}, mainContentSet, `{"url":"https://a.dev","onlyMainContent":false,"waitFor":1500,"mobile":true}`, ""},
		{"https://a.dev", Options{Screenshot: true}, none, `{"url":"https://a.dev","formats":["markdown",{"type":"screenshot","fullPage":true}]}`, ""},
		{"https://a.dev", Options{Formats: []string{"links"}, JSONPrompt: "the prices"}, none, `{"url":"https://a.dev","formats":["links",{"type":"json","prompt":"the prices"}]}`, ""},
		{"https://a.dev", Options{Formats: []string{"screenshot"}}, none, `{"url":"https://a.dev","formats":[{"type":"screenshot","fullPage":true}]}`, ""},
		{"a.dev", Options{}, none, "", "must start with http"},
		{"https://a.dev", Options{Formats: []string{"extract"}}, none, "", "v1 name; in v2 it is json"},
		{"https://a.dev", Options{Formats: []string{"screenshot@fullPage"}}, none, "", "v1 name"},
		{"https://a.dev", Options{Formats: []string{"markdwn"}}, none, "", "must be among"},
		{"https://a.dev", Options{WaitFor: 60001}, none, "", "0 to 60000"},
		{"https://a.dev", Options{JSONSchema: "/nonexistent/schema.json"}, none, "", "--json-schema"},
	}
	for _, tt := range tests {
		t.Run(tt.url+" "+tt.body+tt.err, func(t *testing.T) {
			req, err := tt.o.Request(tt.url, tt.changed)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(req.Body()); got != tt.body {
				t.Errorf("body %s\nwant %s", got, tt.body)
			}
		})
	}
}
