package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	id := s.Jobs[0].ID
	paths := []string{"/v2/agent/" + id + "/trace", "/v2/agent/" + id, "/v2/agent", "/v2/team/token-usage", "/v2/crawl/active"}
	for _, p := range paths {
		for _, tc := range []struct{ auth, msg string }{
			{"", "Unauthorized: Token missing"},
			{"Bearer fc-wrong", "Unauthorized: Invalid token"},
			{s.Key, "Unauthorized: Invalid token"}, // no Bearer scheme
		} {
			req, _ := http.NewRequest("GET", s.URL+p, nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Success *bool  `json:"success"`
				Error   string `json:"error"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 401 || body.Success == nil || *body.Success || body.Error != tc.msg {
				t.Errorf("%s with %q: %d %+v %v", p, tc.auth, resp.StatusCode, body, err)
			}
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	s, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !regexp.MustCompile(`^fc-[0-9a-f]{32}$`).MatchString(s.Key) {
		t.Errorf("key %q", s.Key)
	}
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || len(s.Jobs) != 1 || s.Jobs[0].Scenario != "research" {
		t.Errorf("URL %s, jobs %v", s.URL, s.Jobs)
	}
	if _, err := Start(t.Context(), Options{Scenarios: []string{"nope"}}); err == nil {
		t.Error("unknown scenario accepted")
	}
	if got := Scenarios(); len(got) != 12 || got[0] != "research" {
		t.Errorf("Scenarios() = %v", got)
	}
}

// Start's context ends the server.
func TestContextStopsServer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Options{Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := http.Get(s.URL + "/v2/agent")
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server still answering after its context ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// After Close nothing listens: connections are refused at once.
func TestCloseRefuses(t *testing.T) {
	t.Parallel()
	for range 20 {
		s, err := Start(t.Context(), Options{Key: testKey})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = http.Get(s.URL + "/v2/agent")
		if err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("after Close: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
}

func TestJobErrors(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioResearch, ScenarioFirstGen}, Speed: 1})
	c := newClient(s)
	id, fg := s.Jobs[0].ID, s.Jobs[1].ID
	unknown := "0b6f3a2e-1111-4222-8333-444455556666"
	evs, _ := s.Script(id)
	var lateSnap string
	for _, e := range evs {
		var ev tev
		_ = json.Unmarshal(e.JSON, &ev)
		if ev.Artifact != nil {
			lateSnap = ev.Artifact.SnapshotID // the last one: not emitted yet at speed 1
		}
	}
	cases := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/v2/agent/not-a-uuid/trace", 400, `{"error":"Invalid job ID format. Job ID must be a valid UUID."}`},
		{"GET", "/v2/agent/" + unknown + "/trace", 404, `{"error":"Agent job not found"}`},
		{"GET", "/v2/agent/" + fg + "/trace", 400, `{"error":"Trace is only available for Spark 2 extracts"}`},
		{"GET", "/v2/agent/" + fg + "/snapshots/" + unknown, 400, `{"error":"Snapshots are only available for Spark 2 extracts"}`},
		{"GET", "/v2/agent/" + id + "/snapshots/nope", 400, `{"error":"Invalid snapshot ID"}`},
		{"GET", "/v2/agent/" + id + "/snapshots/" + unknown, 404, `{"error":"Snapshot not found"}`},
		{"GET", "/v2/agent/" + id + "/snapshots/" + lateSnap, 404, `{"error":"Snapshot not found"}`},
		{"GET", "/v2/agent/x/snapshots/" + unknown, 400, `{"error":"Invalid job ID format. Job ID must be a valid UUID."}`},
		{"GET", "/v2/agent/not-a-uuid", 400, `{"success":false,"error":"Invalid job ID format. Job ID must be a valid UUID."}`},
		{"GET", "/v2/agent/" + unknown, 404, `{"success":false,"error":"Agent job not found"}`},
		{"DELETE", "/v2/agent/" + unknown, 404, `{"success":false,"error":"Agent job not found"}`},
		{"DELETE", "/v2/agent/" + fg, 409, `{"success":false,"error":"Agent already finished"}`},
		{"GET", "/v2/nothing", 404, ""},
		{"GET", "/v1/agent", 404, ""},
		{"POST", "/v2/agent/" + id + "/trace", 405, `{"success":false,"error":"Method not allowed"}`},
		{"PUT", "/v2/agent/" + id, 405, `{"success":false,"error":"Method not allowed"}`},
		{"POST", "/v2/crawl/active", 405, `{"success":false,"error":"Method not allowed"}`},
		{"PATCH", "/v2/scrape/" + id + "/interact", 405, `{"success":false,"error":"Method not allowed"}`},
		{"GET", "/v2/agent/not-a-uuid/", 400, `{"success":false,"error":"Invalid job ID format. Job ID must be a valid UUID."}`},
		{"GET", "/v2/agent/" + id + "/trace/extra", 404, ""},
		{"POST", "/files/" + id + "/screenshots/x.png", 405, `{"success":false,"error":"Method not allowed"}`},
		// The crawl's id routes take what no fixed crawl path does, as
		// the service's /crawl/:jobId does.
		{"GET", "/v2/crawl/params-preview", 400, `{"success":false,"error":"Invalid job ID format. Job ID must be a valid UUID."}`},
		{"DELETE", "/v2/crawl/active", 400, `{"success":false,"error":"Invalid job ID format. Job ID must be a valid UUID."}`},
		{"GET", "/v2/crawl/" + unknown, 404, `{"success":false,"error":"Job not found"}`},
		{"PUT", "/v2/crawl/" + unknown, 405, `{"success":false,"error":"Method not allowed"}`},
		{"GET", "/v2/crawl", 405, `{"success":false,"error":"Method not allowed"}`},
		{"POST", "/v2/crawl/" + unknown + "/errors", 405, `{"success":false,"error":"Method not allowed"}`},
	}
	for _, tc := range cases {
		r := c.must(t, tc.method, tc.path)
		if r.status != tc.status {
			t.Errorf("%s %s: status %d, want %d (%s)", tc.method, tc.path, r.status, tc.status, r.body)
		}
		if tc.body != "" && string(r.body) != tc.body {
			t.Errorf("%s %s: body %s, want %s", tc.method, tc.path, r.body, tc.body)
		}
		if !json.Valid(r.body) || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: not a JSON answer: %s", tc.method, tc.path, r.body)
		}
		if tc.status == 405 && r.header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
	}
	// The first-generation job still has a status.
	st := jsonBody(t, c.must(t, "GET", "/v2/agent/"+fg).body)
	if st["status"] != "completed" || st["model"] != "spark-1-pro" || st["data"] == nil {
		t.Errorf("first-gen status %v", st)
	}
}

func TestStatusWhileRunning(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Speed: 1})
	st := jsonBody(t, newClient(s).must(t, "GET", "/v2/agent/"+s.Jobs[0].ID).body)
	if st["success"] != true || st["status"] != "processing" || st["model"] != "spark-2" {
		t.Errorf("status %v", st)
	}
	if _, ok := st["creditsUsed"]; ok {
		t.Error("creditsUsed while processing (the real service omits it)")
	}
	if _, err := time.Parse(time.RFC3339, st["expiresAt"].(string)); err != nil {
		t.Errorf("expiresAt: %v", err)
	}
	if s.Finished(s.Jobs[0].ID) {
		t.Error("finished at once at speed 1")
	}
}

func TestStatusCompletedHasResult(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	id := s.Jobs[0].ID
	waitFinished(t, s, id)
	var st struct {
		Status      string `json:"status"`
		CreditsUsed int    `json:"creditsUsed"`
		Data        struct {
			Vendors []struct {
				Name      string  `json:"name"`
				RateLimit *string `json:"rateLimit"`
			} `json:"vendors"`
			Summary string `json:"summary"`
		} `json:"data"`
	}
	if err := json.Unmarshal(newClient(s).must(t, "GET", "/v2/agent/"+id).body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != "completed" || len(st.Data.Vendors) != 5 || st.Data.Summary == "" || st.Data.Vendors[0].RateLimit == nil || st.CreditsUsed == 0 {
		t.Errorf("status %+v", st)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	scs := make([]string, 25)
	for i := range scs {
		scs[i] = ScenarioRefused
	}
	scs[3] = ScenarioFirstGen
	s := startSim(t, Options{Scenarios: scs})
	c := newClient(s)
	type page struct {
		Success bool `json:"success"`
		Data    []struct {
			ID        string `json:"id"`
			CreatedAt string `json:"createdAt"`
			Status    string `json:"status"`
			Options   struct {
				Prompt string   `json:"prompt"`
				URLs   []string `json:"urls"`
				Model  string   `json:"model"`
			} `json:"options"`
		} `json:"data"`
		Agents []json.RawMessage `json:"agents"`
		Next   *string           `json:"next"`
	}
	var p1, p2 page
	if err := json.Unmarshal(c.must(t, "GET", "/v2/agent").body, &p1); err != nil {
		t.Fatal(err)
	}
	if len(p1.Data) != 20 || len(p1.Agents) != 20 || p1.Next == nil {
		t.Fatalf("first page: %d items, next %v", len(p1.Data), p1.Next)
	}
	if p1.Data[0].ID != s.Jobs[24].ID {
		t.Errorf("newest first: got %s", p1.Data[0].ID)
	}
	for i := 1; i < len(p1.Data); i++ {
		if p1.Data[i].CreatedAt > p1.Data[i-1].CreatedAt {
			t.Errorf("not newest first at %d", i)
		}
	}
	next := strings.TrimPrefix(*p1.Next, s.URL)
	if !strings.HasPrefix(next, "/v2/agent?before=") {
		t.Fatalf("next %s", *p1.Next)
	}
	if err := json.Unmarshal(c.must(t, "GET", next).body, &p2); err != nil {
		t.Fatal(err)
	}
	if len(p2.Data) != 5 || p2.Next != nil {
		t.Errorf("second page: %d items, next %v", len(p2.Data), p2.Next)
	}
	if last := p2.Data[4]; last.ID != s.Jobs[3].ID || last.Options.Model != "spark-1-pro" || last.Status != "completed" {
		t.Errorf("oldest is the first-gen job: %+v", last)
	}
	if r := c.must(t, "GET", "/v2/agent?before=yesterday"); r.status != 400 {
		t.Errorf("bad before: %d", r.status)
	}
}

func TestTokenUsageGoesDown(t *testing.T) {
	t.Parallel()
	var clk manualClock // the first figure is taken before the run ends, however busy the machine
	s := startSim(t, Options{Speed: 100, elapsed: clk.elapsed})
	c := newClient(s)
	usage := func() (int, map[string]any) {
		var b struct {
			Success bool           `json:"success"`
			Data    map[string]any `json:"data"`
		}
		if err := json.Unmarshal(c.must(t, "GET", "/v2/team/token-usage").body, &b); err != nil || !b.Success {
			t.Fatal(err)
		}
		return int(b.Data["remainingTokens"].(float64)), b.Data
	}
	first, d := usage()
	if d["planTokens"] != float64(planTokens) || !strings.HasSuffix(d["billingPeriodStart"].(string), "Z") || d["billingPeriodEnd"] == nil {
		t.Errorf("token usage %v", d)
	}
	clk.advance(2*time.Minute, 100)
	waitFinished(t, s, s.Jobs[0].ID)
	last, _ := usage()
	_, credits := s.Script(s.Jobs[0].ID)
	// The team's active crawls use credits too: the ledger has both.
	u := s.UsageBetween(s.Period())
	if last >= first || u.Agent != credits || last != planTokens-15*(credits+u.Crawl) {
		t.Errorf("remaining tokens %d then %d; want %d (%+v)", first, last, planTokens-15*(credits+u.Crawl), u)
	}
}

func TestActiveCrawls(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	var b struct {
		Success bool `json:"success"`
		Crawls  []struct {
			ID      string `json:"id"`
			TeamID  string `json:"teamId"`
			URL     string `json:"url"`
			Options struct {
				ScrapeOptions struct {
					Formats         []json.RawMessage `json:"formats"`
					OnlyMainContent *bool             `json:"onlyMainContent"`
					MaxAge          *int              `json:"maxAge"`
				} `json:"scrapeOptions"`
			} `json:"options"`
		} `json:"crawls"`
	}
	if err := json.Unmarshal(newClient(s).must(t, "GET", "/v2/crawl/active").body, &b); err != nil {
		t.Fatal(err)
	}
	if !b.Success || len(b.Crawls) < 2 {
		t.Fatalf("%+v", b)
	}
	for _, cr := range b.Crawls {
		so := cr.Options.ScrapeOptions
		if !validUUID(cr.ID) || cr.TeamID == "" || !strings.HasPrefix(cr.URL, "https://") || len(so.Formats) == 0 || so.OnlyMainContent == nil || so.MaxAge == nil {
			t.Errorf("crawl %+v", cr)
		}
	}
}

func TestSnapshots(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	id := s.Jobs[0].ID
	tr := finalTrace(t, s, id)
	c := newClient(s)
	byKind := map[string][]string{}
	var resultCounts []int
	for _, e := range sortByTime(tr.events) {
		if e.Artifact == nil {
			continue
		}
		a := e.Artifact
		r := c.must(t, "GET", "/v2/agent/"+id+"/snapshots/"+a.SnapshotID)
		var sn struct {
			Success    bool   `json:"success"`
			ID         string `json:"id"`
			SnapshotID string `json:"snapshotId"`
			Snapshot   string `json:"snapshot"`
		}
		if err := json.Unmarshal(r.body, &sn); err != nil || r.status != 200 || !sn.Success || sn.ID != id || sn.SnapshotID != a.SnapshotID || sn.Snapshot == "" {
			t.Fatalf("snapshot %s: %d %.200s", a.SnapshotID, r.status, r.body)
		}
		byKind[a.Kind] = append(byKind[a.Kind], sn.Snapshot)
		if a.ArtifactID == "result" {
			var doc struct {
				Vendors []any `json:"vendors"`
			}
			if err := json.Unmarshal([]byte(sn.Snapshot), &doc); err != nil {
				t.Fatalf("result snapshot is not JSON: %v", err)
			}
			if len(doc.Vendors) != *a.ItemCount {
				t.Errorf("result snapshot has %d vendors, itemCount %d", len(doc.Vendors), *a.ItemCount)
			}
			resultCounts = append(resultCounts, len(doc.Vendors))
		}
	}
	if len(resultCounts) < 5 || resultCounts[0] != 0 || resultCounts[len(resultCounts)-1] != 5 {
		t.Errorf("result grew %v", resultCounts)
	}
	md := byKind["markdown"][len(byKind["markdown"])-1]
	for _, want := range []string{"# ", "## ", "|---|", "](https://"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown answer lacks %q", want)
		}
	}
	if h := byKind["html"]; len(h) == 0 || !strings.Contains(h[0], "<html") {
		t.Errorf("html snapshot %v", h)
	}
	if tx := byKind["text"]; len(tx) < 2 || len(tx[len(tx)-1]) <= len(tx[0]) {
		t.Errorf("text notes did not grow")
	}
	shots := byKind["screenshot"]
	if len(shots) != 1 || !strings.HasSuffix(shots[0], ".png") {
		t.Fatalf("screenshot snapshots %v", shots)
	}
	resp, err := http.Get(shots[0]) // a signed-URL-like file: no key needed
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := png.Decode(resp.Body); err != nil || resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("screenshot: %v %s", err, resp.Header.Get("Content-Type"))
	}
}

func TestLiveView(t *testing.T) {
	t.Parallel()
	var clk manualClock
	s := startSim(t, Options{Speed: 100, elapsed: clk.elapsed})
	id := s.Jobs[0].ID
	c := newClient(s)
	sawOpen := false
	for ; !s.Finished(id); clk.advance(time.Second, 100) {
		plain := c.trace(t, id, false)
		if plain.ActiveBrowserSessions != nil {
			t.Fatal("activeBrowserSessions without liveView=true")
		}
		tr := c.trace(t, id, true)
		if tr.ActiveBrowserSessions == nil {
			t.Fatal("no activeBrowserSessions with liveView=true")
		}
		open := map[string]bool{}
		for _, e := range tr.events {
			switch e.Type {
			case "browser.session.started":
				open[e.SessionID] = true
			case "browser.session.finished":
				delete(open, e.SessionID)
			}
		}
		for _, bs := range *tr.ActiveBrowserSessions {
			sawOpen = true
			if !open[bs.ID] || bs.Viewport.Width < 800 || bs.Viewport.Height < 600 || !strings.HasPrefix(bs.LiveViewURL, "http") {
				t.Errorf("session %+v (open: %v)", bs, open)
			}
		}
		if len(*tr.ActiveBrowserSessions) != len(open) {
			t.Errorf("%d active sessions, %d open in the events", len(*tr.ActiveBrowserSessions), len(open))
		}
	}
	if !sawOpen {
		t.Error("never saw an open browser session")
	}
	if tr := c.trace(t, id, true); len(*tr.ActiveBrowserSessions) != 0 {
		t.Errorf("sessions left open at the end: %v", *tr.ActiveBrowserSessions)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{ScenarioCancel, ScenarioResearch} {
		t.Run(sc, func(t *testing.T) {
			// The test moves the time: a busy machine must not let the
			// research run finish before the DELETE.
			var clk manualClock
			s := startSim(t, Options{Scenarios: []string{sc}, Speed: 100, elapsed: clk.elapsed})
			id := s.Jobs[0].ID
			c := newClient(s)
			// Let it work for a while (15 simulated seconds).
			clk.advance(15*time.Second, 100)
			before := c.trace(t, id, false)
			if len(before.events) <= 20 {
				t.Fatalf("%d events after 15 s", len(before.events))
			}
			r := c.must(t, "DELETE", "/v2/agent/"+id)
			if r.status != 200 || string(r.body) != `{"success":true}` {
				t.Fatalf("DELETE: %d %s", r.status, r.body)
			}
			r = c.must(t, "DELETE", "/v2/agent/"+id)
			if r.status != 409 || string(r.body) != `{"success":false,"error":"Agent is already cancelled"}` {
				t.Errorf("second DELETE: %d %s", r.status, r.body)
			}
			clk.advance(time.Minute, 100) // the cancellation runs its course
			tr := finalTrace(t, s, id)
			req := findType(tr.events, "run.cancel_requested")
			fin := findType(tr.events, "run.finished")
			if len(req) != 1 || req[0].Reason != "user" || req[0].Agent.Role != "orchestrator" {
				t.Fatalf("cancel_requested %v", req)
			}
			if len(fin) != 1 || fin[0].Outcome != "cancelled" || fin[0].Error == nil || fin[0].Error.Code != "cancelled" {
				t.Fatalf("run.finished %s", fin[0].raw)
			}
			if *tr.CreditsUsed <= *before.CreditsUsed {
				t.Errorf("no credits after the cancel request: %d then %d", *before.CreditsUsed, *tr.CreditsUsed)
			}
			after := 0
			for _, e := range tr.events {
				if e.OccurredAt > req[0].OccurredAt && e.Type != "run.finished" {
					after++
				}
				if e.Type == "agent.finished" && e.OccurredAt > req[0].OccurredAt {
					if e.Outcome != "cancelled" || e.Error == nil || (e.Error.Code != "cancelled" && e.Error.Code != "parent_finished") {
						t.Errorf("agent stopped with %s", e.raw)
					}
				}
			}
			if after < 2 {
				t.Errorf("only %d events after the cancel request", after)
			}
			r = c.must(t, "DELETE", "/v2/agent/"+id)
			if r.status != 409 {
				t.Errorf("DELETE after the end: %d %s", r.status, r.body)
			}
			st := jsonBody(t, c.must(t, "GET", "/v2/agent/"+id).body)
			if st["status"] != "failed" {
				t.Errorf("a cancelled job reports %v", st["status"])
			}
		})
	}
}

// Pollers keep reading while a cancel replaces the run's script.
func TestCancelWhilePolling(t *testing.T) {
	t.Parallel()
	var clk manualClock // the run must not finish before the DELETE, however busy the machine
	s := startSim(t, Options{Scenarios: []string{ScenarioResearch}, Speed: 200, elapsed: clk.elapsed})
	id := s.Jobs[0].ID
	c := newClient(s)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range []string{"/trace?liveView=true", "", "/snapshots/0b6f3a2e-1111-4222-8333-444455556666"} {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.do("GET", "/v2/agent/"+id+p); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	halt := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer halt()
	clk.advance(15*time.Second, 200)
	if n := len(c.trace(t, id, false).events); n < 20 {
		t.Fatalf("%d events after 15 s", n)
	}
	if r := c.must(t, "DELETE", "/v2/agent/"+id); r.status != 200 {
		t.Fatalf("DELETE: %d", r.status)
	}
	for range 30 { // the pollers see the cancellation unfold
		clk.advance(time.Second, 200)
		c.trace(t, id, true)
	}
	tr := finalTrace(t, s, id)
	halt()
	if f := findType(tr.events, "run.finished"); len(f) != 1 || f[0].Outcome != "cancelled" {
		t.Errorf("run.finished %v", f)
	}
}

func TestCancelFinishedRun(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	id := s.Jobs[0].ID
	waitFinished(t, s, id)
	r := newClient(s).must(t, "DELETE", "/v2/agent/"+id)
	if r.status != 409 || string(r.body) != `{"success":false,"error":"Agent already finished"}` {
		t.Errorf("DELETE: %d %s", r.status, r.body)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	for _, header := range []bool{false, true} {
		s := startSim(t, Options{RateLimit: 5, RetryAfterHeader: header})
		c := newClient(s)
		for i := range 5 {
			if r := c.must(t, "GET", "/v2/agent"); r.status != 200 {
				t.Fatalf("request %d: %d", i, r.status)
			}
		}
		r := c.must(t, "GET", "/v2/agent/"+s.Jobs[0].ID+"/trace")
		if r.status != 429 {
			t.Fatalf("6th request: %d", r.status)
		}
		var b struct {
			Success *bool  `json:"success"`
			Error   string `json:"error"`
			RAS     *int   `json:"retry_after_seconds"`
		}
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`^Rate limit exceeded\. Consumed \(req/min\): 6, Remaining \(req/min\): 0\. Upgrade your plan at https://firecrawl\.dev/pricing for increased rate limits or please retry after (\d+)s, resets at (.+)$`)
		m := re.FindStringSubmatch(b.Error)
		if b.Success == nil || *b.Success || m == nil || b.RAS != nil {
			t.Fatalf("429 body %s", r.body)
		}
		if _, err := time.Parse(time.RFC1123, m[2]); err != nil {
			t.Errorf("reset date %q: %v", m[2], err)
		}
		secs, _ := strconv.Atoi(m[1])
		if secs < 1 || secs > 60 {
			t.Errorf("retry after %ds", secs)
		}
		if got := r.header.Get("Retry-After"); (got != "") != header || (header && got != m[1]) {
			t.Errorf("Retry-After %q with RetryAfterHeader=%v", got, header)
		}
		// The keyless bucket is separate and says retry_after_seconds.
		kl := &tclient{base: s.URL, hc: http.DefaultClient}
		for range 5 {
			if r := kl.must(t, "GET", "/v2/agent"); r.status != 401 {
				t.Fatalf("keyless: %d", r.status)
			}
		}
		r = kl.must(t, "GET", "/v2/agent")
		if err := json.Unmarshal(r.body, &b); err != nil || r.status != 429 || b.RAS == nil || *b.RAS < 1 {
			t.Errorf("keyless 429: %d %s", r.status, r.body)
		}
		if st := s.Stats(); st.RateLimited != 2 || st.Requests != 12 {
			t.Errorf("stats %+v", st)
		}
	}
}

func TestStatsAndConcurrency(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	c := newClient(s)
	id := s.Jobs[0].ID
	for range 3 {
		c.trace(t, id, false)
	}
	c.must(t, "GET", "/v2/agent/"+id)
	c.must(t, "GET", "/v2/team/token-usage")
	st := s.Stats()
	if st.MaxConcurrentTrace != 1 || st.ByRoute["GET trace"] != 3 || st.ByRoute["GET status"] != 1 || st.ByRoute["GET token-usage"] != 1 || st.Requests != 5 {
		t.Errorf("sequential client: %+v", st)
	}
	// Overlapping trace requests are counted as such. Whether two of them
	// overlap is up to the scheduler (on a loaded two-core machine eight
	// pollers can run one after another), so bursts repeat until one does,
	// a bounded number of times.
	for round := 0; round < 50 && s.Stats().MaxConcurrentTrace < 2; round++ {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 8 {
			wg.Go(func() {
				<-start
				for range 10 {
					if _, err := c.do("GET", "/v2/agent/"+id+"/trace"); err != nil {
						t.Error(err)
					}
				}
			})
		}
		close(start)
		wg.Wait()
	}
	if s.Stats().MaxConcurrentTrace < 2 {
		t.Errorf("8 parallel pollers never overlapped: %d", s.Stats().MaxConcurrentTrace)
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var buf bytes.Buffer
	s := startSim(t, Options{Log: lockedWriter{&mu, &buf}})
	c := newClient(s)
	id := s.Jobs[0].ID
	c.trace(t, id, true)
	c.must(t, "GET", "/v2/agent/"+id+"?api_key="+s.Key)
	(&tclient{base: s.URL, hc: http.DefaultClient}).must(t, "GET", "/v2/agent")
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("log:\n%s", out)
	}
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\S+Z (GET|DELETE) /\S+ (\d{3}|dropped) \S+$`)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("log line %q", l)
		}
	}
	if !strings.Contains(lines[0], "/trace?liveView=true 200") || !strings.Contains(lines[2], " 401 ") {
		t.Errorf("log:\n%s", out)
	}
	if strings.Contains(out, s.Key) || strings.Contains(out, s.Key[3:]) {
		t.Error("the key is in the log")
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestSpeed1000FinishesFast(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	evs, _ := s.Script(s.Jobs[0].ID)
	var last time.Duration
	for _, e := range evs {
		last = max(last, e.Visible)
	}
	// Pacing is arithmetic: the last event shows at last/Speed of wall time.
	if wall := time.Duration(float64(last) / 1000); wall >= 200*time.Millisecond {
		t.Errorf("research at speed 1000 lasts %v", wall)
	}
	if last < 50*time.Second || last > 75*time.Second {
		t.Errorf("research lasts %v at speed 1", last)
	}
}

// Speeds that would make the times on the wire overflow, or mean nothing,
// are refused by Start; the extremes allowed work, and a long-running
// server at a high speed does not wrap around to an empty trace.
func TestSpeedBounds(t *testing.T) {
	t.Parallel()
	for _, sp := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, MinSpeed / 2, MaxSpeed * 2} {
		if s, err := Start(t.Context(), Options{Speed: sp}); err == nil {
			s.Close()
			t.Errorf("speed %v accepted", sp)
		} else if !strings.Contains(err.Error(), "speed") {
			t.Errorf("speed %v: %v", sp, err)
		}
	}
	var clk manualClock
	slow := startSim(t, Options{Speed: 0.1, elapsed: clk.elapsed})
	fast := startSim(t, Options{Speed: MaxSpeed, elapsed: clk.elapsed})
	clk.advance(30*time.Second, 1) // 3 s simulated at 0.1; 3·10^7 s at 10^6
	if tr := newClient(slow).trace(t, slow.Jobs[0].ID, false); len(tr.events) == 0 || slow.Finished(slow.Jobs[0].ID) {
		t.Errorf("speed 0.1 after 30 s: %d events", len(tr.events))
	}
	evs, _ := fast.Script(fast.Jobs[0].ID)
	for _, d := range []time.Duration{0, 1000 * time.Hour} {
		clk.advance(d, 1)
		if tr := newClient(fast).trace(t, fast.Jobs[0].ID, false); len(tr.events) != len(evs) || !fast.Finished(fast.Jobs[0].ID) {
			t.Errorf("speed %v after %v more: %d of %d events", MaxSpeed, d, len(tr.events), len(evs))
		}
	}
}

// The bearer scheme is case-insensitive, as in the real service.
func TestBearerScheme(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req, _ := http.NewRequest("GET", s.URL+"/v2/team/token-usage", nil)
		req.Header.Set("Authorization", scheme+" "+s.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", scheme, resp.StatusCode)
		}
	}
}

// A server listening on every interface gives a loopback URL: the one it
// prints for clients, which send a key over plain http to loopback only.
func TestUnspecifiedAddrGivesALoopbackURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ addr, prefix string }{
		{"0.0.0.0:0", "http://127.0.0.1:"},
		{":0", "http://127.0.0.1:"},
		{"[::]:0", "http://[::1]:"},
	} {
		s, err := Start(t.Context(), Options{Addr: tc.addr, Key: testKey})
		if err != nil {
			if tc.addr == "[::]:0" {
				continue // no IPv6 here
			}
			t.Fatal(err)
		}
		defer s.Close()
		if !strings.HasPrefix(s.URL, tc.prefix) {
			t.Errorf("%s: URL %s", tc.addr, s.URL)
			continue
		}
		if r, err := newClient(s).do("GET", "/v2/team/token-usage"); err != nil || r.status != 200 {
			t.Errorf("%s: %v %d", tc.addr, err, r.status)
		}
	}
}

// A team without usage information: the real service's 404.
func TestNoTokenUsage(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{NoTokenUsage: true})
	r := newClient(s).must(t, "GET", "/v2/team/token-usage")
	if r.status != 404 || string(r.body) != `{"success":false,"error":"Could not find token usage information"}` {
		t.Errorf("%d %s", r.status, r.body)
	}
	// Auth still comes first.
	if r := (&tclient{base: s.URL, hc: http.DefaultClient}).must(t, "GET", "/v2/team/token-usage"); r.status != 401 {
		t.Errorf("without a key: %d", r.status)
	}
}

// A DELETE in the tail (run.finished shown, a late event still to land) is
// the real 409 "Agent already finished", and changes nothing: the late
// event lands as scripted.
func TestCancelDuringTheTail(t *testing.T) {
	t.Parallel()
	var clk manualClock
	s := startSim(t, Options{Speed: 1, elapsed: clk.elapsed})
	id := s.Jobs[0].ID
	before, _ := s.Script(id)
	var fin, last time.Duration
	for _, e := range before {
		if e.Type == "run.finished" {
			fin = e.Visible
		}
		last = max(last, e.Visible)
	}
	if last <= fin {
		t.Fatal("no late event to wait for")
	}
	clk.advance(fin+(last-fin)/2, 1)
	c := newClient(s)
	if n := len(c.trace(t, id, false).events); n >= len(before) {
		t.Fatalf("all %d events shown already", n)
	}
	r := c.must(t, "DELETE", "/v2/agent/"+id)
	if r.status != 409 || string(r.body) != `{"success":false,"error":"Agent already finished"}` {
		t.Fatalf("DELETE in the tail: %d %s", r.status, r.body)
	}
	clk.advance(last, 1)
	if tr := c.trace(t, id, false); len(tr.events) != len(before) || len(findType(tr.events, "run.cancel_requested")) != 0 {
		t.Errorf("%d events of %d after the late one landed", len(tr.events), len(before))
	}
}

// TestHeld: a server started with Held keeps its runs at their start until
// Release, then plays them at their pace.
func TestHeld(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioResearch}, Speed: 400, Held: true})
	id := s.Jobs[0].ID
	// At speed 400 the run lasts about 0.15 s: held, it has not ended
	// 300 ms later.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.WaitFinished(ctx, id); err == nil {
		t.Fatal("a held run finished")
	}
	if st := jsonBody(t, newClient(s).must(t, "GET", "/v2/agent/"+id).body); st["status"] != "processing" {
		t.Fatalf("held: status %v", st["status"])
	}
	s.Release()
	s.Release() // once is enough; again does nothing
	waitFinished(t, s, id)
}

// TestReleaseUntil: ReleaseUntil runs a held clock to a point and holds
// it there however late it is read; Hold, Release and another
// ReleaseUntil go on from there.
func TestReleaseUntil(t *testing.T) {
	t.Parallel()
	var c heldClock
	start := time.Unix(1000, 0)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	c.hold(start)
	steps := []struct {
		do   func()
		now  float64
		want time.Duration
	}{
		{func() { c.releaseUntil(start, at(2), 3*time.Second) }, 4, 2 * time.Second},
		{func() {}, 9, 3 * time.Second},                                                // read late: held at 3s
		{func() { c.release(at(10)) }, 11, 4 * time.Second},                            // held from 3s until 10
		{func() { c.releaseUntil(start, at(12), 4*time.Second) }, 20, 5 * time.Second}, // past it: held where it is
		{func() { c.releaseUntil(start, at(21), 7*time.Second) }, 22, 6 * time.Second},
		{func() { c.hold(at(30)) }, 31, 7 * time.Second}, // it stood at 7s from 22 on
		{func() { c.releaseUntil(start, at(31), 9*time.Second) }, 32, 8 * time.Second},
		{func() { c.release(at(32)) }, 40, 16 * time.Second}, // Release: no bound
	}
	for i, st := range steps {
		st.do()
		if got := c.since(start, at(st.now)); got != st.want {
			t.Fatalf("step %d: the clock ran %s, want %s", i, got, st.want)
		}
	}

	s := startSim(t, Options{Scenarios: []string{ScenarioResearch}, Speed: 400, Held: true})
	id := s.Jobs[0].ID
	evs, _ := s.Script(id)
	s.ReleaseUntil(evs[len(evs)/2].Visible)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.WaitFinished(ctx, id); err == nil {
		t.Fatal("a run released until its middle finished")
	}
	s.Release()
	waitFinished(t, s, id)
}

// TestHoldMidRun: Hold stands a running clock still until Release, as
// often as a test asks; the time held is not the runs' time.
func TestHoldMidRun(t *testing.T) {
	t.Parallel()
	var c heldClock
	start := time.Unix(1000, 0)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	steps := []struct {
		do   func()
		now  float64
		want time.Duration
	}{
		{func() {}, 2, 2 * time.Second},
		{func() { c.hold(at(3)) }, 10, 3 * time.Second},
		{func() { c.hold(at(5)) }, 10, 3 * time.Second}, // held already: the first hold counts
		{func() { c.release(at(11)) }, 12, 4 * time.Second},
		{func() { c.release(at(13)) }, 14, 6 * time.Second}, // running: nothing to release
		{func() { c.hold(at(15)) }, 20, 7 * time.Second},
		{func() { c.release(at(20)) }, 21, 8 * time.Second},
	}
	for i, st := range steps {
		st.do()
		if got := c.since(start, at(st.now)); got != st.want {
			t.Fatalf("step %d: the clock ran %s, want %s", i, got, st.want)
		}
	}

	s := startSim(t, Options{Scenarios: []string{ScenarioResearch}, Speed: 400, Held: true})
	id := s.Jobs[0].ID
	s.Release()
	s.Hold()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.WaitFinished(ctx, id); err == nil {
		t.Fatal("a run held again finished")
	}
	s.Release()
	waitFinished(t, s, id)
}
