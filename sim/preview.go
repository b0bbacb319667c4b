package sim

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// POST /v2/crawl/params-preview: the crawl options a prompt's words give.
//
//	paths        "/blog", "blog", "docs"/"documentation", "pricing", "api", "guides", "careers", "news",
//	             "changelog", "tutorials" → includePaths; after "except", "excluding", "but not",
//	             "without", "skip", "ignore" → excludePaths
//	depth        "N levels"/"depth N"/"N deep" (N in digits or one to ten) → maxDepth and maxDiscoveryDepth N; "only this page",
//	             "shallow", "top-level" → 1
//	domain       "entire site", "whole site", "entire domain", "everything", "all pages" → crawlEntireDomain
//	subdomains   "subdomain(s)" → allowSubdomains (unless "no subdomains")
//	external     "external" → allowExternalLinks (unless "no external", "not external", "without external")
//	limit        "N pages" → limit N
//	sitemap      "sitemap only"/"only the sitemap" → "only"; "ignore the sitemap"/"skip the sitemap"/"no sitemap" → "skip"

var (
	rePreviewPath  = regexp.MustCompile(`(?:^|\s)(/[\w\-./]+)`)
	rePreviewDepth = regexp.MustCompile(`\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s*(?:levels?|deep)|depth\s*(?:of\s*)?(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b`)
	rePreviewLimit = regexp.MustCompile(`(\d+)\s*pages`)
	previewWords   = map[string]string{
		"blog": "blog", "docs": "docs", "documentation": "docs", "pricing": "pricing", "api": "api",
		"guides": "guides", "careers": "careers", "news": "news", "changelog": "changelog", "tutorials": "tutorials",
		"products": "products", "product": "products",
	}
	previewExcept = []string{"except", "excluding", "but not", "without", "skip", "ignore"}
)

type previewRequest struct {
	URL    *string `json:"url"`
	Prompt *string `json:"prompt"`
}

func (s *Server) serveParamsPreview(w http.ResponseWriter, req *http.Request) {
	var r previewRequest
	if !decodeBody(req, &r) {
		writeJSON(w, http.StatusBadRequest, errBody(msgInvalidBody))
		return
	}
	if r.URL == nil || strings.TrimSpace(*r.URL) == "" {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: url is required"))
		return
	}
	if u, err := url.Parse(strings.TrimSpace(*r.URL)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: invalid URL"))
		return
	}
	if r.Prompt == nil || strings.TrimSpace(*r.Prompt) == "" {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: prompt is required"))
		return
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "data", previewOptions(strings.TrimSpace(*r.URL), *r.Prompt)}))
}

func previewOptions(u, prompt string) obj {
	low := strings.ToLower(prompt)
	// The part after the first "except"-like word excludes.
	incl, excl := low, ""
	cut := len(low)
	for _, w := range previewExcept {
		if i := strings.Index(low, w); i >= 0 && i < cut {
			cut = i
		}
	}
	if cut < len(low) {
		incl, excl = low[:cut], low[cut:]
	}
	paths := func(s string) []string {
		out := []string{}
		seen := map[string]bool{}
		add := func(p string) {
			p = strings.TrimSuffix(p, "/")
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p+"/.*")
			}
		}
		for _, m := range rePreviewPath.FindAllStringSubmatch(s, -1) {
			add(strings.TrimPrefix(m[1], "/"))
		}
		// Words already inside an explicit path add nothing.
		s = rePreviewPath.ReplaceAllString(s, " ")
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
			if p, ok := previewWords[f]; ok {
				add(p)
			}
		}
		return out
	}
	include := paths(incl)
	exclude := []string{}
	if excl != "" {
		exclude = paths(excl)
	}
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	depth := 10
	if m := rePreviewDepth.FindStringSubmatch(low); m != nil {
		depth = previewNumber(m[1] + m[2])
	} else if has("only this page", "shallow", "top-level", "top level") {
		depth = 1
	}
	entire := has("entire site", "whole site", "entire domain", "everything", "all pages")
	subdomains := has("subdomain") && !has("no subdomain", "not subdomain", "without subdomain")
	external := has("external") && !has("no external", "not external", "without external")
	limit := 10000
	if m := rePreviewLimit.FindStringSubmatch(low); m != nil {
		limit, _ = strconv.Atoi(m[1])
	}
	sitemap := "include"
	switch {
	case has("sitemap only", "only the sitemap", "only sitemap"):
		sitemap = "only"
	case has("ignore the sitemap", "skip the sitemap", "no sitemap", "ignore sitemap", "without the sitemap"):
		sitemap = "skip"
	}
	return obj{
		"url", u,
		"includePaths", include,
		"excludePaths", exclude,
		"maxDepth", depth,
		"maxDiscoveryDepth", depth,
		"crawlEntireDomain", entire,
		"allowExternalLinks", external,
		"allowSubdomains", subdomains,
		"sitemap", sitemap,
		"limit", limit,
		"prompt", prompt,
	}
}

// previewNumber reads a depth in digits or in words (one to ten).
func previewNumber(w string) int {
	if n, err := strconv.Atoi(w); err == nil {
		return n
	}
	return slices.Index([]string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}, w) + 1
}
