// Package scrape is the scrape command below its flags: the v2 body its
// flags ask for (Request) and the content printed from the answer
// (Print). Its inputs are values the command layer fills in; nothing here
// reaches back into it.
package scrape

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Options are scrape's flags that shape the request.
type Options struct {
	Formats         []string
	OnlyMainContent bool
	WaitFor         int
	Mobile          bool
	JSONPrompt      string
	JSONSchema      string // a file holding a JSON Schema
	Screenshot      bool
}

// Formats are the v2 string formats; json and screenshot also come from
// their flags.
var Formats = []string{"markdown", "html", "rawHtml", "links", "summary", "images", "screenshot", "json"}

// v1 names people still type, and what v2 calls them.
var v1Formats = map[string]string{
	"extract":             "json (--json-prompt / --json-schema)",
	"screenshot@fullpage": "screenshot (--screenshot)",
	"content":             "markdown",
	"rawhtml":             "rawHtml",
	"llm-extraction":      "json (--json-prompt / --json-schema)",
}

// Request builds the request for rawURL from o, or says what is wrong (the
// command's bad usage); changed says whether a flag was given (an
// --only-main-content not given is not sent).
func (o *Options) Request(rawURL string, changed func(flag string) bool) (*poller.ScrapeRequest, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not a URL firewatch can scrape: it must start with http:// or https:// and name a host", text.Sanitize(rawURL))
	}
	req := &poller.ScrapeRequest{URL: u.String(), WaitFor: o.WaitFor, Mobile: o.Mobile}
	if o.WaitFor < 0 || o.WaitFor > 60000 {
		return nil, fmt.Errorf("--wait-for %d: it must be from 0 to 60000 milliseconds", o.WaitFor)
	}
	if changed("only-main-content") {
		v := o.OnlyMainContent
		req.OnlyMainContent = &v
	}
	seen := map[string]bool{}
	add := func(f poller.Format) {
		if !seen[f.Type] {
			seen[f.Type] = true
			req.Formats = append(req.Formats, f)
		}
	}
	for _, name := range o.Formats {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if v2, ok := v1Formats[strings.ToLower(name)]; ok && name != "rawHtml" {
			return nil, fmt.Errorf("--formats %s: that is a v1 name; in v2 it is %s", text.Sanitize(name), v2)
		}
		known := false
		for _, k := range Formats {
			known = known || k == name
		}
		if !known {
			return nil, fmt.Errorf("--formats %q: it must be among %s", text.Sanitize(name), strings.Join(Formats, ", "))
		}
		switch name {
		case "json":
			if o.JSONPrompt == "" && o.JSONSchema == "" {
				return nil, fmt.Errorf("--formats json needs --json-prompt or --json-schema")
			}
		case "screenshot":
			add(poller.Format{Type: "screenshot", FullPage: true})
		default:
			add(poller.Format{Type: name})
		}
	}
	if o.JSONPrompt != "" || o.JSONSchema != "" {
		jf := poller.Format{Type: "json", Prompt: o.JSONPrompt}
		if o.JSONSchema != "" {
			b, err := os.ReadFile(o.JSONSchema)
			if err != nil {
				return nil, fmt.Errorf("--json-schema: %v", err)
			}
			v := jsontext.Value(b)
			if err := v.Compact(); err != nil || v.Kind() != '{' {
				return nil, fmt.Errorf("--json-schema %s: not a JSON object (a JSON Schema such as {\"type\":\"object\",\"properties\":{...}})", o.JSONSchema)
			}
			jf.Schema = v
		}
		add(jf)
	}
	if o.Screenshot {
		add(poller.Format{Type: "screenshot", FullPage: true})
	}
	if len(req.Formats) > 0 && !seen["markdown"] && len(o.Formats) == 0 {
		// Flags for json or a screenshot add to the default, not replace it.
		req.Formats = append([]poller.Format{{Type: "markdown"}}, req.Formats...)
	}
	return req, nil
}

// Print writes to w the content of each format req asked of res,
// sanitised; with more than one, each under a "--- name ---" line.
func Print(w io.Writer, req *poller.ScrapeRequest, res *poller.ScrapeResult) {
	names := []string{"markdown"}
	if len(req.Formats) > 0 {
		names = names[:0]
		for _, f := range req.Formats {
			names = append(names, f.Type)
		}
	}
	for _, name := range names {
		var body string
		switch name {
		case "markdown":
			body = res.Markdown
		case "html":
			body = res.HTML
		case "rawHtml":
			body = res.RawHTML
		case "summary":
			body = res.Summary
		case "links":
			body = strings.Join(res.Links, "\n")
		case "screenshot":
			body = res.Screenshot
		case "json":
			if res.JSON != nil {
				v := res.JSON.Clone()
				if err := v.Indent(jsontext.WithIndent("  ")); err == nil {
					body = string(v)
				} else {
					body = string(res.JSON)
				}
			}
		case "images":
			var imgs []string
			if d, ok := dataField(res.Data, "images"); ok {
				_ = json.Unmarshal(d, &imgs)
			}
			body = strings.Join(imgs, "\n")
		}
		if len(names) > 1 {
			fmt.Fprintf(w, "--- %s ---\n", name)
		}
		body = strings.TrimSuffix(text.Sanitize(body), "\n")
		if body != "" {
			io.WriteString(w, body+"\n")
		}
	}
}

func dataField(data jsontext.Value, name string) (jsontext.Value, bool) {
	var m map[string]jsontext.Value
	if json.Unmarshal(data, &m) != nil {
		return nil, false
	}
	v, ok := m[name]
	return v, ok
}
