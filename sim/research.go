package sim

import (
	"fmt"
	"strings"
	"time"
)

// The research scenario: the demo's run. An orchestrator compares the
// pricing, rate limits and free tiers of five web-scraping APIs with three
// subagents (one of which spawns its own), browser sessions, real-looking
// tool calls, one retryable tool error, a growing result artifact and a
// markdown report. The vendors are real; the figures are illustrative.

const researchPrompt = "Compare the pricing, rate limits and free tiers of the top 5 web-scraping APIs. " +
	"For each: entry-level paid plan, monthly price, included requests, cost per 1,000 requests, " +
	"documented rate limits or concurrency, and what the free tier gives you. Cite sources."

var researchURLs = []string{"https://www.scrapingbee.com", "https://www.scraperapi.com", "https://www.zyte.com", "https://apify.com", "https://brightdata.com"}

type vendor struct {
	name, site, pricingURL, docsURL, signupURL string
	slug                                       string
	plan                                       string
	price                                      int // USD per month; 0 for pay-as-you-go
	included                                   string
	costPer1k                                  float64
	freeTier                                   string
	rateLimit                                  string
	pricingExcerpt                             string
	docsTitle, docsExcerpt                     string
	note                                       string
}

var vendors = []vendor{
	{
		name: "ScrapingBee", slug: "scrapingbee", site: "https://www.scrapingbee.com",
		pricingURL: "https://www.scrapingbee.com/pricing/", docsURL: "https://www.scrapingbee.com/documentation/",
		signupURL: "https://app.scrapingbee.com/account/register",
		plan:      "Freelance", price: 49, included: "250,000 API credits", costPer1k: 0.20,
		freeTier:       "1,000 free API calls on signup, no credit card",
		rateLimit:      "Concurrency-based: 10 concurrent requests on Freelance, 50 on Startup; no per-minute cap",
		pricingExcerpt: "## Simple, transparent pricing\n\n| Plan | Price | API credits | Concurrent requests |\n|---|---|---|---|\n| Freelance | $49/mo | 250,000 | 10 |\n| Startup | $99/mo | 1,000,000 | 50 |\n| Business | $249/mo | 3,000,000 | 100 |\n\nA request without JavaScript rendering costs 1 credit; with JavaScript rendering, 5 credits.",
		docsTitle:      "ScrapingBee API documentation: concurrency",
		docsExcerpt:    "## Concurrency\n\nEach plan has a maximum number of concurrent requests. Requests above the limit are answered with HTTP 429 and are not charged.",
		note:           "Cheapest per request when JavaScript rendering is off; rendering multiplies the cost by 5.",
	},
	{
		name: "ScraperAPI", slug: "scraperapi", site: "https://www.scraperapi.com",
		pricingURL: "https://www.scraperapi.com/pricing/", docsURL: "https://docs.scraperapi.com/resources/rate-limits",
		signupURL: "https://dashboard.scraperapi.com/signup",
		plan:      "Hobby", price: 49, included: "100,000 API credits", costPer1k: 0.49,
		freeTier:       "5,000 credits for a 7-day trial, then 1,000 credits a month",
		rateLimit:      "20 concurrent threads on Hobby, 50 on Startup; no per-minute cap",
		pricingExcerpt: "## Plans that grow with you\n\n- **Hobby**: $49/month, 100,000 API credits, 20 concurrent threads\n- **Startup**: $149/month, 1,000,000 API credits, 50 concurrent threads\n- **Business**: $299/month, 3,000,000 API credits, 100 concurrent threads\n\nAll plans include JS rendering, premium proxies and geotargeting (US & EU).",
		docsTitle:      "Rate limits and concurrency | ScraperAPI docs",
		docsExcerpt:    "# Rate limits\n\nScraperAPI limits concurrency, not requests per minute. When you exceed your plan's concurrent threads the API returns 429 Too Many Requests.",
		note:           "Includes rendering and premium proxies in every plan, so costs are easier to predict.",
	},
	{
		name: "Zyte API", slug: "zyte", site: "https://www.zyte.com",
		pricingURL: "https://www.zyte.com/pricing/", docsURL: "https://docs.zyte.com/zyte-api/usage/limits.html",
		signupURL: "https://app.zyte.com/account/signup/zyteapi",
		plan:      "Pay as you go", price: 0, included: "billed per successful response", costPer1k: 0.13,
		freeTier:       "$5 of free credit to try the API",
		rateLimit:      "500 requests per minute per API key by default; higher on request",
		pricingExcerpt: "## Zyte API pricing\n\nYou only pay for successful responses. Price per 1,000 responses depends on the website's difficulty tier and on browser rendering:\n\n| Tier | HTTP response | Browser rendering |\n|---|---|---|\n| 1 | from $0.13 | from $1.00 |\n| 2 | from $0.20 | from $1.50 |\n| 5 | from $1.27 | from $16.08 |",
		docsTitle:      "Limits — Zyte documentation",
		docsExcerpt:    "# Limits\n\nBy default, each API key can send up to 500 requests per minute. Requests over the limit get a 429 response with `Retry-After`.",
		note:           "Lowest entry price for easy sites, but the price per response rises steeply with site difficulty.",
	},
	{
		name: "Apify", slug: "apify", site: "https://apify.com",
		pricingURL: "https://apify.com/pricing", docsURL: "https://docs.apify.com/api/v2#rate-limiting",
		signupURL: "https://console.apify.com/sign-up",
		plan:      "Starter", price: 39, included: "$39 of prepaid platform usage", costPer1k: 0.30,
		freeTier:       "$5 of platform usage every month, no credit card",
		rateLimit:      "30 requests per second per resource; 250,000 requests per minute per account",
		pricingExcerpt: "## Pricing\n\n- **Free**: $0/month, $5 of monthly usage\n- **Starter**: $39/month, $39 of prepaid usage, 32 GB Actor RAM\n- **Scale**: $199/month, $199 of prepaid usage\n\nActors from the Store may charge per result, for example $0.30 per 1,000 pages.",
		docsTitle:      "Apify API v2: rate limiting",
		docsExcerpt:    "## Rate limiting\n\nAll API endpoints limit their rate of requests to 30 per second per resource, with a global limit of 250,000 requests per minute per user.",
		note:           "A platform rather than a single endpoint: the cost depends on the Actor you run.",
	},
	{
		name: "Bright Data", slug: "brightdata", site: "https://brightdata.com",
		pricingURL: "https://brightdata.com/pricing/web-unlocker", docsURL: "https://docs.brightdata.com/scraping-automation/web-unlocker/introduction",
		signupURL: "https://brightdata.com/cp/start",
		plan:      "Pay as you go", price: 0, included: "billed per successful request", costPer1k: 1.50,
		freeTier:       "Free trial for verified business accounts",
		rateLimit:      "No fixed rate limit; unlimited concurrent requests on Web Unlocker",
		pricingExcerpt: "## Web Unlocker API pricing\n\n| Plan | Price per 1K requests | Monthly commitment |\n|---|---|---|\n| Pay as you go | $1.50 | none |\n| Growth | $1.30 | $499 |\n| Business | $1.10 | $999 |\n\nYou pay only for successful requests.",
		docsTitle:      "Web Unlocker API introduction - Bright Data Docs",
		docsExcerpt:    "# Web Unlocker API\n\nSend as many concurrent requests as you need: Web Unlocker scales automatically and has no rate limit.",
		note:           "Most expensive per request but the most robust on hard targets, with no rate limit.",
	},
}

