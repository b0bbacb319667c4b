package sim

import (
	"fmt"
	"time"
)

// Scenarios that show what firewatch's attention items are for: each is a
// small research run (an orchestrator and two or three subagents, about a
// minute and a half at speed 1) with one thing going wrong.
//
//	stall  docs-analyst goes silent for about 75 s in the middle of its work while the others
//	       keep working, then carries on; succeeded.
//	hang   source-verifier's fourth mcp__tools__scrape hangs for about 70 s (the others take
//	       2-4 s) and ends with a timeout error; the run goes on and succeeds.
//	loop   pricing-researcher runs the same mcp__tools__search five times (nothing new comes
//	       back), then three mcp__tools__scrape calls in a row fail (403);
//	       succeeded.
//	burn   a catalogue task that burns about 900 credits a minute against a maxCredits of 1 000
//	       (BurnMaxCredits): it reaches the cap after about a minute and ends credit_limit_reached.
const (
	ScenarioStall = "stall"
	ScenarioHang  = "hang"
	ScenarioLoop  = "loop"
	ScenarioBurn  = "burn"

	// BurnMaxCredits is the burn scenario's maxCredits.
	BurnMaxCredits = 1000
)

const attentionPrompt = "Compare the pricing, rate limits and free tiers of ScrapingBee, ScraperAPI and Zyte. Cite sources."

// scriptAttention builds one of the scenarios above; ok is false for
// another name.
func scriptAttention(sc string, b *builder) (jobInfo, bool) {
	info := jobInfo{prompt: attentionPrompt, urls: researchURLs[:3], model: "spark-2", effort: "medium"}
	switch sc {
	case ScenarioStall, ScenarioHang, ScenarioLoop:
		smallRun(b, sc)
		b.finalize()
	case ScenarioBurn:
		b.cmul = 6
		longRun(b, false, 10*time.Minute)
		b.cmul = 1
		if !b.endCreditLimit(BurnMaxCredits) {
			b.endFailure(10*time.Minute, "", "The run exceeded the maximum duration of 10 minutes")
		}
		b.finalize()
		info.prompt, info.urls, info.effort, info.maxCredits = catalogPrompt, nil, "high", BurnMaxCredits
	default:
		return jobInfo{}, false
	}
	return info, true
}

// worker does n rounds of search + scrape on vendors, each tool call 2-4 s.
func worker(x *actor, from, n int) {
	ms := time.Millisecond
	b := x.b
	for i := range n {
		p := providers[(from+i)%len(providers)]
		url := "https://www." + p[1] + "/pricing"
		x.tool("mcp__tools__search", obj{"query", p[0] + " pricing plans " + fmt.Sprint(i), "limit", 5},
			obj{"web", arr{obj{"url", url, "title", p[0] + " pricing", "position", 1}}}, b.between(1500*ms, 3000*ms), 2)
		x.tool("mcp__tools__scrape", scrapeParams(url), scrapeResult(url, p[0]+" pricing", "## "+p[0]+" pricing\n\n(plan table)"), b.between(2000*ms, 4000*ms), 3)
		x.think(b.between(600*ms, 1200*ms), 1, "Noted "+p[0]+"'s entry plan and limits.")
	}
}

