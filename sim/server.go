package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"
)

// Server is a running simulated service.
type Server struct {
	URL  string // base URL, e.g. http://127.0.0.1:41234 (paths are /v2/... under it)
	Key  string // the API key it accepts
	Jobs []Job  // one per scenario, in order
	// ScrapeIDs are the ready-made scrape jobs (Options.Scrapes), whose
	// browser sessions POST /v2/scrape/{id}/interact opens.
	ScrapeIDs []string

	o     Options
	ln    net.Listener
	hs    *http.Server
	start time.Time // pacing origin (monotonic)
	// clock is the simulated clock's holds (Options.Held, Hold, Release).
	clock   heldClock
	base    time.Time    // occurredAt of simulated time 0
	passed  atomic.Int64 // wall time added by PassTime (retention only)
	runs    map[string]*run
	byIdx   []*run
	limiter limiter
	crawls  []byte
	scrapes *scrapeStore
	mux     *http.ServeMux // newMux
	// crawlJobs are the crawls of crawl.go.
	crawlJobs crawlStore
	// other is the other endpoints' usage of Options.History (team.go).
	other []otherUsage

	// runsMu guards runs and byIdx once Start has returned: POST
	// /v2/agent adds runs (agentlist.go).
	runsMu sync.RWMutex

	closeOnce sync.Once
	closeErr  error
	done      chan struct{}
	// sockets counts the WebSocket requests being served: http.Server's
	// Close does not wait for a hijacked connection, Close does (so their
	// log lines are written when it returns). socketsMu orders each Add
	// before Close's Wait: none is added once closing is set.
	sockets   sync.WaitGroup
	socketsMu sync.Mutex
	closing   bool

	// threads are the runs' threads by id (threads.go); guarded by runsMu.
	threads map[string]*thread
	// threadRoute serves GET /v2/agent/threads/{threadId}, outside the mux:
	// its pattern would conflict with GET /v2/agent/{id}/trace.
	threadRoute http.Handler

	mu       sync.Mutex // stats and the log
	starts   []StartRequest
	stats    Stats
	inTrace  int
	pngOnce  sync.Once
	pngBytes []byte
}

type run struct {
	s         *Server
	idx       int
	id        string
	scenario  string
	info      jobInfo
	createdAt time.Time

	mu        sync.Mutex // serialises cancels
	b         *builder
	cancelled bool
	changed   chan struct{} // closed (and replaced) when v changes
	v         atomic.Pointer[view]
	vstate    atomic.Pointer[viewState]
	faults    *faultPlan // chaos only
	meta      *runMeta   // what the list says besides jobInfo; nil: an API run with default settings
	thread    *thread    // its thread (threads.go), made on first use; guarded by s.runsMu
	turn      int        // its turn in thread, from 1
	key       int        // its API key, an index of KeyNames (team.go)
}

// viewState is derived once per view: the outcome.
type viewState struct {
	outcome string
	errMsg  string
}

// Start listens on o.Addr, builds every scenario's run, starts them all and
// serves until ctx is done or Close is called.
func Start(ctx context.Context, o Options) (*Server, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Server{
		URL:  "http://" + dialAddr(o.Addr, ln.Addr()),
		Key:  o.Key,
		ln:   ln,
		o:    o,
		runs: map[string]*run{},
		done: make(chan struct{}),
	}
	s.limiter.buckets = map[string]*bucket{}
	s.stats.ByRoute = map[string]int{}
	s.stats.Faults = map[string]int{}
	s.base = o.Now().UTC().Truncate(time.Millisecond)
	s.start = time.Now()
	if o.Held {
		s.clock.hold(s.start)
	}
	for i, sc := range o.Scenarios {
		id := randUUID(newRNG(o.Seed, i, streamIDs)).String()
		r := &run{s: s, idx: i, id: id, scenario: sc, changed: make(chan struct{}),
			createdAt: s.base.Add(time.Duration(i) * time.Millisecond)}
		b := newBuilder(newRNG(o.Seed, i, streamScript), id, s.base, o.Speed, s.URL+"/files/"+id)
		r.info = script(sc, b, o, i)
		r.b = b
		if r.info.firstGen {
			r.createdAt = s.base.Add(-47*time.Minute + time.Duration(i)*time.Millisecond)
		}
		r.setView(b.view())
		if sc == ScenarioChaos {
			r.faults = newFaultPlan(o.Seed, i)
		}
		s.runs[id] = r
		s.byIdx = append(s.byIdx, r)
		s.Jobs = append(s.Jobs, Job{ID: id, Scenario: sc})
	}
	s.addHistory()
	s.initOther()
	s.crawls = activeCrawls(o.Seed)
	s.initScrapes()
	s.mux = s.newMux()
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.hs.Serve(ln) }()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// Close stops serving and closes every connection.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.socketsMu.Lock()
		s.closing = true
		s.socketsMu.Unlock()
		close(s.done) // ends the sockets (crawl.go)
		if err := s.hs.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.closeErr = err
		}
		// Serve may not have taken the listener yet; close it here so that
		// no connection is accepted after Close returns.
		if err := s.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) && s.closeErr == nil {
			s.closeErr = err
		}
		s.sockets.Wait()
	})
	return s.closeErr
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.ByRoute = make(map[string]int, len(s.stats.ByRoute))
	for k, v := range s.stats.ByRoute {
		st.ByRoute[k] = v
	}
	st.Faults = make(map[string]int, len(s.stats.Faults))
	for k, v := range s.stats.Faults {
		st.Faults[k] = v
	}
	return st
}