// researchDoc is the state of the run's workspace files, changed in time
// order by the artifact updates.
type researchDoc struct {
	priced  []int        // vendors in the result, in the order found
	limits  map[int]bool // vendors whose rate limit is known
	checked map[int]bool // vendors the verifier confirmed
	summary bool
	sources []string // verifier notes
}

func (d *researchDoc) resultJSON() string {
	vs := arr{}
	for _, i := range d.priced {
		v := vendors[i]
		o := obj{"name", v.name, "website", v.site,
			"entryPlan", obj{"name", v.plan, "monthlyPriceUsd", v.price, "included", v.included},
			"costPer1kRequestsUsd", v.costPer1k, "freeTier", v.freeTier}
		if d.limits[i] {
			o = append(o, "rateLimit", v.rateLimit)
		} else {
			o = append(o, "rateLimit", nil)
		}
		srcs := []string{v.pricingURL}
		if d.limits[i] {
			srcs = append(srcs, v.docsURL)
		}
		o = append(o, "sources", srcs)
		if d.checked[i] {
			o = append(o, "verified", true)
		}
		vs = append(vs, o)
	}
	o := obj{"task", "Compare the pricing, rate limits and free tiers of the top 5 web-scraping APIs", "vendors", vs}
	if d.summary {
		o = append(o,
			"summary", "For small volumes ScrapingBee and ScraperAPI are the simplest subscriptions ($49/month); Zyte API is cheapest per request on easy sites; Apify suits workflows built from ready-made Actors; Bright Data costs most but never rate-limits.",
			"recommendation", obj{"cheapestPerRequest", "Zyte API", "bestFreeTier", "Apify", "highestThroughput", "Bright Data"})
	} else {
		o = append(o, "summary", nil)
	}
	return indentJSON(o)
}

