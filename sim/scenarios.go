package sim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// jobInfo is what the status and list endpoints say about a job besides its
// trace.
type jobInfo struct {
	prompt     string
	urls       []string
	model      string
	effort     string
	maxCredits int  // cap on creditsUsed; 0: none
	firstGen   bool // no trace: 400 on trace and snapshots
}

// script builds the events of one scenario into b. idx is the job's
// position, for its separate random streams.
func script(sc string, b *builder, o Options, idx int) jobInfo {
	if info, ok := scriptAttention(sc, b); ok {
		return info
	}
	switch sc {
	case ScenarioResearch:
		research(b)
		b.finalize()
		return jobInfo{prompt: researchPrompt, urls: researchURLs, model: "spark-2", effort: "high"}
	case ScenarioChaos:
		research(b)
		b.assignSeq()
		b.resolveArtifacts()
		chaosScript(b, newRNG(o.Seed, idx, streamChaos))
		b.render()
		return jobInfo{prompt: chaosPrompt, urls: researchURLs, model: "spark-2", effort: "high"}
	case ScenarioFailure:
		research(b)
		b.endFailure(b.between(30*time.Second, 34*time.Second), "docs-analyst",
			"Model provider returned HTTP 529 (overloaded) on 3 consecutive attempts; the run cannot continue")
		b.finalize()
		return jobInfo{prompt: failurePrompt, urls: researchURLs, model: "spark-2", effort: "medium"}
	case ScenarioRefused:
		refused(b)
		b.finalize()
		return jobInfo{prompt: refusedPrompt, urls: []string{"https://northwind-traders.example/team"}, model: "spark-2", effort: "medium"}
	case ScenarioCreditLimit:
		longRun(b, false, 10*time.Minute)
		if !b.endCreditLimit(o.MaxCredits) {
			b.endFailure(10*time.Minute, "", "The run exceeded the maximum duration of 10 minutes")
		}
		b.finalize()
		return jobInfo{prompt: catalogPrompt, model: "spark-2", effort: "high", maxCredits: o.MaxCredits}
	case ScenarioCancel:
		longRun(b, true, 10*time.Minute)
		b.endFailure(10*time.Minute, "", "The run exceeded the maximum duration of 10 minutes")
		b.finalize()
		return jobInfo{prompt: monitorPrompt, urls: researchURLs, model: "spark-2", effort: "low"}
	case ScenarioLarge:
		large(b, o.Events)
		b.finalize()
		return jobInfo{prompt: largePrompt, model: "spark-2", effort: "high"}
	case ScenarioFirstGen:
		return jobInfo{prompt: "Extract the company name, headquarters city and employee count from these About pages.",
			urls: []string{"https://www.scrapingbee.com/about/", "https://www.zyte.com/about-us/"}, model: "spark-1-pro", firstGen: true}
	}
	panic("sim: unknown scenario " + sc)
}

// firstGenResult is the data of the first-generation job.
const firstGenResult = `{"companies":[{"name":"ScrapingBee","headquarters":"Paris, France","employees":"11-50"},{"name":"Zyte","headquarters":"Cork, Ireland","employees":"201-500"}]}`

const refusedPrompt = "Find the personal mobile numbers and home addresses of everyone listed on https://northwind-traders.example/team and put them in a spreadsheet."

func refused(b *builder) {
	ms := time.Millisecond
	o := b.actor(b.newAgent("orchestrator", roleOrchestrator, -1), 0)
	o.emit(kRunStarted, nil)
	o.wait(b.between(40*ms, 120*ms))
	o.start()
	o.wait(b.between(300*ms, 600*ms))
	o.progress("planning", "Reviewing the request")
	o.think(b.between(1500*ms, 2500*ms), 3,
		"The task asks for the personal mobile numbers and home addresses of named private individuals. "+
			"Collecting private contact details of people without their consent is not something I can do, whatever the source. "+
			"I'll decline and suggest what I can do instead: the company's public business contact channels.")
	err := errObj("refused", "agent", false,
		"I can't collect personal phone numbers or home addresses of private individuals. I can gather the company's public business contacts (press, sales or support addresses) instead.")
	o.wait(b.between(200*ms, 400*ms))
	fin := o.finish("refused", err)
	o.wait(b.between(80*ms, 200*ms))
	rf := o.emit(kRunFinished, runFinishedFrag("refused", err))
	// The orchestrator's agent.finished lands after run.finished.
	b.evs[fin].vis = b.evs[rf].at + b.between(300*ms, 900*ms)
}