// dialAddr is the address clients should use for a listener on addr: a
// listener on every interface (0.0.0.0, ::, or no host) is reached on
// loopback, which every client accepts a key over plain http for.
func dialAddr(addr string, l net.Addr) string {
	ta, ok := l.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return l.String()
	}
	host, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		return net.JoinHostPort("::1", strconv.Itoa(ta.Port))
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
}

// sinceStart is the wall time the runs have moved for: since Start, less
// the time they were held (Options.Held, Hold), or the test's own clock.
func (s *Server) sinceStart() time.Duration {
	if s.o.elapsed != nil {
		return s.o.elapsed()
	}
	return s.clock.since(s.start, time.Now())
}

// Hold stands the simulated clock still where it is until Release: a test
// keeps a run going across something of its own (a database stopped and
// started). The trace goes on serving what it showed.
func (s *Server) Hold() { s.clock.hold(time.Now()) }

// Release starts the clock of a server held by Options.Held or Hold; it
// does nothing when the clock runs (but for ending a ReleaseUntil's bound:
// it runs on).
func (s *Server) Release() { s.clock.release(time.Now()) }

// ReleaseUntil starts the clock until the runs reach the simulated time at
// (as ScriptEvent's At and Visible), where it stands still again as Hold
// stands it, however late the test looks: what the runs serve by then does
// not depend on how busy the machine is. A clock past at already holds
// where it is.
func (s *Server) ReleaseUntil(at time.Duration) {
	wall := time.Duration(math.Ceil(float64(at) / s.o.Speed))
	s.clock.releaseUntil(s.start, time.Now(), wall)
}

// heldUntil is closed when a held clock starts; nil (never ready) when the
// clock runs.
func (s *Server) heldUntil() <-chan struct{} {
	s.clock.mu.Lock()
	defer s.clock.mu.Unlock()
	s.clock.settle(time.Now())
	return s.clock.released
}

// heldClock is how long a server's clock has stood still, and since when
// it stands now.
type heldClock struct {
	mu       sync.Mutex
	heldFor  time.Duration // the holds that ended
	from     time.Time     // when the current hold began
	released chan struct{} // closed when it ends; nil while the clock runs
	// stopAt, while the clock runs (ReleaseUntil), is the wall time at
	// which it holds again (zero: it runs on).
	stopAt time.Time
}

// settle makes a clock that ran to its stopAt by now a held one, held from
// stopAt; c.mu is held.
func (c *heldClock) settle(now time.Time) {
	if c.released == nil && !c.stopAt.IsZero() && !now.Before(c.stopAt) {
		c.from, c.released = c.stopAt, make(chan struct{})
	}
	if c.released != nil {
		c.stopAt = time.Time{}
	}
}

func (c *heldClock) hold(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle(now)
	if c.released == nil {
		c.from, c.released, c.stopAt = now, make(chan struct{}), time.Time{}
	}
}

func (c *heldClock) release(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle(now)
	c.stopAt = time.Time{}
	if c.released != nil {
		c.heldFor += now.Sub(c.from)
		close(c.released)
		c.released = nil
	}
}