func (d *researchDoc) result(change string, fields []string, source string) *artChange {
	return &artChange{kind: "json", id: "result", path: "/workspace/result.json", change: change, fields: fields, source: source}
}

func researchAnswerDraft() string {
	return "# Web-scraping APIs: pricing, rate limits and free tiers\n\n" +
		"## Summary\n\n_Drafting…_\n\n## Comparison\n\n_Table pending verification._\n\n## Sources\n"
}

func researchAnswer() string {
	var s strings.Builder
	s.WriteString("# Web-scraping APIs: pricing, rate limits and free tiers\n\n")
	s.WriteString("Five APIs compared from their public pricing pages and API documentation: ScrapingBee, ScraperAPI, Zyte API, Apify and Bright Data.\n\n")
	s.WriteString("## Summary\n\n")
	s.WriteString("- **Simplest subscription:** ScrapingBee and ScraperAPI both start at $49/month; ScrapingBee includes more requests, ScraperAPI includes rendering and premium proxies in every request.\n")
	s.WriteString("- **Cheapest per request:** Zyte API, from $0.13 per 1,000 responses on easy sites, though the price rises steeply with site difficulty.\n")
	s.WriteString("- **Best free tier:** Apify gives $5 of usage every month with no card; the others give a one-off trial.\n")
	s.WriteString("- **Highest throughput:** Bright Data's Web Unlocker has no rate limit, at the highest price per request.\n\n")
	s.WriteString("## Comparison\n\n")
	s.WriteString("| API | Entry plan | Price / month | Included | Cost per 1,000 requests | Rate limit | Free tier |\n")
	s.WriteString("|---|---|---|---|---|---|---|\n")
	for _, v := range vendors {
		price := fmt.Sprintf("$%d", v.price)
		if v.price == 0 {
			price = "none"
		}
		fmt.Fprintf(&s, "| [%s](%s) | %s | %s | %s | $%.2f | %s | %s |\n", v.name, v.pricingURL, v.plan, price, v.included, v.costPer1k, v.rateLimit, v.freeTier)
	}
	s.WriteString("\n## Notes per API\n\n")
	for _, v := range vendors {
		fmt.Fprintf(&s, "### %s\n\n%s See the [pricing page](%s) and the [API documentation](%s).\n\n", v.name, v.note, v.pricingURL, v.docsURL)
	}
	s.WriteString("## Method\n\n")
	s.WriteString("1. Ranked candidates by how often they appear in recent comparison articles.\n")
	s.WriteString("2. Extracted plans from each pricing page with a fixed schema.\n")
	s.WriteString("3. Read rate limits from the API documentation, not from marketing pages.\n")
	s.WriteString("4. Cross-checked every price against a second source; Zyte's tiered price is given as a range.\n\n")
	s.WriteString("## Sources\n\n")
	n := 1
	for _, v := range vendors {
		fmt.Fprintf(&s, "%d. [%s pricing](%s)\n%d. [%s documentation](%s)\n", n, v.name, v.pricingURL, n+1, strings.TrimSuffix(v.name, " API")+" API", v.docsURL)
		n += 2
	}
	s.WriteString("\n> Simulated by firewatch's demo service: the vendors are real, the figures are illustrative and not current quotes.\n")
	return s.String()
}