func smallRun(b *builder, sc string) {
	ms, s := time.Millisecond, time.Second
	o := b.actor(b.newAgent("orchestrator", roleOrchestrator, -1), 0)
	o.emit(kRunStarted, nil)
	o.wait(b.between(40*ms, 120*ms))
	o.start()
	o.progress("planning", "Splitting the comparison over three researchers")
	o.think(b.between(1200*ms, 2000*ms), 4, "Three vendors, three questions each: one researcher for pricing, one for the docs, one to verify the figures.")
	o.progress("working", "Started pricing-researcher, docs-analyst and source-verifier")
	p := o.spawn("pricing-researcher", "Find the entry plan and monthly price of each vendor.")
	d := o.spawn("docs-analyst", "Find the documented rate limits and concurrency of each vendor.")
	v := o.spawn("source-verifier", "Check every figure against a second source.")

	switch sc {
	case ScenarioStall:
		worker(p, 0, 12)
		worker(d, 3, 2)
		// docs-analyst goes silent: nothing at all for about 75 s.
		d.wait(b.between(74*s, 78*s))
		d.think(b.between(500*ms, 900*ms), 2, "Back to the rate-limit pages after a long wait on the model.")
		worker(d, 5, 1)
		worker(v, 6, 12)
	case ScenarioHang:
		worker(p, 0, 12)
		worker(d, 3, 12)
		worker(v, 6, 1)
		url := "https://www.zyte.com/pricing"
		x := v
		x.tool("mcp__tools__scrape", scrapeParams("https://docs.zyte.com/zyte-api/limits.html"),
			scrapeResult("https://docs.zyte.com/zyte-api/limits.html", "Zyte API limits", "## Limits\n\n500 requests/min by default."), b.between(2000*ms, 3000*ms), 3)
		id := x.toolStart("mcp__tools__scrape", scrapeParams(url))
		x.wait(b.between(68*s, 72*s))
		x.toolEnd(id, "mcp__tools__scrape", obj{"success", false, "error", "Timed out after 70000ms waiting for the page to load"})
		x.errorEv("internal", "tool", true, "mcp__tools__scrape timed out after 70 s on "+url)
		worker(v, 7, 2)
	case ScenarioLoop:
		q := obj{"query", "ScraperAPI enterprise plan concurrency limit", "limit", 5}
		for range 5 {
			p.tool("mcp__tools__search", q, obj{"web", arr{}}, b.between(1500*ms, 2500*ms), 2)
			p.think(b.between(500*ms, 900*ms), 1, "Nothing found; let me search again.")
		}
		for _, path := range []string{"/enterprise", "/enterprise/contact", "/pricing/enterprise"} {
			p.tool("mcp__tools__scrape", scrapeParams("https://www.scraperapi.com"+path), obj{"success", false, "error", "HTTP 403 Forbidden"}, b.between(800*ms, 1500*ms), 1)
		}
		p.think(b.between(600*ms, 1000*ms), 1, "The enterprise page refuses us; I'll use the public pricing page instead.")
		worker(p, 1, 8)
		worker(d, 3, 11)
		worker(v, 6, 11)
	}
	for _, x := range []*actor{p, d, v} {
		x.finish("succeeded", nil)
	}
	o.waitUntil(max(p.t, d.t, v.t) + b.between(300*ms, 600*ms))
	o.progress("finalizing", "Writing the comparison")
	o.think(b.between(1200*ms, 2000*ms), 4, "All three vendors covered; writing the table.")
	o.artifact(&artChange{kind: "markdown", id: "answer", path: "/workspace/answer.md", change: "init",
		update: func() (func() string, int) {
			return func() string { return "# Pricing, rate limits and free tiers\n\n(table)\n" }, -1
		}})
	o.wait(b.between(300*ms, 600*ms))
	o.finish("succeeded", nil)
	o.wait(b.between(100*ms, 250*ms))
	o.emit(kRunFinished, appendField(appendField(nil, "outcome", "succeeded"), "error", nil))
}

// MaxCredits is the maxCredits the job's run was started with (as firewatch
// would know it had it started the run), 0 when none.
func (s *Server) MaxCredits(jobID string) int {
	if r := s.lookup(jobID); r != nil {
		return r.info.maxCredits
	}
	return 0
}

// CreditsAt is the creditsUsed the job's trace reports at simulated time
// at, for tests that build trace bodies from Script.
func (s *Server) CreditsAt(jobID string, at time.Duration) int {
	r := s.lookup(jobID)
	if r == nil {
		return 0
	}
	return r.credits(r.v.Load(), at)
}

// JobRequest is what a job was asked to do, as the list shows it.
type JobRequest struct {
	Prompt, Model, Effort string
	URLs                  []string
	MaxCredits            int // 0: none set
}

// Request is what the job was asked to do (zero for an unknown id), for a
// demo that knows the run it hosts as well as one it started.
func (s *Server) Request(jobID string) JobRequest {
	r := s.lookup(jobID)
	if r == nil {
		return JobRequest{}
	}
	return JobRequest{Prompt: r.info.prompt, Model: r.info.model, Effort: r.info.effort, URLs: append([]string(nil), r.info.urls...), MaxCredits: r.info.maxCredits}
}
