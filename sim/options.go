package sim

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"time"
)

// Options configure a simulated service. The zero value is usable: one
// "research" run at real-time pace on a random loopback port.
type Options struct {
	Addr       string   // listen address; default "127.0.0.1:0" (loopback unless told otherwise)
	Key        string   // the API key clients must send as "Authorization: Bearer <Key>"; default: a random "fc-" + 32 hex chars
	Scenarios  []string // one job per entry, in order; default ["research"]
	Speed      float64  // pacing multiplier, from MinSpeed to MaxSpeed; default 1 (research lasts about a minute at 1); e.g. 50 → ~1.2 s
	Seed       int64    // default 1; same seed → same run (same ids, texts, order, offsets)
	Events     int      // for scenario "large": number of events (default 20000; at least 52, the run's skeleton)
	MaxCredits int      // for "credit-limit" (default 150); the run's creditsUsed is capped here
	// RateLimit is the number of requests per minute per key; 0 → 500 (the
	// free plan), < 0 → unlimited.
	RateLimit int
	// RateWindow is the rate limit's window, started by a key's first
	// request in it; 0 → a minute. Tests shorten it, to see a limit of
	// RateLimit per RateWindow met in a second or two.
	RateWindow time.Duration
	// RetryAfterHeader makes 429 answers carry a Retry-After header (the real
	// service usually sends none; the wait is only in the body text).
	RetryAfterHeader bool
	// History adds that many finished runs, created 7 to 11 minutes apart
	// before the scenarios' jobs, to the team's list (GET /v2/agent): with
	// 40 or more the list has several pages.
	History int
	// RefuseStart, when 402, 403 or 500, makes POST /v2/agent refuse every
	// run with that status and the real service's message.
	RefuseStart int
	// NoTokenUsage makes GET /v2/team/token-usage answer as the real service
	// does for a team without usage information: 404 {"success":false,
	// "error":"Could not find token usage information"}.
	NoTokenUsage bool
	// StillCrawls stands the team's active crawls (GET /v2/crawl/active)
	// at their start: no page settles and they use no credits, so that a
	// test reading the team's balance on the real clock sees it stand
	// still.
	StillCrawls bool
	// TeamOff switches team endpoints off as a self-hosted service lacks
	// them (TeamEndpoints: activity answers 501, the others 404).
	TeamOff []string
	// TeamFaults make the team endpoints answer badly (TeamFaults:
	// legacy field names, hostile key names, absurd numbers).
	TeamFaults []string
	// Scrapes is the number of ready-made scrape jobs (Server.ScrapeIDs)
	// to interact with; 0 → 1, < 0 → none.
	Scrapes int
	// MaxBrowserSessions is how many scrape browser sessions may be open at
	// once; the next one is refused with 429 "You have reached the maximum
	// number of active browser sessions." 0 → 5.
	MaxBrowserSessions int
	// CrawlPages caps the pages of a simulated site a crawl finds (0: 60);
	// CrawlStep is the simulated time between two pages settling (0:
	// 400 ms); CrawlPageDocs is the most documents a status answer carries
	// (0: 25); CrawlMarkdownBytes pads each document's markdown to about
	// that size (0: the page as it is). See crawl.go.
	CrawlPages         int
	CrawlStep          time.Duration
	CrawlPageDocs      int
	CrawlMarkdownBytes int
	// CrawlFaults make crawls misbehave as real deployments have been
	// seen to (crawlfaults.go: CrawlFaultResend, CrawlFaultReorder,
	// CrawlFaultDrop, CrawlFaultSilent, CrawlFaultForeignNext,
	// CrawlFaultUnbounded). nil: none.
	CrawlFaults []string
	// Retention is how long a run is kept (from its createdAt, wall time):
	// after it its status, trace and snapshots answer 404 and the list
	// leaves it out, as the service does after 24 hours. 0: runs never
	// expire (expiresAt still says 24 hours); firewatch serve's default is 24h.
	Retention time.Duration
	// NoThreads makes every follow-up (a start with threadId) answer 503
	// threads_disabled, as a team without threads sees.
	NoThreads bool
	// StartLog, if non-nil, gets every POST /v2/agent body as one JSON line
	// {"body":...,"status":N,"id":...} (Server.Starts keeps them too).
	StartLog io.Writer
	// Log, if non-nil, gets one line per request: time, method, path (never
	// the key), status, duration.
	Log io.Writer
	// Now is the clock for the occurredAt base (and createdAt of the jobs);
	// default time.Now. Pacing always uses the real monotonic clock.
	Now func() time.Time

	// Held stands the simulated clock at zero until Server.Release: the
	// runs wait at their start, so that a test sees them going (its
	// watch's first poll) before they move, however busy the machine.
	Held bool

	// elapsed, set by this package's tests only, replaces the wall time
	// since Start in the pacing, so that a test decides what each request
	// sees.
	elapsed func() time.Duration
}