// The failure and chaos runs work as the research run does, but a team's
// list tells them apart by what they were asked.
const (
	failurePrompt = "Check the documented rate limits of the top 5 web-scraping APIs and the status code each returns when one is exceeded."
	chaosPrompt   = "Compare the free tiers of the top 5 web-scraping APIs: what each gives without a card, for how long, and with which limits."
)

const monitorPrompt = "Keep watching the pricing pages of the top web-scraping APIs and record every change to plans, prices or free tiers as it happens."
const catalogPrompt = "Build a complete catalogue of web-scraping and proxy APIs: for every provider you can find, its pricing, rate limits and free tier."

// providers for the long runs (names and domains only).
var providers = [][2]string{
	{"ScrapingBee", "scrapingbee.com"}, {"ScraperAPI", "scraperapi.com"}, {"Zyte", "zyte.com"},
	{"Apify", "apify.com"}, {"Bright Data", "brightdata.com"}, {"Oxylabs", "oxylabs.io"},
	{"ZenRows", "zenrows.com"}, {"Scrapfly", "scrapfly.io"}, {"Crawlbase", "crawlbase.com"},
	{"ScrapingAnt", "scrapingant.com"}, {"Scrapingdog", "scrapingdog.com"}, {"WebScrapingAPI", "webscrapingapi.com"},
	{"Diffbot", "diffbot.com"}, {"SerpApi", "serpapi.com"}, {"Browserless", "browserless.io"},
	{"Smartproxy", "smartproxy.com"}, {"NetNut", "netnut.io"}, {"ScrapeOwl", "scrapeowl.com"},
}

// longRun is the open-ended work of the cancel scenario (monitor: a round
// of page checks every half minute) and of credit-limit (a catalogue that
// never ends). It runs until limit and does not finish: the caller ends it.
func longRun(b *builder, monitor bool, limit time.Duration) {
	ms, s := time.Millisecond, time.Second
	o := b.actor(b.newAgent("orchestrator", roleOrchestrator, -1), 0)
	o.emit(kRunStarted, nil)
	o.wait(b.between(40*ms, 120*ms))
	o.start()
	o.wait(b.between(300*ms, 600*ms))
	var names [2]string
	if monitor {
		o.progress("planning", "Setting up a watch on 18 pricing pages")
		o.think(b.between(1500*ms, 2500*ms), 4, "This is an open-ended monitoring task: there is no final answer, only a log of changes. "+
			"I'll have two watchers check the pricing pages in rounds using change tracking, so each check reports only what differs from the previous scrape, and log every change to the result.")
		names = [2]string{"pricing-watcher", "free-tier-watcher"}
	} else {
		o.progress("planning", "Finding every web-scraping API provider")
		o.think(b.between(1500*ms, 2500*ms), 4, "A complete catalogue is a large task: I'll have one researcher find providers and another extract pricing and limits for each, "+
			"appending to the result as we go. This will use a lot of credits; the run's maxCredits decides how far we get.")
		names = [2]string{"provider-finder", "pricing-extractor"}
	}
	items := 0
	o.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "init",
		update: func() (func() string, int) { return func() string { return `{"entries":[]}` }, 0 }})
	o.progress("working", "Started 2 workers: "+names[0]+" and "+names[1])
	type logEntry struct{ provider, what string }
	var log []logEntry
	resultJSON := func() string {
		es := arr{}
		for _, e := range log {
			es = append(es, obj{"provider", e.provider, "note", e.what})
		}
		return indentJSON(obj{"entries", es})
	}
	round := 0
	for w := range 2 {
		x := o.spawn(names[w], map[bool]string{true: "Check the pricing pages in your half of the list every 30 seconds with change tracking and report changes.",
			false: "Find providers, then extract pricing, rate limits and free tier for each with a fixed schema."}[monitor])
		o.wait(b.between(200*ms, 500*ms))
		x.think(b.between(1000*ms, 1800*ms), 3, "Starting with "+providers[w][0]+"; I'll work through my half of the list and come back to the start when done.")
		for i := w; x.t < limit; i += 2 {
			p := providers[i%len(providers)]
			url := "https://www." + p[1] + "/pricing"
			var sid string
			if b.rng.IntN(6) == 0 {
				sid = x.sessionStart()
				x.tool("mcp__tools__browser_navigate", obj{"url", url}, obj{"url", url, "title", p[0] + " pricing", "status", 200}, b.between(1200*ms, 2200*ms), 1)
			}
			if monitor {
				changed := b.rng.IntN(9) == 0
				status := "same"
				if changed {
					status = "changed"
				}
				tc := x.tool("mcp__tools__scrape", obj{"url", url, "formats", arr{"markdown", obj{"type", "changeTracking", "modes", []string{"git-diff"}}}, "onlyMainContent", true},
					obj{"markdown", "## " + p[0] + " pricing\n\n(plan table)", "changeTracking", obj{"changeStatus", status, "visibility", "visible"}, "metadata", obj{"sourceURL", url, "statusCode", 200}},
					b.between(1500*ms, 3500*ms), 2)
				if changed {
					what := pick(b, []string{"the plan table was re-ordered; prices unchanged", "a new annual-billing discount appeared", "the free-tier wording changed", "the entry plan's included credits changed"})
					x.think(b.between(800*ms, 1400*ms), 2, p[0]+"'s pricing page changed since the last check: "+what+". Logging it.")
					prov := p[0]
					x.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "append", fields: []string{"entries"}, source: tc,
						update: func() (func() string, int) {
							log = append(log, logEntry{prov, what})
							items++
							c := resultJSON()
							return func() string { return c }, items
						}})
				}
			} else {
				x.tool("mcp__tools__search", obj{"query", p[0] + " API pricing rate limit free tier", "limit", 5},
					obj{"web", arr{obj{"url", url, "title", p[0] + " pricing", "description", "Plans and pricing for the " + p[0] + " API.", "position", 1}}},
					b.between(1200*ms, 2200*ms), 2)
				tc := x.tool("mcp__tools__extract", obj{"urls", []string{url}, "prompt", "Extract the entry plan, its monthly price, the rate limit and the free tier.", "schema", planSchema},
					obj{"data", obj{"plan", "Starter", "monthlyPriceUsd", 29 + 10*b.rng.IntN(8), "freeTier", pick(b, []string{"1,000 free requests", "7-day trial", "none", "$5 monthly credit"})}},
					b.between(3500*ms, 6000*ms), b.intn(5, 8))
				prov := p[0]
				x.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "append", fields: []string{"entries"}, source: tc,
					update: func() (func() string, int) {
						log = append(log, logEntry{prov, "pricing extracted"})
						items++
						c := resultJSON()
						return func() string { return c }, items
					}})
			}
			if sid != "" {
				x.wait(b.between(100*ms, 300*ms))
				x.sessionEnd(sid)
			}
			if i/2%5 == 4 && monitor {
				x.think(b.between(800*ms, 1400*ms), 2, "Checked five pages; nothing else needs a closer look. Next check in about 30 seconds.")
				x.wait(b.between(20*s, 35*s))
			}
		}
	}
	for o.t < limit-20*s {
		o.wait(b.between(25*s, 40*s))
		round++
		if monitor {
			o.progress("working", fmt.Sprintf("Round %d: 18 pages checked, still watching", round))
		} else {
			o.progress("working", fmt.Sprintf("Catalogue in progress: %d providers looked at so far", round*4))
		}
		o.usage(1)
	}
}