// releaseUntil runs the clock until it has run d since start in all,
// then holds it.
func (c *heldClock) releaseUntil(start, now time.Time, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle(now)
	ran := now.Sub(start) - c.heldFor
	if c.released != nil {
		ran = c.from.Sub(start) - c.heldFor
	}
	if ran >= d {
		if c.released == nil {
			c.from, c.released = now, make(chan struct{})
		}
		c.stopAt = time.Time{}
		return
	}
	if c.released != nil {
		c.heldFor += now.Sub(c.from)
		close(c.released)
		c.released = nil
	}
	c.stopAt = start.Add(c.heldFor + d)
}

// since is the time the clock has run from start to now.
func (c *heldClock) since(start, now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle(now)
	if c.released != nil {
		now = c.from
	}
	return now.Sub(start) - c.heldFor
}

// simNow is the simulated time since the runs started. It saturates
// rather than overflow (at a high speed after a long time).
func (s *Server) simNow() time.Duration {
	f := float64(s.sinceStart()) * s.o.Speed
	if f >= float64(never) {
		return never
	}
	return time.Duration(f)
}

func (r *run) setView(v *view) {
	st := &viewState{}
	if v.finished >= 0 {
		var f struct {
			Outcome string `json:"outcome"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(v.events[v.finished].b, &f); err == nil {
			st.outcome = f.Outcome
			if f.Error != nil {
				st.errMsg = f.Error.Message
			}
		}
	}
	r.vstate.Store(st)
	r.v.Store(v)
}

// Finished reports whether the job's run is over and every event of it,
// late ones included, is visible. A first-generation job is always finished.
func (s *Server) Finished(jobID string) bool {
	r := s.lookup(jobID)
	if r == nil {
		return false
	}
	v := r.v.Load()
	return v.finished >= 0 && s.simNow() >= v.last || r.info.firstGen
}

// WaitFinished blocks until Finished(jobID) or ctx is done.
func (s *Server) WaitFinished(ctx context.Context, jobID string) error {
	r := s.lookup(jobID)
	if r == nil {
		return fmt.Errorf("sim: unknown job %s", jobID)
	}
	for {
		if s.Finished(jobID) {
			return nil
		}
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		v := r.v.Load()
		wait := time.Duration(float64(v.last-s.simNow())/s.o.Speed) + time.Millisecond
		if v.finished < 0 || wait > time.Hour {
			wait = time.Hour
		}
		if s.o.elapsed != nil {
			wait = time.Millisecond // a test moves the time
		}
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-changed:
		case <-s.heldUntil(): // the clock starts
		case <-t.C:
		}
		t.Stop()
	}
}

// ScriptEvent is one served event of a run's script, for tests.
type ScriptEvent struct {
	At      time.Duration // simulated time it occurred
	Visible time.Duration // simulated time from which the trace shows it
	Agent   string        // agent name
	Seq     int64         // producerSequence
	Type    string
	JSON    []byte // exactly as served
}

// Script returns every event the job's run will serve (as things stand:
// a cancel changes it), in serving order, and the run's total credits.
func (s *Server) Script(jobID string) ([]ScriptEvent, int) {
	r := s.lookup(jobID)
	if r == nil {
		return nil, 0
	}
	v := r.v.Load()
	out := make([]ScriptEvent, 0, len(v.order))
	for _, i := range v.order {
		e := &v.events[i]
		out = append(out, ScriptEvent{At: e.at, Visible: e.vis, Agent: r.b.agents[e.agent].name, Seq: e.seq,
			Type: kindNames[e.kind], JSON: slices.Clone(e.b)})
	}
	credits := 0
	for _, i := range v.usage {
		credits += int(v.events[i].credits)
	}
	if m := r.info.maxCredits; m > 0 {
		credits = min(credits, m)
	}
	return out, credits
}

// credits used by the run at simulated time now.
func (r *run) credits(v *view, now time.Duration) int {
	if r.info.firstGen {
		return 37
	}
	c := 0
	for _, i := range v.usage {
		if v.events[i].vis <= now {
			c += int(v.events[i].credits)
		}
	}
	if m := r.info.maxCredits; m > 0 {
		c = min(c, m)
	}
	return c
}

// status: processing, completed or failed (a cancelled run reports failed).
func (r *run) status(v *view, now time.Duration) (status string, st *viewState) {
	st = r.vstate.Load()
	if r.info.firstGen {
		return "completed", st
	}
	if v.finished < 0 || v.events[v.finished].vis > now {
		return "processing", st
	}
	if st.outcome == "succeeded" {
		return "completed", st
	}
	return "failed", st
}

// ---- HTTP ----

type respWriter struct {
	http.ResponseWriter
	route   string // the route's name, for the stats (set by the mux's handler)
	status  int
	dropped bool
	// release ends the request's count as in flight; a fault that hangs up
	// calls it before closing, because the client may retry at once.
	release func()
	// count adds the request to the stats, once, before anything of the
	// answer is written: a client that has read the answer finds it
	// counted.
	count sync.Once
	stats func(status int)
}

// counted adds the request to the stats with status, if not yet.
func (w *respWriter) counted(status int) {
	if w.stats != nil {
		w.count.Do(func() { w.stats(status) })
	}
}

// hangUp is called by a fault just before it closes the connection.
func (w *respWriter) hangUp() {
	w.counted(w.status)
	if w.release != nil {
		w.release()
	}
}

func (w *respWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.counted(w.status)
	w.ResponseWriter.WriteHeader(code)
}

func (w *respWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.counted(w.status)
	return w.ResponseWriter.Write(p)
}

func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if isWebSocket(req) {
		s.socketsMu.Lock()
		closing := s.closing
		if !closing {
			s.sockets.Add(1)
		}
		s.socketsMu.Unlock()
		if closing {
			writeJSON(w, http.StatusServiceUnavailable, errBody("Server closed"))
			return
		}
		defer s.sockets.Done()
	}
	t0 := time.Now()
	rw := &respWriter{ResponseWriter: w}
	rw.stats = func(status int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stats.Requests++
		s.stats.ByRoute[rw.route]++
		if status == http.StatusTooManyRequests {
			s.stats.RateLimited++
		}
	}
	s.serve(rw, req)
	rw.counted(rw.status) // an answer that wrote nothing: hung up
	d := time.Since(t0)
	s.mu.Lock()
	if s.o.Log != nil {
		st := strconv.Itoa(rw.status)
		if rw.dropped {
			st = "dropped"
		}
		method := req.Method
		if rw.status == http.StatusSwitchingProtocols {
			method = "WS" // a socket (crawl.go), logged once it has closed
		}
		fmt.Fprintf(s.o.Log, "%s %s %s %s %s\n", s.o.Now().UTC().Format("2006-01-02T15:04:05.000Z"), method, logPath(req), st, d.Round(time.Microsecond))
	}
	s.mu.Unlock()
}

// logPath is the path and the query parameters the service knows (never
// anything else, so a key passed in the query is not logged).
func logPath(req *http.Request) string {
	p := req.URL.EscapedPath()
	q := req.URL.Query()
	var keep []string
	for _, k := range []string{"liveView", "before", "skip"} {
		if v, ok := q[k]; ok && len(v) > 0 {
			keep = append(keep, k+"="+v[0])
		}
	}
	if len(keep) > 0 {
		p += "?" + strings.Join(keep, "&")
	}
	return p
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// errBody is {"success":false,"error":msg}; upstreamErr is {"error":msg}
// (trace and snapshot errors pass the upstream body through).
func errBody(msg string) []byte     { return jsonOf(obj{"success", false, "error", msg}) }
func upstreamErr(msg string) []byte { return jsonOf(obj{"error", msg}) }

const (
	msgInvalidJobID   = "Invalid job ID format. Job ID must be a valid UUID."
	msgJobNotFound    = "Agent job not found"
	msgTraceFirstGen  = "Trace is only available for Spark 2 extracts"
	msgSnapFirstGen   = "Snapshots are only available for Spark 2 extracts"
	msgInvalidSnap    = "Invalid snapshot ID"
	msgSnapNotFound   = "Snapshot not found"
	msgTokenMissing   = "Unauthorized: Token missing"
	msgInvalidToken   = "Unauthorized: Invalid token"
	msgAlreadyDone    = "Agent already finished"
	msgAlreadyCancel  = "Agent is already cancelled"
	msgMethodNotAllow = "Method not allowed"
	msgNoTokenUsage   = "Could not find token usage information"
)

// validUUID accepts the canonical 36-character form only.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// route is one of the service's routes: its method and path pattern
// (http.ServeMux syntax), its name in Stats.ByRoute, whether it is served
// without the key (the files and live pages), and its handler.
type route struct {
	method, path, name string
	open               bool
	serve              func(w *respWriter, req *http.Request)
}

// routes is the service's routing table.
func (s *Server) routes() []route {
	// A job's routes look the job up first (serveJob), then answer.
	job := func(h jobHandler) func(*respWriter, *http.Request) {
		return func(w *respWriter, req *http.Request) { s.serveJob(w, req, h) }
	}
	return []route{
		{"GET", "/v2/agent", "GET list", false, s.serveList},
		{"POST", "/v2/agent", "POST agent", false, func(w *respWriter, req *http.Request) { s.serveStart(w, req) }},
		{"GET", "/v2/agent/{id}", "GET status", false, job(func(w http.ResponseWriter, _ *http.Request, _ string, r *run) {
			writeJSON(w, http.StatusOK, s.statusBody(r))
		})},
		{"DELETE", "/v2/agent/{id}", "DELETE agent", false, job(func(w http.ResponseWriter, _ *http.Request, _ string, r *run) { s.cancel(w, r) })},
		{"GET", "/v2/agent/{id}/trace", "GET trace", false, job(s.serveTrace)},
		{"GET", "/v2/agent/{id}/snapshots/{sid}", "GET snapshot", false, job(s.serveSnapshot)},
		{"GET", "/v2/team/token-usage", "GET token-usage", false, func(w *respWriter, req *http.Request) {
			if s.o.NoTokenUsage {
				writeJSON(w, http.StatusNotFound, errBody(msgNoTokenUsage))
				return
			}
			if !s.teamOff(w, TeamTokenUsage) {
				writeJSON(w, http.StatusOK, s.tokenUsage())
			}
		}},
		{"GET", "/v2/team/credit-usage", "GET credit-usage", false, func(w *respWriter, req *http.Request) {
			if s.o.NoTokenUsage {
				writeJSON(w, http.StatusNotFound, errBody(msgNoTokenUsage))
				return
			}
			if !s.teamOff(w, TeamCreditUsage) {
				writeJSON(w, http.StatusOK, s.creditUsage())
			}
		}},
		{"GET", "/v2/team/credit-usage/historical", "GET credit-historical", false, s.teamRoute(TeamHistorical, s.serveHistorical)},
		{"GET", "/v2/team/queue-status", "GET queue-status", false, s.teamRoute(TeamQueueStatus, s.serveQueueStatus)},
		{"GET", "/v2/team/activity", "GET team-activity", false, s.teamRoute(TeamActivity, s.serveActivity)},
		{"GET", "/v2/concurrency-check", "GET concurrency-check", false, s.serveConcurrency},
		{"GET", "/v2/crawl/active", "GET crawl-active", false, func(w *respWriter, req *http.Request) { writeJSON(w, http.StatusOK, s.crawls) }},
		{"POST", "/v2/crawl/params-preview", "POST params-preview", false, func(w *respWriter, req *http.Request) { s.serveParamsPreview(w, req) }},
		{"POST", "/v2/crawl", "POST crawl", false, func(w *respWriter, req *http.Request) { s.serveStartCrawl(w, req) }},
		{"GET", "/v2/crawl/{id}", "GET crawl-status", false, s.crawlRoute(s.serveCrawlStatusOrSocket)},
		{"DELETE", "/v2/crawl/{id}", "DELETE crawl", false, s.crawlRoute(s.cancelCrawl)},
		{"GET", "/v2/crawl/{id}/errors", "GET crawl-errors", false, s.crawlRoute(func(w *respWriter, _ *http.Request, j *crawlJob) {
			writeJSON(w, http.StatusOK, s.crawlErrors(j))
		})},
		{"POST", "/v2/scrape", "POST scrape", false, func(w *respWriter, req *http.Request) { s.serveScrape(w, req) }},
		{"POST", "/v2/scrape/{id}/interact", "POST interact", false, s.interact},
		{"DELETE", "/v2/scrape/{id}/interact", "DELETE interact", false, s.interact},
		{"GET", "/files/{file...}", "GET file", true, s.serveFile},
		{"GET", "/live/{id}", "GET live", true, s.serveLive},
	}
}

func (s *Server) interact(w *respWriter, req *http.Request) {
	s.serveInteract(w, req, req.PathValue("id"))
}

// newMux registers every route under its method and path (and the path
// with a trailing slash). A request no route takes goes to a second mux of
// the paths alone: a known path answers 405 with its Allow (the route's name
// then has the request's method), any other path 404; both with a JSON body.
// (The paths cannot share the first mux without methods: "/v2/crawl/active"
// for any method would conflict with "GET /v2/crawl/{id}".)
func (s *Server) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	paths := http.NewServeMux()
	type known struct {
		methods []string
		name    string // the first route's name, after its method
	}
	byPath := map[string]*known{}
	var order []string
	routes := s.routes()
	s.threadRoute = s.handle(route{"GET", "/v2/agent/threads/{threadId}", "GET thread", false, s.serveThread}, "GET")
	for _, r := range routes {
		k := byPath[r.path]
		if k == nil {
			_, name, _ := strings.Cut(r.name, " ")
			k = &known{name: name}
			byPath[r.path] = k
			order = append(order, r.path)
		}
		k.methods = append(k.methods, r.method)
	}
	for _, r := range routes {
		h := s.handle(r, strings.Join(byPath[r.path].methods, ", "))
		mux.Handle(r.method+" "+r.path, h)
		if !strings.HasSuffix(r.path, "...}") {
			mux.Handle(r.method+" "+r.path+"/{$}", h)
		}
	}
	for _, path := range order {
		k := byPath[path]
		allow := strings.Join(k.methods, ", ")
		h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			rw := w.(*respWriter)
			rw.route = req.Method + " " + k.name
			rw.Header().Set("Allow", allow)
			writeJSON(rw, http.StatusMethodNotAllowed, errBody(msgMethodNotAllow))
		})
		paths.Handle(path, h)
		if !strings.HasSuffix(path, "...}") {
			paths.Handle(path+"/{$}", h)
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		if h, pattern := paths.Handler(req); pattern != "" {
			h.ServeHTTP(w, req)
			return
		}
		w.(*respWriter).route = "unmatched"
		writeJSON(w, http.StatusNotFound, errBody("Not found: "+req.Method+" "+req.URL.Path))
	})
	return mux
}

// handle is r's handler: the rate limit and the key (unless r is open),
// then r.serve. A GET route does not answer HEAD (the service's do not):
// 405 with allow, the methods of r's path.
func (s *Server) handle(r route, allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rw := w.(*respWriter)
		rw.route = r.name
		if req.Method != r.method {
			rw.route = req.Method + r.name[len(r.method):]
			rw.Header().Set("Allow", allow)
			writeJSON(rw, http.StatusMethodNotAllowed, errBody(msgMethodNotAllow))
			return
		}
		if r.open {
			r.serve(rw, req)
			return
		}
		if r.name == "GET trace" {
			s.mu.Lock()
			s.inTrace++
			s.stats.MaxConcurrentTrace = max(s.stats.MaxConcurrentTrace, s.inTrace)
			s.mu.Unlock()
			rw.release = sync.OnceFunc(func() {
				s.mu.Lock()
				s.inTrace--
				s.mu.Unlock()
			})
			defer rw.release()
		}
		auth := s.authOf(req)
		if s.rateLimited(rw, auth) {
			return
		}
		// The scheme is case-insensitive (RFC 9110), as the real service's
		// split on the space makes it.
		scheme, token, _ := strings.Cut(auth, " ")
		isBearer := strings.EqualFold(scheme, "Bearer")
		switch {
		case auth == "":
			writeJSON(rw, http.StatusUnauthorized, errBody(msgTokenMissing))
			return
		case !isBearer || strings.TrimSpace(token) != s.Key:
			writeJSON(rw, http.StatusUnauthorized, errBody(msgInvalidToken))
			return
		}
		r.serve(rw, req)
	})
}

// serve routes one request and returns the route's name for the stats.
func (s *Server) serve(w *respWriter, req *http.Request) string {
	if rest, ok := strings.CutPrefix(req.URL.Path, "/v2/agent/threads/"); ok && rest != "" && !strings.Contains(rest, "/") {
		s.threadRoute.ServeHTTP(w, req)
		return w.route
	}
	s.mux.ServeHTTP(w, req)
	return w.route
}

// jobHandler answers a request about run r (route is the route's name).
type jobHandler func(w http.ResponseWriter, req *http.Request, route string, r *run)

// serveJob looks the request's job up, then lets h (or a chaos fault)
// answer.
func (s *Server) serveJob(w *respWriter, req *http.Request, h jobHandler) {
	route, id := w.route, req.PathValue("id")
	if !validUUID(id) {
		jobErr(w, route, http.StatusBadRequest, msgInvalidJobID)
		return
	}
	r := s.lookup(strings.ToLower(id))
	if r == nil || s.expired(r) {
		jobErr(w, route, http.StatusNotFound, msgJobNotFound)
		return
	}
	if r.faults != nil && req.Method == http.MethodGet && s.fault(w, req, r, route, h) {
		return
	}
	h(w, req, route, r)
}

// jobErr writes a job route's error: trace and snapshot errors pass the
// upstream body through, without a success field.
func jobErr(w http.ResponseWriter, route string, status int, msg string) {
	if route == "GET trace" || route == "GET snapshot" {
		writeJSON(w, status, upstreamErr(msg))
	} else {
		writeJSON(w, status, errBody(msg))
	}
}

func (s *Server) serveTrace(w http.ResponseWriter, req *http.Request, route string, r *run) {
	if r.info.firstGen {
		jobErr(w, route, http.StatusBadRequest, msgTraceFirstGen)
		return
	}
	live := strings.EqualFold(req.URL.Query().Get("liveView"), "true")
	tr := s.trace(r, live)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(tr.size))
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	tr.writeTo(bw)
	_ = bw.Flush()
}

func (s *Server) serveSnapshot(w http.ResponseWriter, req *http.Request, route string, r *run) {
	if r.info.firstGen {
		jobErr(w, route, http.StatusBadRequest, msgSnapFirstGen)
		return
	}
	sid := req.PathValue("sid")
	if !validUUID(sid) {
		jobErr(w, route, http.StatusBadRequest, msgInvalidSnap)
		return
	}
	body, ok := s.snapshot(r, strings.ToLower(sid))
	if !ok {
		jobErr(w, route, http.StatusNotFound, msgSnapNotFound)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// traceResp is one trace answer: the visible events in serving order,
// framed; written straight from the pre-rendered bytes.
type traceResp struct {
	head, tail []byte
	v          *view
	now        time.Duration
	size       int
}

func (s *Server) trace(r *run, live bool) *traceResp {
	v := r.v.Load()
	now := s.simNow()
	t := &traceResp{v: v, now: now}
	t.head = append(appendField([]byte(`{"success":true`), "id", r.id), `,"events":[`...)
	t.tail = append([]byte("]"), `,"creditsUsed":`...)
	t.tail = strconv.AppendInt(t.tail, int64(r.credits(v, now)), 10)
	if live {
		t.tail = append(t.tail, `,"activeBrowserSessions":`...)
		t.tail = appendJSON(t.tail, s.sessions(r, v, now))
	}
	t.tail = append(t.tail, '}')
	n := 0
	size := 0
	for _, i := range v.order {
		if e := &v.events[i]; e.vis <= now {
			size += len(e.b)
			n++
		}
	}
	if n > 1 {
		size += n - 1
	}
	t.size = len(t.head) + size + len(t.tail)
	return t
}

// comma separates events; a package variable, so that writing it to an
// interface does not allocate once per event.
var comma = []byte{','}

func (t *traceResp) writeTo(w io.Writer) {
	_, _ = w.Write(t.head)
	first := true
	for _, i := range t.v.order {
		e := &t.v.events[i]
		if e.vis > t.now {
			continue
		}
		if !first {
			_, _ = w.Write(comma)
		}
		first = false
		_, _ = w.Write(e.b)
	}
	_, _ = w.Write(t.tail)
}

// sessions are the browser sessions open at now.
func (s *Server) sessions(r *run, v *view, now time.Duration) arr {
	var open []int32
	for _, i := range v.browser {
		e := &v.events[i]
		if e.vis > now {
			continue
		}
		if e.kind == kBrowserStarted {
			open = append(open, i)
		} else {
			open = slices.DeleteFunc(open, func(j int32) bool { return v.events[j].ref == e.ref })
		}
	}
	out := arr{}
	for _, i := range open {
		e := &v.events[i]
		vp := r.b.agents[e.agent].viewport
		out = append(out, obj{"id", e.ref, "liveViewUrl", s.URL + "/live/" + e.ref, "viewport", obj{"width", vp[0], "height", vp[1]}})
	}
	return out
}

func (s *Server) snapshot(r *run, sid string) ([]byte, bool) {
	v := r.v.Load()
	i, ok := v.snaps[sid]
	if !ok || v.events[i].vis > s.simNow() {
		return nil, false
	}
	sn := r.b.snapshotByID(sid)
	if sn == nil {
		return nil, false
	}
	return jsonOf(obj{"success", true, "id", r.id, "snapshotId", sid, "snapshot", sn.content()}), true
}

// snapshotByID reads the builder's snapshot table. The table is complete
// when Start returns: a cancel adds events but never artifacts, so it is
// only read afterwards.
func (b *builder) snapshotByID(id string) *snapshot { return b.snaps[id] }

func compactJSON(s string) []byte {
	v := jsontext.Value(s)
	if err := v.Compact(); err != nil {
		return []byte("null")
	}
	return v
}

const isoMillis = "2006-01-02T15:04:05.000Z"

func (s *Server) statusBody(r *run) []byte {
	v := r.v.Load()
	now := s.simNow()
	st, vs := r.status(v, now)
	o := obj{"success", true, "status", st}
	if st != "processing" {
		o = append(o, "creditsUsed", r.credits(v, now))
	}
	o = append(o, "expiresAt", r.createdAt.Add(s.retention()).Format(isoMillis), "model", r.info.model)
	if r.info.effort != "" {
		o = append(o, "effort", r.info.effort)
	}
	tid, turn := s.threadInfo(r)
	o = append(o, "threadId", tid, "threadTurn", turn)
	switch {
	case st == "completed" && r.info.firstGen:
		o = append(o, "data", raw(firstGenResult))
	case st == "completed":
		if c := s.latestResult(r, v, now); c != "" {
			o = append(o, "data", raw(compactJSON(c)))
		}
	case st == "failed" && vs.errMsg != "":
		o = append(o, "error", vs.errMsg)
	}
	return jsonOf(o)
}

// latestResult is the content of the newest visible snapshot of the
// "result" artifact.
func (s *Server) latestResult(r *run, v *view, now time.Duration) string {
	best := int32(-1)
	for sid, i := range v.snaps {
		e := &v.events[i]
		if e.vis > now {
			continue
		}
		if sn := r.b.snapshotByID(sid); sn == nil || sn.artifact != "result" || sn.kind != "json" {
			continue
		}
		if best < 0 || e.at > v.events[best].at {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return r.b.snapshotByID(v.events[best].ref).content()
}

func (s *Server) cancel(w http.ResponseWriter, r *run) {
	if r.info.firstGen {
		writeJSON(w, http.StatusConflict, errBody(msgAlreadyDone))
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.v.Load()
	now := s.simNow()
	if r.cancelled {
		writeJSON(w, http.StatusConflict, errBody(msgAlreadyCancel))
		return
	}
	if v.finished >= 0 && v.events[v.finished].vis <= now {
		writeJSON(w, http.StatusConflict, errBody(msgAlreadyDone))
		return
	}
	r.b.rng = newRNG(s.o.Seed, r.idx, streamCancel)
	r.b.endCancel(now)
	r.b.finalize()
	r.setView(r.b.view())
	r.cancelled = true
	close(r.changed)
	r.changed = make(chan struct{})
	writeJSON(w, http.StatusOK, []byte(`{"success":true}`))
}

const planTokens = 1_500_000

func activeCrawls(seed int64) []byte {
	r := newRNG(seed, -1, streamIDs)
	team := randUUID(r).String()
	c1 := obj{"id", randUUID(r).String(), "teamId", team, "url", "https://docs.firecrawl.dev",
		"options", obj{"scrapeOptions", obj{"formats", []string{"markdown", "links"}, "onlyMainContent", true, "maxAge", 172800000,
			"blockAds", true, "removeBase64Images", true, "skipTlsVerification", true, "proxy", "auto", "storeInCache", true},
			"limit", 500, "maxDiscoveryDepth", 3, "sitemap", "include", "crawlEntireDomain", false}}
	c2 := obj{"id", randUUID(r).String(), "teamId", team, "url", "https://www.python.org/doc/",
		"options", obj{"scrapeOptions", obj{"formats", arr{"markdown", obj{"type", "json", "prompt", "Extract the page title and the Python versions it mentions",
			"schema", obj{"type", "object", "properties", obj{"title", obj{"type", "string"}, "versions", obj{"type", "array", "items", obj{"type", "string"}}}}}},
			"onlyMainContent", false, "excludeTags", []string{"nav", "footer"}, "maxAge", 0, "waitFor", 1000, "timeout", 30000,
			"location", obj{"country", "US", "languages", []string{"en-US"}}, "blockAds", true, "proxy", "auto"},
			"limit", 200, "maxDiscoveryDepth", 2, "sitemap", "skip", "prompt", "Only the library reference and the tutorial"}}
	return jsonOf(obj{"success", true, "crawls", append(arr{c1, c2}, moreCrawls(r, team)...)})
}