func docsHTML(v vendor) string {
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + v.docsTitle + "</title>\n" +
		"<link rel=\"canonical\" href=\"" + v.docsURL + "\">\n</head>\n<body>\n<nav><a href=\"/\">Docs</a> › <a href=\"#\">Resources</a> › Rate limits</nav>\n" +
		"<main>\n<h1>Rate limits and concurrency</h1>\n" +
		"<p>" + v.name + " limits how many requests you can have <strong>in flight at once</strong>, not how many you send per minute.</p>\n" +
		"<table>\n<thead><tr><th>Plan</th><th>Concurrent threads</th><th>API credits / month</th></tr></thead>\n<tbody>\n" +
		"<tr><td>Hobby</td><td>20</td><td>100,000</td></tr>\n<tr><td>Startup</td><td>50</td><td>1,000,000</td></tr>\n<tr><td>Business</td><td>100</td><td>3,000,000</td></tr>\n" +
		"</tbody>\n</table>\n<h2>What happens above the limit</h2>\n" +
		"<p>Requests beyond your concurrency are answered with <code>429 Too Many Requests</code>. They are not charged; retry them with backoff.</p>\n" +
		"</main>\n</body>\n</html>\n"
}

func searchResults(b *builder, query string, hits []vendor, extra ...[2]string) obj {
	web := arr{}
	pos := 1
	for _, e := range extra {
		web = append(web, obj{"url", e[0], "title", e[1], "description", "An independent, hands-on comparison of web-scraping APIs: pricing, success rates, speed and rate limits, with code samples.", "position", pos})
		pos++
	}
	for _, v := range hits {
		web = append(web, obj{"url", v.pricingURL, "title", v.name + " pricing", "description", firstLine(v.pricingExcerpt, v.note), "position", pos})
		pos++
	}
	_ = query
	return obj{"web", web}
}

func firstLine(md, fallback string) string {
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "|") {
			return strings.TrimLeft(l, "-* ")
		}
	}
	return fallback
}

func scrapeParams(url string) obj {
	return obj{"url", url, "formats", []string{"markdown"}, "onlyMainContent", true}
}

func scrapeResult(url, title, md string) obj {
	return obj{"markdown", md, "metadata", obj{"title", title, "sourceURL", url, "url", url, "statusCode", 200, "contentType", "text/html; charset=utf-8", "cacheState", "miss"}}
}

var planSchema = obj{"type", "object", "properties", obj{
	"plan", obj{"type", "string"},
	"monthlyPriceUsd", obj{"type", "number"},
	"included", obj{"type", "string"},
	"costPer1kRequestsUsd", obj{"type", "number"},
	"freeTier", obj{"type", "string"},
}, "required", []string{"plan", "monthlyPriceUsd", "freeTier"}}

// research generates the research run, from run.started to run.finished.
func research(b *builder) { researchAt(b, false) }