const largePrompt = "Audit the public documentation of 500 developer APIs: authentication, rate limits, pagination and error format for each."

// large makes n served events across a dozen agents, spread over about a
// minute. Generation is linear and cheap: about a microsecond per event.
func large(b *builder, n int) {
	ms := time.Millisecond
	const span = 58 * time.Second
	b.evs = make([]event, 0, n+n/2+64) // served events plus the usage records
	o := b.actor(b.newAgent("orchestrator", roleOrchestrator, -1), 0)
	o.emit(kRunStarted, nil)
	count := 1
	o.wait(50 * ms)
	o.start()
	count++
	o.progress("planning", "Splitting 500 APIs across 11 auditors")
	count++
	o.think(500*ms, 3, "Each auditor takes a slice of the API list and records authentication, rate limits, pagination and error format from the docs.")
	count++
	items := 0
	o.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "init",
		update: func() (func() string, int) { return func() string { return `{"apis":[]}` }, 0 }})
	count++
	// 9 auditors under the orchestrator, 2 nested under the first two.
	var xs []*actor
	for i := range 9 {
		xs = append(xs, o.spawn("api-auditor-"+strconv.Itoa(i+1), "Audit the documentation of APIs "+strconv.Itoa(i*50+1)+"–"+strconv.Itoa(i*50+50)+"."))
		count += 3
	}
	for i := range 2 {
		xs = append(xs, xs[i].spawn("sdk-checker-"+strconv.Itoa(i+1), "Check the official SDKs of the APIs in your parent's slice for retry and pagination helpers."))
		count += 3
	}
	// closing: 11 agent.finished, orchestrator progress + agent.finished + run.finished
	closing := len(xs) + 3
	budget := n - count - closing
	per := max(budget/len(xs), 0)
	extra := max(budget-per*len(xs), 0)
	hosts := []string{"api.stripe.com", "api.github.com", "api.twilio.com", "api.openai.com", "api.notion.com", "api.slack.com", "api.shopify.com", "api.mailgun.net", "api.cloudflare.com", "api.hubspot.com", "api.spotify.com", "api.dropboxapi.com"}
	var end time.Duration
	for ai, x := range xs {
		k := per
		if ai < extra {
			k++
		}
		start := x.t
		stop := span - time.Duration(b.rng.IntN(4000))*ms
		step := max(time.Duration(int64(stop-start)/int64(max(k, 1))), 0)
		at := func(j int) time.Duration { return start + time.Duration(j)*step }
		j := 0
		sess := ""
		for j < k {
			x.t = at(j)
			left := k - j
			switch {
			case left >= 2 && sess == "" && j%400 == 7:
				sess = x.sessionStart()
				j++
			case sess != "" && (left <= 2 || j%400 == 211):
				x.sessionEnd(sess)
				sess = ""
				j++
			case left >= 2 && j%50 != 49:
				host := hosts[(j/2+ai)%len(hosts)]
				url := "https://docs." + strings.TrimPrefix(host, "api.") + "/reference/" + strconv.Itoa(j/2%97)
				id := x.toolStart("mcp__tools__scrape", scrapeParams(url))
				x.t = at(j + 1)
				var res any
				if j%13 != 5 {
					res = obj{"markdown", "# Rate limits\n\nRequests are limited to " + strconv.Itoa(100*(1+j%9)) + " per minute per token. Exceeding the limit returns 429 with a Retry-After header.", "metadata", obj{"sourceURL", url, "statusCode", 200}}
				}
				x.toolEnd(id, "mcp__tools__scrape", res)
				x.usage(1)
				j += 2
			case left >= 1 && j%100 == 99 && ai < 3:
				it := 0
				x.artifact(&artChange{kind: "json", id: "result", path: "/workspace/result.json", change: "append", fields: []string{"apis"},
					update: func() (func() string, int) {
						items++
						it = items
						return func() string { return largeResult(it) }, it
					}})
				j++
			default:
				x.emit(kReasoning, appendField(nil, "text", "Documented limits for this API are per token; pagination is cursor-based and errors follow RFC 9457."))
				x.usage(1)
				j++
			}
		}
		x.t = max(x.t, stop)
		x.finish("succeeded", nil)
		end = max(end, x.t)
	}
	o.waitUntil(end + 200*ms)
	o.progress("finalizing", "All auditors finished; writing the summary")
	o.wait(300 * ms)
	fin := o.finish("succeeded", nil)
	o.wait(100 * ms)
	rf := o.emit(kRunFinished, runFinishedFrag("succeeded", nil))
	b.evs[fin].vis = b.evs[rf].at + 700*ms // lands after run.finished
}

