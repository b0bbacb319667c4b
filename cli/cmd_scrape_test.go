package cli

import (
	"strings"
	"testing"
)

// The flags of scrape become the v2 body; bad ones are usage errors.
func TestScrapeRequestFromFlags(t *testing.T) {
	tests := []struct {
		args []string
		body string // "" when a usage error
		err  string
	}{
		{[]string{"https://a.dev"}, `{"url":"https://a.dev"}`, ""},
		{[]string{"https://a.dev", "--formats", "markdown,links", "--formats", "html"}, `{"url":"https://a.dev","formats":["markdown","links","html"]}`, ""},
		{[]string{"https://a.dev", "--only-main-content=false", "--wait-for", "1500", "--mobile"}, `{"url":"https://a.dev","onlyMainContent":false,"waitFor":1500,"mobile":true}`, ""},
		{[]string{"https://a.dev", "--screenshot"}, `{"url":"https://a.dev","formats":["markdown",{"type":"screenshot","fullPage":true}]}`, ""},
		{[]string{"https://a.dev", "--formats", "links", "--json-prompt", "the prices"}, `{"url":"https://a.dev","formats":["links",{"type":"json","prompt":"the prices"}]}`, ""},
		{[]string{"https://a.dev", "--formats", "screenshot"}, `{"url":"https://a.dev","formats":[{"type":"screenshot","fullPage":true}]}`, ""},
		{[]string{"a.dev"}, "", "must start with http"},
		{[]string{"https://a.dev", "--formats", "extract"}, "", "v1 name; in v2 it is json"},
		{[]string{"https://a.dev", "--formats", "screenshot@fullPage"}, "", "v1 name"},
		{[]string{"https://a.dev", "--formats", "markdwn"}, "", "must be among"},
		{[]string{"https://a.dev", "--wait-for", "60001"}, "", "0 to 60000"},
		{[]string{"https://a.dev", "--json-schema", "/nonexistent/schema.json"}, "", "--json-schema"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			a := &app{stdout: &strings.Builder{}, stderr: &scrubWriter{w: &strings.Builder{}}}
			cmd := a.scrapeCommand()
			if err := cmd.ParseFlags(tt.args[1:]); err != nil {
				t.Fatal(err)
			}
			s := &scrapeOptions{}
			f := cmd.Flags()
			s.Formats, _ = f.GetStringSlice("formats")
			s.OnlyMainContent, _ = f.GetBool("only-main-content")
			s.WaitFor, _ = f.GetInt("wait-for")
			s.Mobile, _ = f.GetBool("mobile")
			s.JSONPrompt, _ = f.GetString("json-prompt")
			s.JSONSchema, _ = f.GetString("json-schema")
			s.Screenshot, _ = f.GetBool("screenshot")
			req, err := scrapeRequest(cmd, s, tt.args[0])
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || codeOf(err) != ExitUsage {
					t.Fatalf("err %v, want %q (exit 2)", err, tt.err)
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