// researchAt is the research run; low is effort low: half the credits per
// step and the pricing researcher stops after three vendors, so the result
// has fewer of them (what a rerun with less effort shows in a comparison).
func researchAt(b *builder, low bool) {
	d := &researchDoc{limits: map[int]bool{}, checked: map[int]bool{}}
	s := time.Second
	ms := time.Millisecond

	b.cmul = 2
	if low {
		b.cmul = 1
	}
	orch := b.newAgent("orchestrator", roleOrchestrator, -1)
	o := b.actor(orch, 0)
	o.emit(kRunStarted, nil)
	o.wait(b.between(40*ms, 120*ms))
	o.start()
	o.wait(b.between(300*ms, 700*ms))
	o.progress("planning", "Reading the task: compare pricing, rate limits and free tiers of the top 5 web-scraping APIs")
	o.think(b.between(1800*ms, 2600*ms), 4,
		"The user wants a side-by-side comparison of five web-scraping APIs on three axes: price, rate limits and the free tier. "+
			"I'll first confirm which vendors are most often ranked in the top five, then split the work: one researcher for pricing pages, "+
			"one analyst for the API documentation (rate limits and concurrency), and a verifier to cross-check every figure against a second source.")
	o.tool("mcp__tools__search", obj{"query", "best web scraping API pricing comparison", "limit", 8},
		searchResults(b, "", vendors, [2]string{"https://www.scrapingdog.com/blog/best-web-scraping-apis/", "Best Web Scraping APIs (Tested & Compared)"},
			[2]string{"https://research.aimultiple.com/web-scraping-api/", "Web Scraping APIs: Benchmark of 9 Providers"}),
		b.between(1500*ms, 2400*ms), 3)
	o.think(b.between(1200*ms, 2000*ms), 3,
		"The same five vendors appear across the top results: ScrapingBee, ScraperAPI, Zyte API, Apify and Bright Data. "+
			"Pricing models differ (credit subscriptions, pay-per-response, platform credit), so I'll normalise everything to cost per 1,000 requests. "+
			"Rate limits are rarely on pricing pages; they need the API docs.")
	o.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "init",
		update: func() (func() string, int) { c := d.resultJSON(); return func() string { return c }, 0 }})
	o.progress("working", "Splitting the work across 3 researchers: pricing pages, API limits, source verification")

	// pricing-researcher: one vendor after the other, pricing page then a
	// structured extract; appends each vendor to the result.
	p := o.spawn("pricing-researcher", "Find the entry-level paid plan, monthly price, included requests and free tier of ScrapingBee, ScraperAPI, Zyte API, Apify and Bright Data from their pricing pages.")
	o.wait(b.between(300*ms, 700*ms))
	dd := o.spawn("docs-analyst", "Read the API documentation of the 5 vendors and record their documented rate limits and concurrency limits, with the exact page.")

	p.think(b.between(1200*ms, 2200*ms), 3,
		"I'll go vendor by vendor: scrape the pricing page to see the plan table, then run a structured extract with a fixed schema so the five results line up. "+
			"Free tiers are often only described on signup pages; I'll hand those to a helper with a browser.")
	var appended []time.Duration
	var free *actor
	for i, v := range vendors {
		if low && i == 3 {
			break
		}
		title := v.name + " pricing"
		if i == 4 {
			// Bright Data renders its price table client-side: open a browser.
			sid := p.sessionStart()
			p.tool("mcp__tools__browser_navigate", obj{"url", v.pricingURL}, obj{"url", v.pricingURL, "title", "Web Unlocker API pricing - Bright Data", "status", 200}, b.between(1500*ms, 2500*ms), 1)
			p.tool("mcp__tools__browser_click", obj{"ref", "e41", "element", "Pay as you go tab"}, nil, b.between(400*ms, 900*ms), 1)
			p.tool("mcp__tools__browser_snapshot", obj{}, obj{"url", v.pricingURL, "text", v.pricingExcerpt}, b.between(600*ms, 1200*ms), 1)
			p.sessionEnd(sid)
		} else {
			p.tool("mcp__tools__scrape", scrapeParams(v.pricingURL), scrapeResult(v.pricingURL, title, v.pricingExcerpt), b.between(1800*ms, 4200*ms), 2)
		}
		ex := p.tool("mcp__tools__extract",
			obj{"urls", []string{v.pricingURL}, "prompt", "Extract the entry-level paid plan of " + v.name + ": plan name, monthly price in USD, included requests or credits, cost per 1,000 basic requests, and what the free tier includes.", "schema", planSchema},
			obj{"data", obj{"plan", v.plan, "monthlyPriceUsd", v.price, "included", v.included, "costPer1kRequestsUsd", v.costPer1k, "freeTier", v.freeTier}},
			b.between(3500*ms, 6000*ms), b.intn(5, 8))
		vi := i
		p.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "append", fields: []string{"vendors"}, source: ex,
			update: func() (func() string, int) {
				d.priced = append(d.priced, vi)
				c := d.resultJSON()
				return func() string { return c }, len(d.priced)
			}})
		appended = append(appended, p.t)
		switch i {
		case 1:
			free = p.spawn("free-tier-checker", "Open the signup pages of Apify and ScrapingBee in a browser and confirm exactly what the free tier includes and whether a credit card is needed.")
		case 2:
			p.think(b.between(1500*ms, 2500*ms), 4,
				"Zyte prices per successful response and by website difficulty tier, so there is no single monthly price. "+
					"I'll record the pay-as-you-go entry with the tier-1 price and let the verifier confirm the range.")
		}
		p.wait(b.between(200*ms, 900*ms))
	}
	p.think(b.between(1000*ms, 1800*ms), 3, "All five pricing pages are in the result. Bright Data needed a browser because its price table renders client-side; the others were plain scrapes.")

	// free-tier-checker (depth 2): a browser on two signup pages, a screenshot.
	f := free
	f.think(b.between(1000*ms, 1800*ms), 3,
		"Free tiers change often and the signup page is the most reliable place to read them. I'll open Apify's signup and pricing toggle first, screenshot the plan card, then check ScrapingBee's registration page.")
	sid := f.sessionStart()
	a, bee := vendors[3], vendors[0]
	f.tool("mcp__tools__browser_navigate", obj{"url", a.signupURL}, obj{"url", a.signupURL, "title", "Sign up | Apify Console", "status", 200}, b.between(1500*ms, 2600*ms), 1)
	f.tool("mcp__tools__browser_snapshot", obj{}, obj{"url", a.signupURL, "text", "Create your free account. Free plan: $5 of platform usage every month. No credit card required."}, b.between(600*ms, 1100*ms), 1)
	f.tool("mcp__tools__browser_navigate", obj{"url", a.pricingURL}, obj{"url", a.pricingURL, "title", "Pricing | Apify", "status", 200}, b.between(1200*ms, 2000*ms), 1)
	f.tool("mcp__tools__browser_click", obj{"ref", "e23", "element", "Billing period toggle: Monthly"}, nil, b.between(300*ms, 700*ms), 1)
	shot := f.tool("mcp__tools__browser_screenshot", obj{"fullPage", false}, obj{"path", "/workspace/screenshots/apify-pricing.png", "width", 1280, "height", 800}, b.between(700*ms, 1300*ms), 1)
	fileURL := b.fileURL
	f.artifact(&artChange{kind: "screenshot", id: "apify-pricing-screenshot", path: "/workspace/screenshots/apify-pricing.png", change: "init", source: shot,
		update: func() (func() string, int) {
			return func() string { return fileURL + "/screenshots/apify-pricing.png" }, -1
		}})
	f.tool("mcp__tools__browser_navigate", obj{"url", bee.signupURL}, obj{"url", bee.signupURL, "title", "Sign up - ScrapingBee", "status", 200}, b.between(1400*ms, 2400*ms), 1)
	f.tool("mcp__tools__browser_wait", obj{"text", "1,000 free API calls"}, nil, b.between(400*ms, 900*ms), 1)
	f.tool("mcp__tools__browser_snapshot", obj{}, obj{"url", bee.signupURL, "text", "Start your free trial: 1,000 free API calls. No credit card required."}, b.between(600*ms, 1000*ms), 1)
	f.sessionEnd(sid)
	f.think(b.between(900*ms, 1600*ms), 3,
		"Confirmed on the signup pages: Apify's free plan renews $5 of usage every month and ScrapingBee's trial is a one-off 1,000 calls. Neither asks for a credit card.")
	f.finish("succeeded", nil)
	p.waitUntil(f.t + b.between(300*ms, 800*ms))
	p.think(b.between(600*ms, 1200*ms), 2, "The free-tier checker confirmed both free tiers on the signup pages. Nothing in the result needs changing, so my part is done.")
	p.finish("succeeded", nil)

	// docs-analyst: docs pages, one timeout and a successful retry, an HTML
	// copy of a docs page, then the rate limits into the result.
	dd.think(b.between(1300*ms, 2200*ms), 4,
		"Rate limits live in the API reference, not on the pricing pages. I'll map each docs site for pages about limits and concurrency, scrape the best match, "+
			"and record whether the limit is per minute or on concurrent requests: the two are not comparable without saying which.")
	sa := vendors[1]
	dd.tool("mcp__tools__map", obj{"url", "https://docs.scraperapi.com", "search", "rate limit concurrency", "limit", 20},
		obj{"links", arr{
			obj{"url", sa.docsURL, "title", "Rate limits and concurrency"},
			obj{"url", "https://docs.scraperapi.com/resources/credits-and-requests", "title", "Credits and requests"},
			obj{"url", "https://docs.scraperapi.com/resources/status-codes", "title", "Status codes"},
		}}, b.between(1500*ms, 2600*ms), 2)
	sc := dd.tool("mcp__tools__scrape", obj{"url", sa.docsURL, "formats", []string{"markdown", "html"}, "onlyMainContent", true},
		scrapeResult(sa.docsURL, sa.docsTitle, sa.docsExcerpt), b.between(2000*ms, 3500*ms), 2)
	dd.artifact(&artChange{kind: "html", id: "scraperapi-rate-limits", path: "/workspace/pages/scraperapi-rate-limits.html", change: "init", source: sc,
		update: func() (func() string, int) { c := docsHTML(sa); return func() string { return c }, -1 }})
	z := vendors[2]
	zp := obj{"url", z.docsURL, "formats", []string{"markdown"}, "onlyMainContent", true, "timeout", 15000}
	zid := dd.toolStart("mcp__tools__scrape", zp)
	dd.wait(15 * s)
	dd.toolEnd(zid, "mcp__tools__scrape", nil)
	dd.errorEv("internal", "tool", true, "Scrape timed out after 15000ms: "+z.docsURL)
	dd.usage(1)
	dd.think(b.between(800*ms, 1500*ms), 2, "The Zyte docs page timed out; it is a heavy client-rendered page. Retrying once with a longer timeout and a short wait for the content to render.")
	dd.tool("mcp__tools__scrape", obj{"url", z.docsURL, "formats", []string{"markdown"}, "onlyMainContent", true, "timeout", 45000, "waitFor", 2000},
		scrapeResult(z.docsURL, z.docsTitle, z.docsExcerpt), b.between(4000*ms, 6000*ms), 2)
	ap := vendors[3]
	dd.tool("mcp__tools__search", obj{"query", "Apify API rate limit requests per second", "limit", 5},
		obj{"web", arr{
			obj{"url", ap.docsURL, "title", "Apify API v2 reference", "description", ap.docsExcerpt[len("## Rate limiting\n\n"):], "position", 1},
			obj{"url", "https://docs.apify.com/platform/limits", "title", "Limits | Platform | Apify Documentation", "description", "Resource limits of the Apify platform: memory, Actor runs, datasets and API rate limits.", "position", 2},
		}}, b.between(1200*ms, 2200*ms), 2)
	ex := dd.tool("mcp__tools__extract",
		obj{"urls", []string{ap.docsURL, bee.docsURL, vendors[4].docsURL}, "prompt", "For each page, extract the documented rate limit or concurrency limit and the status code returned when it is exceeded.",
			"schema", obj{"type", "object", "properties", obj{"limits", obj{"type", "array", "items", obj{"type", "object", "properties", obj{"url", obj{"type", "string"}, "limit", obj{"type", "string"}, "statusCode", obj{"type", "integer"}}}}}}},
		obj{"data", obj{"limits", arr{
			obj{"url", ap.docsURL, "limit", ap.rateLimit, "statusCode", 429},
			obj{"url", bee.docsURL, "limit", bee.rateLimit, "statusCode", 429},
			obj{"url", vendors[4].docsURL, "limit", vendors[4].rateLimit, "statusCode", nil},
		}}}, b.between(5000*ms, 7500*ms), 8)
	dd.think(b.between(1000*ms, 1800*ms), 3,
		"Two kinds of limit: Zyte and Apify cap requests per minute or second, ScrapingBee and ScraperAPI cap concurrent requests, Bright Data caps neither. "+
			"I'll write them as stated and let the report explain the difference.")
	dd.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "partial", fields: []string{"vendors[].rateLimit", "vendors[].sources"}, source: ex,
		update: func() (func() string, int) {
			for i := range vendors {
				d.limits[i] = true
			}
			c := d.resultJSON()
			return func() string { return c }, len(d.priced)
		}})
	dd.finish("succeeded", nil)

	// source-verifier: starts once two vendors are priced.
	o.waitUntil(appended[1] + b.between(800*ms, 1500*ms))
	o.progress("working", "Pricing found for 2 of 5 APIs; starting verification")
	v := o.spawn("source-verifier", "Check every price and free-tier figure in /workspace/result.json against a second, independent source and note any disagreement in /workspace/notes/sources.txt.")
	v.think(b.between(1000*ms, 1800*ms), 3,
		"I'll verify each figure against a source other than the page it came from: the vendor's docs or FAQ, or a recent independent review. "+
			"Disagreements go into the notes file with both URLs so the orchestrator can decide.")
	v.artifact(&artChange{kind: "text", id: "sources", path: "/workspace/notes/sources.txt", change: "init",
		update: func() (func() string, int) {
			d.sources = append(d.sources, "Source checks for /workspace/result.json", "")
			c := strings.Join(d.sources, "\n") + "\n"
			return func() string { return c }, len(d.sources) - 2
		}})
	for i := range appended {
		w := vendors[i]
		v.waitUntil(appended[i] + b.between(300*ms, 900*ms))
		srch := v.tool("mcp__tools__search", obj{"query", w.name + " pricing " + strings.ToLower(w.plan) + " plan per month", "limit", 5},
			obj{"web", arr{
				obj{"url", w.pricingURL, "title", w.name + " pricing", "description", w.note, "position", 1},
				obj{"url", w.site + "/faq", "title", w.name + " FAQ", "description", "Frequently asked questions about billing, credits and the free trial.", "position", 2},
			}}, b.between(1200*ms, 2200*ms), 2)
		if i == 3 {
			// One result comes back empty: the verifier notes it and moves on.
			v.tool("mcp__tools__scrape", scrapeParams(w.site+"/faq"), nil, b.between(1200*ms, 2000*ms), 1)
			v.think(b.between(600*ms, 1200*ms), 2, "Apify's FAQ page returned no content. The free-plan figure is already confirmed by the signup page the free-tier checker opened, so that counts as the second source.")
		}
		line := fmt.Sprintf("✔ %s: %s, %s; free tier: %s (%s; confirmed via %s)", w.name, w.plan, w.included, w.freeTier, w.pricingURL, w.site+"/faq")
		if i == 2 {
			line = fmt.Sprintf("⚠ %s: price depends on the site's difficulty tier; $%.2f per 1,000 is tier 1 only (%s)", w.name, w.costPer1k, w.pricingURL)
		}
		vi := i
		v.artifact(&artChange{kind: "text", id: "sources", path: "/workspace/notes/sources.txt", change: "append", source: srch,
			update: func() (func() string, int) {
				d.sources = append(d.sources, line)
				d.checked[vi] = true
				c := strings.Join(d.sources, "\n") + "\n"
				return func() string { return c }, len(d.sources) - 2
			}})
	}
	v.think(b.between(1000*ms, 1700*ms), 3,
		"Verified 14 of 15 figures against a second source. The one open point is Zyte's price: the $0.13 per 1,000 applies to tier-1 sites only, so the report should give it as a starting price.")
	v.finish("succeeded", nil)

	// The orchestrator follows along, then writes the report.
	o.waitUntil(appended[2] + b.between(400*ms, 900*ms))
	o.progress("working", "Pricing found for 3 of 5 APIs; rate limits in progress")
	o.waitUntil(max(p.t, dd.t) + b.between(300*ms, 700*ms))
	o.progress("working", "Pricing and rate limits collected for all 5 APIs; waiting for verification")
	o.waitUntil(max(v.t, p.t, dd.t) + b.between(400*ms, 900*ms))
	o.progress("finalizing", "Writing the comparison report")
	o.think(b.between(1500*ms, 2500*ms), 5,
		"All five APIs are priced and the verifier confirmed 14 of 15 figures. The report needs to explain that the limits are of two kinds (per-minute vs concurrent), "+
			"normalise prices to cost per 1,000 requests, and give Zyte's price as 'from $0.13'. I'll lead with a short recommendation per use case.")
	o.artifact(&artChange{kind: "markdown", id: "answer", path: "/workspace/answer.md", change: "init",
		update: func() (func() string, int) { c := researchAnswerDraft(); return func() string { return c }, -1 }})
	o.wait(b.between(2500*ms, 3500*ms))
	o.usage(6)
	o.artifact(&artChange{kind: "markdown", id: "answer", path: "/workspace/answer.md", change: "update",
		update: func() (func() string, int) { c := researchAnswer(); return func() string { return c }, -1 }})
	o.wait(b.between(500*ms, 900*ms))
	o.artifact(d.resultWith("update", []string{"summary", "recommendation"}, func() { d.summary = true }))
	o.usage(3)
	o.progress("finalizing", "Report ready: 5 APIs compared, 10 sources cited")
	o.wait(b.between(300*ms, 600*ms))
	fin := o.finish("succeeded", nil)
	o.wait(b.between(100*ms, 250*ms))
	rf := o.emit(kRunFinished, appendField(appendField(nil, "outcome", "succeeded"), "error", nil))
	// The orchestrator's own agent.finished lands after run.finished, as
	// the real service's events sometimes do.
	b.evs[fin].vis = b.evs[rf].at + b.between(600*ms, 1200*ms)
}

// resultWith is a result update that mutates the document first.
func (d *researchDoc) resultWith(change string, fields []string, mutate func()) *artChange {
	c := d.result(change, fields, "")
	c.update = func() (func() string, int) {
		mutate()
		s := d.resultJSON()
		return func() string { return s }, len(d.priced)
	}
	return c
}
