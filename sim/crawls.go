package sim

import "math/rand/v2"

// moreCrawls are the active crawls besides the first two: a screenshot
// object format with actions, location and headers; and a client still
// sending v1 options (an "extract" format, parsePDF), as the real service
// keeps them in the crawl's options.
func moreCrawls(r *rand.Rand, team string) arr {
	c3 := obj{"id", randUUID(r).String(), "teamId", team, "url", "https://shop.example-outdoor.com/tents",
		"options", obj{"scrapeOptions", obj{
			"formats", arr{"markdown", "summary", obj{"type", "screenshot", "fullPage", true, "quality", 80, "viewport", obj{"width", 1280, "height", 800}}},
			"onlyMainContent", true, "includeTags", []string{"main", ".product"}, "maxAge", 172800000,
			"headers", obj{"Accept-Language", "de-DE"}, "mobile", true,
			"actions", arr{obj{"type", "wait", "milliseconds", 1500}, obj{"type", "click", "selector", "#accept-cookies"}, obj{"type", "scroll", "direction", "down"}},
			"location", obj{"country", "DE", "languages", []string{"de-DE", "en"}},
			"skipTlsVerification", true, "removeBase64Images", false, "blockAds", true, "proxy", "stealth"},
			"limit", 1000, "maxDiscoveryDepth", 4, "sitemap", "include", "includePaths", []string{"^/tents/.*"}}}
	c4 := obj{"id", randUUID(r).String(), "teamId", team, "url", "https://investors.example-corp.com/reports",
		"options", obj{"scrapeOptions", obj{
			"formats", arr{"markdown", obj{"type", "extract", "prompt", "The report's fiscal year and total revenue"}, "rawHtml"},
			"parsePDF", true, "onlyMainContent", true, "maxAge", 172800000, "timeout", 60000,
			"parsers", arr{obj{"type", "pdf", "maxPages", 50}}, "skipTlsVerification", false, "blockAds", false, "storeInCache", false},
			"limit", 50, "maxDiscoveryDepth", 1, "sitemap", "only"}}
	return arr{c3, c4}
}
