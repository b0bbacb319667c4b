// Package sim is a simulated Firecrawl v2 service: the backend of
// `firewatch demo` and `firewatch serve`, and the test double of every test
// that needs a server. It serves scripted agent runs on loopback, paced in
// real time, with the real service's routes, auth, bodies and status codes
// (the Firecrawl v2 API as documented on docs.firecrawl.dev). It builds its wire JSON by hand and shares no code
// with the project's decoder, so it is an independent check on it.
//
//	s, err := sim.Start(ctx, sim.Options{Scenarios: []string{"research", "chaos"}, Speed: 50})
//	// s.URL, s.Key, s.Jobs[i].ID; serves until ctx is done or s.Close()
//
// Start refuses an unknown scenario and a speed outside [MinSpeed, MaxSpeed]
// (NaN and infinities included) with an error that says so. Listening on
// every interface (Addr "0.0.0.0:0", ":0", "[::]:0"), s.URL is still a
// loopback URL, the one clients can send a key to over plain http.
//
// # Routes (all under /v2, all need "Authorization: Bearer <Key>", the scheme in any case)
//
//	GET    /agent/{jobId}/trace[?liveView=true]    the whole trace so far, creditsUsed, activeBrowserSessions with liveView
//	GET    /agent/{jobId}/snapshots/{snapshotId}   {success,id,snapshotId,snapshot} of an emitted artifact change
//	DELETE /agent/{jobId}                          cooperative cancel; 409 when finished or already cancelled
//	GET    /agent/{jobId}                          status: processing | completed | failed (a cancelled run is failed)
//	GET    /agent[?before=<unix ms>]               every hosted run (scenario jobs, Options.History finished runs,
//	                                               started runs), newest first, 20 a page, next URL (agentlist.go)
//	POST   /agent                                  starts a run: validation, prompt → scenario, maxCredits (agentstart.go)
//	GET    /team/token-usage                       remainingTokens = planTokens − 15 × the credits used in the period
//	                                               (404 "Could not find token usage information" with Options.NoTokenUsage)
//	GET    /team/credit-usage                      {remainingCredits, planCredits, billingPeriodStart, billingPeriodEnd}
//	GET    /team/credit-usage/historical           ?timeRange=day|week|month (hourly or daily bins) or ?byApiKey=true
//	                                               (monthly rows per key name; 400 with timeRange too)
//	GET    /team/queue-status                      {jobsInQueue, activeJobsInQueue, waitingJobsInQueue, maxConcurrency, mostRecentSuccess}
//	GET    /team/activity                          the last 24 hours, newest first, ?endpoint= ?limit=1..100 ?cursor=
//	GET    /concurrency-check                      {concurrency, maxConcurrency}
//	                                               (all from one ledger, team.go; Options.TeamOff, Options.TeamFaults)
//	GET    /crawl/active                           four realistic crawls with scrapeOptions (string and object formats, actions, location, v1 leftovers)
//
//	POST   /scrape                                 a scrape: data{markdown,html,rawHtml,links,summary,images,json,
//	                                               screenshot (a URL under /files/),metadata{title,url,sourceURL,statusCode,scrapeId,...}}
//	POST   /scrape/{jobId}/interact                code or prompt in the scrape's browser session (below)
//	DELETE /scrape/{jobId}/interact                stop it: {success,sessionDurationMs,creditsBilled}; 404 "No active
//	                                               browser session for this scrape job." when there is none
//	POST   /crawl/params-preview                   {success,data{url,includePaths,excludePaths,maxDepth,maxDiscoveryDepth,
//	                                               crawlEntireDomain,allowExternalLinks,allowSubdomains,sitemap,limit,prompt}}
//	POST   /crawl                                  starts a crawl of a simulated site (v2 names; v1 ones refused with the v2
//	                                               name; integration and origin accepted): {success,id,url} (crawl.go)
//	GET    /crawl/{id}[?skip=N&limit=N]            status, completed, total, creditsUsed, expiresAt, data (documents), next
//	GET    /crawl/{id} with an Upgrade             the WebSocket: catchup, document, done, error; the key may be the
//	                                               subprotocol, as the SDK sends it; serve logs it as WS /v2/crawl/{id}
//	GET    /crawl/{id}/errors                      {errors,robotsBlocked}
//	DELETE /crawl/{id}                             {status:"cancelled"}; 409 once completed
//
// Error bodies are the real ones: 401 "Unauthorized: Token missing" /
// "Unauthorized: Invalid token"; 400 for an id that is not a UUID and for
// the trace or snapshots of the first-generation job; 404 "Agent job not
// found", "Snapshot not found". Trace and snapshot errors carry no success
// field (the real service passes the upstream body through). Unknown routes
// answer 404 and wrong methods 405 with Allow, both JSON (the routing table,
// http.ServeMux method-and-path patterns, is routes in server.go). Besides
// /v2 the server has /files/{jobId}/screenshots/*.png (the PNG a screenshot
// snapshot points at, no key needed, like a signed URL) and
// /live/{sessionId} (the page a liveViewUrl points at).
//
// Choices where the real service leaves room: the status omits creditsUsed
// while the run is processing (the real one has done so) and includes it
// once finished; the list carries its items both as "data" (the API
// reference) and as "agents" (the JS SDK's type), and "next" is null on
// the last page.
//
// # Scrapes and their browser
//
// Every URL has a page, derived from it alone (page.go): a title ("Example |
// Pricing"), a description, four plans with prices, links and a few
// clickable targets. Options.Scrapes ready-made scrapes (of
// https://example.com/pricing, /docs, /blog; ids in Server.ScrapeIDs, from
// the seed) and every POST /scrape can be interacted with. A scrape
// refuses v1 names (formats "extract", "screenshot@fullPage", options such as
// parsePDF) with 400, as v2 does; the json format fills its schema (or the
// prompt's nouns: title, plans/prices, links) from the page.
//
// The first interact call of a scrape opens its session (1.2 s simulated),
// with cdpUrl ws://<host>/cdp/<session>, liveViewUrl <URL>/live/<session>
// and the interactive one with ?interactive=true; later calls reuse it and
// its page (a click that navigates stays navigated); DELETE stops it, after
// which interact answers 410. The sandbox (sandbox.go) recognises, per
// language:
//
//	node    await page.title(), page.url(), page.content(), console.log/error(X), 'x'.repeat(N),
//	        await page.click('SEL') / page.locator('SEL').click(), await page.goto('URL'),
//	        throw new E('msg'), process.exit(N), while (true) {} / for (;;), an unknown name → ReferenceError
//	python  print(await page.title()), print(page.url), print(X, file=sys.stderr), 'x' * N,
//	        raise E('msg') (a Traceback on stderr), sys.exit(N), while True:
//	bash    agent-browser commands: snapshot, get title|url|text, click SEL, open URL, echo X [>&2],
//	        sleep N, exit N, yes | head -c N, while true; anything else → exit 127
//
// A click on a selector the page has (#pricing-tab, text=Pricing, text=Docs,
// a[href='/docs'], #signup, text=Blog, button.accept-cookies, #load-more)
// works; any other waits Playwright's 5 s and fails with TimeoutError (or is
// killed when the timeout is shorter). A busy loop is killed at the call's
// timeout: killed true, exitCode null. An exception gives exitCode 1 and
// error "E: msg". Output is capped at 50 MB. A prompt is answered from the
// page (its title, plans and prices, links, URL, else a summary) and
// follows "click/open/go to <Pricing|Docs|Sign up|Blog>" (2.4-3.9 s). All
// durations are simulated: real time is duration / Speed.
//
// Errors: 400 for an id that is not a UUID, code and prompt both or
// neither, code outside 1-100 000 characters, a language other than node,
// python, bash, a timeout that is not an integer from 1 to 300; 404 for an
// unknown scrape; 409 for a call while one runs in the same session; 410
// after a stop; 429 "You have reached the maximum number of active browser
// sessions." when Options.MaxBrowserSessions (5) sessions are open. The id
// FaultScrapeID(N) = 00000000-0000-4000-8000-000000000NNN answers N (400,
// 402, 403, 404, 409, 410, 429, 502) with the service's message.
//
// # Rate limit
//
// A fixed one-minute window per Authorization header value (requests without
// one share a keyless bucket), Options.RateLimit requests a minute (500 by
// default, like the free plan; < 0 unlimited). Past it: 429 with the real
// text, "... please retry after Ns, resets at <date>", a Retry-After header
// only with Options.RetryAfterHeader, and "retry_after_seconds" for keyless
// requests. A client that polls in a tight loop will meet it: tests that do
// should set RateLimit -1.
//
// # Runs
//
// Every job is a script of events with offsets in simulated time, generated
// from Options.Seed and the job's position in Options.Scenarios: the same
// seed gives the same job ids, agents, texts, order and offsets. All jobs
// start when Start returns. At wall time w the trace shows the events whose
// visibility offset is at most w × Speed, sorted by producerSequence (stable
// by time), which interleaves agents as the real service does; clients must
// regroup per agent. producerSequence is per agent, in time order, with the
// gaps the withheld usage.recorded events leave (they carry the credits).
// Times on the wire are wall-clock times: occurredAt = start + offset/Speed
// (from Options.Now), and durationMs is the scripted duration / Speed. So the
// bytes of a run depend on the seed, the speed and the clock's base only.
//
//	research      the demo: "Compare the pricing, rate limits and free tiers of the top 5 web-scraping
//	              APIs". orchestrator + pricing-researcher (which spawns free-tier-checker),
//	              docs-analyst, source-verifier; browser sessions; mcp__tools__search/scrape/extract/map/
//	              browser_* calls, some with null results; one retryable tool timeout and its retry;
//	              a growing result JSON artifact, an HTML page, text notes, a screenshot and a
//	              markdown report; planning → working → finalizing. 60-70 s at speed 1,
//	              about 130 events and 280 credits; succeeded.
//	failure       research until about 32 s; docs-analyst fails (403s from its source), then the
//	              orchestrator hits a fatal internal/system error: run failed at about 40 s.
//	refused       the orchestrator declines a request for private contact details: run refused
//	              (code refused, source agent) after about 3 s.
//	credit-limit  an open-ended catalogue task; when the credits reach Options.MaxCredits (150)
//	              the agent that crossed stops with credit_limit_reached, the others with
//	              parent_finished, and the run ends credit_limit_reached (about a minute at 150).
//	              creditsUsed never exceeds MaxCredits.
//	cancel        a monitoring task that works until someone DELETEs it (at 10 minutes it gives
//	              up: failed, "exceeded the maximum duration").
//	first-gen     a spark-1 job: status completed, trace and snapshots 400.
//	large         Options.Events (20 000) served events across 12 agents over about 58 s, for
//	              load; 100 000 events generate in about 0.2 s (BenchmarkGenerateLarge).
//	chaos         the research run of the same seed and position served badly (below).
//
// Any running job can be cancelled: within 0.15-0.4 s (simulated) the
// orchestrator emits run.cancel_requested {reason: "user"}, the subagents
// go on for another 0.7-2.5 s (more events and credits), then they finish
// cancelled (code cancelled, or parent_finished when nested), and the run
// finishes cancelled. Like the real service's, events land after
// run.finished, in every run that ends: the orchestrator's agent.finished in
// research, refused and large, the last subagent's (or the orchestrator's
// when none was running) in every other ending, a cancel's included. Tool
// calls cut short by an ending are left without tool_call.finished.
//
// # Chaos
//
// The chaos job's events are those of a research job with the same seed and
// position (same speed), with delivery changed: three events land 0.4-3.5 s
// after run.finished, five arrive 2.5-5 s late mid-run (after later events
// of the same agent: out of order across polls), and source-verifier's clock
// runs 1.7 s ahead (its occurredAt only). Its GET routes (trace, status,
// snapshots) fail on a schedule that depends only on the seed, the job, the
// route and the request's number on that route: even-numbered requests
// (the first included) are clean, each odd-numbered one gets the next of a
// seeded cycle of all nine faults: 429 (the rate-limit body, "retry after
// round(2/Speed)s"), 500 JSON, 502 HTML, 503 (JSON or HTML), a truncated
// JSON body, a body cut short of its Content-Length, a Cloudflare-style HTML
// page with status 200, a dropped connection, and a slow answer
// (250-700 ms / Speed). Every kind occurs in each block of 18 requests; a
// client that retries gets through on the next try and ends with exactly the
// research job's events.
//
// # For tests
//
// Stats counts requests by route, 429s, injected faults and the most trace
// requests ever in flight at once. Finished and WaitFinished tell when a run
// and its late events are all visible; Script returns a job's events as they
// will be served, with their offsets, for determinism checks. Speed 1000
// runs the research job in about 65 ms.
package sim