// Job is one hosted agent job: its id and the scenario it plays.
type Job struct {
	ID       string
	Scenario string
}

// Stats are counters for tests.
type Stats struct {
	Requests           int            // all requests
	ByRoute            map[string]int // "GET trace", "GET snapshot", "DELETE agent", "GET status", "GET list", "GET token-usage", "GET crawl-active", ...
	MaxConcurrentTrace int            // the most trace requests ever in flight at once
	RateLimited        int            // 429s served (rate limiter and chaos)
	// Faults counts the faults the chaos scenario injected, by kind
	// ("429", "500", "502", "503", "truncated", "truncated-eof", "not-json",
	// "drop", "slow").
	Faults map[string]int
}

// Scenario names.
const (
	ScenarioResearch    = "research"
	ScenarioFailure     = "failure"
	ScenarioRefused     = "refused"
	ScenarioCreditLimit = "credit-limit"
	ScenarioCancel      = "cancel"
	ScenarioFirstGen    = "first-gen"
	ScenarioLarge       = "large"
	ScenarioChaos       = "chaos"
)

var scenarioNames = []string{
	ScenarioResearch, ScenarioFailure, ScenarioRefused, ScenarioCreditLimit,
	ScenarioCancel, ScenarioFirstGen, ScenarioLarge, ScenarioChaos,
	ScenarioStall, ScenarioHang, ScenarioLoop, ScenarioBurn, // attention.go
}

// Scenarios returns all scenario names, for help and shell completion.
func Scenarios() []string {
	return append([]string(nil), scenarioNames...)
}

// Defaults and bounds.
const (
	DefaultEvents     = 20000
	DefaultMaxCredits = 150
	DefaultRateLimit  = 500

	// Speed bounds: at 0.001 the research run lasts 18 hours, at 10^6 65 µs.
	// Outside them the times on the wire would overflow.
	MinSpeed = 0.001
	MaxSpeed = 1e6
)

func (o Options) withDefaults() (Options, error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.Key == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return o, fmt.Errorf("sim: generating a key: %w", err)
		}
		o.Key = "fc-" + hex.EncodeToString(b[:])
	}
	if len(o.Scenarios) == 0 {
		o.Scenarios = []string{ScenarioResearch}
	}
	for _, sc := range o.Scenarios {
		if !validScenario(sc) {
			return o, fmt.Errorf("sim: unknown scenario %q (known: %v)", sc, scenarioNames)
		}
	}
	switch {
	case o.Speed == 0:
		o.Speed = 1
	case !(o.Speed >= MinSpeed && o.Speed <= MaxSpeed): // NaN and ±Inf included
		return o, fmt.Errorf("sim: speed %v is out of range: it must be from %v to %v", o.Speed, MinSpeed, MaxSpeed)
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Events <= 0 {
		o.Events = DefaultEvents
	}
	if o.MaxCredits <= 0 {
		o.MaxCredits = DefaultMaxCredits
	}
	if o.RateLimit == 0 {
		o.RateLimit = DefaultRateLimit
	}
	switch {
	case o.Scrapes == 0:
		o.Scrapes = 1
	case o.Scrapes < 0:
		o.Scrapes = 0
	}
	if o.MaxBrowserSessions <= 0 {
		o.MaxBrowserSessions = defaultMaxSessions
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := checkCrawlFaults(o.CrawlFaults); err != nil {
		return o, err
	}
	for _, n := range o.TeamOff {
		if !slices.Contains(TeamEndpoints(), n) {
			return o, fmt.Errorf("sim: unknown team endpoint %q (known: %v)", n, TeamEndpoints())
		}
	}
	for _, n := range o.TeamFaults {
		if !slices.Contains(TeamFaults(), n) {
			return o, fmt.Errorf("sim: unknown team fault %q (known: %v)", n, TeamFaults())
		}
	}
	return o, nil
}

func validScenario(s string) bool {
	for _, n := range scenarioNames {
		if n == s {
			return true
		}
	}
	return false
}
