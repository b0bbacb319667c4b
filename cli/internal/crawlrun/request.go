package crawlrun

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/scrapeopts"
	"github.com/firewatch/firewatch/text"
)

// Options are what a new crawl is asked for: the flags of crawl that only
// a start takes. Whether a flag was given is said by a changed func (the
// flag's name): an option not given is not sent.
type Options struct {
	Prompt            string
	Limit             int
	IncludePaths      []string
	ExcludePaths      []string
	MaxDiscoveryDepth int
	Sitemap           string
	CrawlEntireDomain bool
	AllowSubdomains   bool
	AllowExternal     bool
	IgnoreQuery       bool
	Delay             time.Duration
	MaxConcurrency    int
	ScrapeOptions     string // a JSON object, or a file holding one
}

// startFlags are the flags of Options: only a new crawl takes them.
var startFlags = []string{"prompt", "limit", "include-path", "exclude-path", "max-discovery-depth", "sitemap",
	"crawl-entire-domain", "allow-subdomains", "allow-external-links", "ignore-query-parameters", "delay",
	"max-concurrency", "scrape-options", "detach"}

// Check checks the values of o that need no file: none given for a crawl
// watched by its id (isID), the sitemap's word and the bounds of the
// numbers given. Its error is the command's bad usage.
func (o *Options) Check(changed func(flag string) bool, isID bool) error {
	for _, n := range startFlags {
		if isID && changed(n) {
			return fmt.Errorf("--%s is for starting a crawl: give a URL, not a crawl id", n)
		}
	}
	if o.Sitemap != "" && o.Sitemap != "only" && o.Sitemap != "skip" && o.Sitemap != "include" {
		return fmt.Errorf("--sitemap %q: it must be only, skip or include", text.Sanitize(o.Sitemap))
	}
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{{"limit", o.Limit, 1}, {"max-discovery-depth", o.MaxDiscoveryDepth, 0}, {"max-concurrency", o.MaxConcurrency, 1}} {
		if changed(c.name) && c.v < c.min {
			return fmt.Errorf("--%s %d: it must be at least %d", c.name, c.v, c.min)
		}
	}
	return nil
}

// Request is the body of a crawl of rawURL as o asks. Its error is the
// command's bad usage.
func (o *Options) Request(rawURL string, changed func(flag string) bool) (*poller.CrawlRequest, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is neither a crawl id (a UUID) nor a URL to crawl (http:// or https://)", describe.OneLine(text.Sanitize(rawURL), 100))
	}
	r := &poller.CrawlRequest{URL: u.String(), Prompt: o.Prompt, IncludePaths: o.IncludePaths, ExcludePaths: o.ExcludePaths,
		Sitemap: o.Sitemap, Integration: "firewatch"}
	intFlag := func(name string, v int) *int {
		if changed(name) {
			return &v
		}
		return nil
	}
	boolFlag := func(name string, v bool) *bool {
		if changed(name) {
			return &v
		}
		return nil
	}
	r.Limit = intFlag("limit", o.Limit)
	r.MaxDiscoveryDepth = intFlag("max-discovery-depth", o.MaxDiscoveryDepth)
	r.MaxConcurrency = intFlag("max-concurrency", o.MaxConcurrency)
	r.CrawlEntireDomain = boolFlag("crawl-entire-domain", o.CrawlEntireDomain)
	r.AllowSubdomains = boolFlag("allow-subdomains", o.AllowSubdomains)
	r.AllowExternalLinks = boolFlag("allow-external-links", o.AllowExternal)
	r.IgnoreQueryParameters = boolFlag("ignore-query-parameters", o.IgnoreQuery)
	if changed("delay") {
		s := o.Delay.Seconds()
		r.Delay = &s
	}
	if o.ScrapeOptions != "" {
		v, err := readScrapeOptions(o.ScrapeOptions)
		if err != nil {
			return nil, err
		}
		r.ScrapeOptions = v
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// readScrapeOptions reads --scrape-options (JSON, or a file of it) and
// refuses the v1 leftovers the team view flags.
func readScrapeOptions(s string) (jsontext.Value, error) {
	b := []byte(s)
	if t := strings.TrimSpace(s); !strings.HasPrefix(t, "{") {
		fb, err := os.ReadFile(s)
		if err != nil {
			return nil, fmt.Errorf("--scrape-options: neither a JSON object nor a readable file: %v", err)
		}
		b = fb
	}
	v := jsontext.Value(bytes.TrimSpace(b)).Clone()
	if err := v.Compact(); err != nil || v.Kind() != '{' {
		return nil, fmt.Errorf("--scrape-options: not a JSON object")
	}
	var renamed []string
	for _, op := range scrapeopts.Render(v) {
		if op.Renamed != "" {
			renamed = append(renamed, op.Name+" ("+op.Renamed+")")
		}
	}
	if len(renamed) > 0 {
		return nil, fmt.Errorf("--scrape-options has v1 leftovers v2 refuses: %s", strings.Join(renamed, "; "))
	}
	return v, nil
}

// PreviewRequest is the previewed options as a v2 POST /v2/crawl body:
// the v2 options only (the preview's maxDepth dropped, the prompt not
// sent again: the options are what it derived).
func PreviewRequest(rawURL string, p *poller.CrawlPreview) (*poller.CrawlRequest, error) {
	keep := map[string]bool{"includePaths": true, "excludePaths": true, "maxDiscoveryDepth": true, "sitemap": true,
		"ignoreQueryParameters": true, "limit": true, "crawlEntireDomain": true, "allowExternalLinks": true,
		"allowSubdomains": true, "delay": true, "maxConcurrency": true, "scrapeOptions": true}
	obj := map[string]jsontext.Value{}
	for _, op := range p.Options {
		if keep[op.Name] && op.Value.Kind() != 'n' {
			obj[op.Name] = op.Value
		}
	}
	b, _ := json.Marshal(obj)
	var v struct {
		IncludePaths          []string       `json:"includePaths"`
		ExcludePaths          []string       `json:"excludePaths"`
		MaxDiscoveryDepth     *int           `json:"maxDiscoveryDepth"`
		Sitemap               string         `json:"sitemap"`
		IgnoreQueryParameters *bool          `json:"ignoreQueryParameters"`
		Limit                 *int           `json:"limit"`
		CrawlEntireDomain     *bool          `json:"crawlEntireDomain"`
		AllowExternalLinks    *bool          `json:"allowExternalLinks"`
		AllowSubdomains       *bool          `json:"allowSubdomains"`
		Delay                 *float64       `json:"delay"`
		MaxConcurrency        *int           `json:"maxConcurrency"`
		ScrapeOptions         jsontext.Value `json:"scrapeOptions"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("the preview's options cannot be sent as a crawl: %v", err)
	}
	r := &poller.CrawlRequest{URL: rawURL, IncludePaths: v.IncludePaths, ExcludePaths: v.ExcludePaths, MaxDiscoveryDepth: v.MaxDiscoveryDepth,
		Sitemap: v.Sitemap, IgnoreQueryParameters: v.IgnoreQueryParameters, Limit: v.Limit, CrawlEntireDomain: v.CrawlEntireDomain,
		AllowExternalLinks: v.AllowExternalLinks, AllowSubdomains: v.AllowSubdomains, Delay: v.Delay, MaxConcurrency: v.MaxConcurrency,
		ScrapeOptions: v.ScrapeOptions, Integration: "firewatch"}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("the preview's options cannot be sent as a crawl: %v", err)
	}
	return r, nil
}