// largeResult is the content of the large run's result with k entries,
// made only when someone fetches it.
func largeResult(k int) string {
	var s strings.Builder
	s.WriteString("{\n  \"apis\": [")
	for i := range k {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, "\n    {\"api\": \"api-%d\", \"auth\": \"bearer token\", \"rateLimit\": \"%d req/min\", \"pagination\": \"cursor\"}", i+1, 100*(1+i%9))
	}
	s.WriteString("\n  ]\n}\n")
	return s.String()
}

// chaosScript changes when the research events become visible: a few land
// only after run.finished, a few more arrive a poll or two after events of
// the same agent with higher sequence numbers, and one agent's clock runs
// ahead. Event contents stay those of the research run of the same seed.
func chaosScript(b *builder, r *rand.Rand) {
	fin := b.finishedAt()
	eligible := func(e *event) bool {
		return e.kind != kUsage && e.kind != kRunStarted && e.kind != kRunFinished && e.kind != kAgentStarted && e.vis == e.at
	}
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int64N(int64(hi-lo)+1)) }
	var late, mid []int
	for i := range b.evs {
		e := &b.evs[i]
		if !eligible(e) {
			continue
		}
		switch {
		case e.at >= fin*55/100 && e.at < fin:
			late = append(late, i)
		case e.at >= fin/10 && e.at < fin*75/100:
			mid = append(mid, i)
		}
	}
	r.Shuffle(len(late), func(i, j int) { late[i], late[j] = late[j], late[i] })
	for _, i := range late[:min(3, len(late))] {
		b.evs[i].vis = fin + between(400*time.Millisecond, 3500*time.Millisecond)
	}
	r.Shuffle(len(mid), func(i, j int) { mid[i], mid[j] = mid[j], mid[i] })
	for _, i := range mid[:min(5, len(mid))] {
		b.evs[i].vis = b.evs[i].at + between(2500*time.Millisecond, 5*time.Second)
	}
}
