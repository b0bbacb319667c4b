package runs

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/internal/confirm"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

var fixedNow = time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)

// harness drives a Model the way a program does, synchronously: commands
// run at once, except timers, which are kept until the test fires them.
type harness struct {
	t      *testing.T
	m      *Model
	srv    *sim.Server
	timers []timer
	quit   bool
}

type timer struct {
	d  time.Duration
	fn func(time.Time) tea.Msg
}

type timerMsg timer

func newHarness(t *testing.T, o sim.Options, w, h int) *harness {
	t.Helper()
	if o.RateLimit == 0 {
		o.RateLimit = -1
	}
	if o.Now == nil {
		o.Now = func() time.Time { return fixedNow }
	}
	// The team's balance stands still while a golden is drawn.
	o.StillCrawls = true
	srv, err := sim.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Service: c, NoColor: true, Now: func() time.Time { return fixedNow.Add(90 * time.Second) }})
	hs := &harness{t: t, m: m, srv: srv}
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d, fn} }
	}
	m.SetSize(w, h)
	return hs
}

// run executes cmd and everything it leads to.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case timerMsg:
		h.timers = append(h.timers, timer(msg))
	case tea.QuitMsg:
		h.quit = true
	default:
		h.run(h.m.Update(msg))
	}
}

// fire fires the pending timers of duration d (all when d is 0).
func (h *harness) fire(d time.Duration) {
	var keep, due []timer
	for _, t := range h.timers {
		if d == 0 || t.d == d {
			due = append(due, t)
		} else {
			keep = append(keep, t)
		}
	}
	h.timers = keep
	for _, t := range due {
		h.run(h.m.Update(t.fn(time.Now())))
	}
}

func (h *harness) key(k string) {
	var msg tea.KeyPressMsg
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		msg = tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab}
	case "backspace":
		msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
	default:
		r := []rune(k)[0]
		msg = tea.KeyPressMsg{Code: r, Text: k}
	}
	h.run(h.m.Update(msg))
}

// lists is the list requests the screen made (the simulator's own count is
// written after the answer, so it can lag behind the client).
func (h *harness) lists() int { return h.m.Requests }

func (h *harness) view() string {
	return golden.NoColour(h.t, h.m.View(), h.m.width, h.m.height)
}

// TestListOpenBack: the list against the simulator: processing first, one
// page up front, enter picks the run, coming back keeps the selection on
// it, and rows arriving on a refresh do not move it off the run.
func TestListOpenBack(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioCancel}, History: 45, Speed: 1}, 120, 40)
	h.run(h.m.Init())
	if h.lists() != 1 || h.m.Loaded() != 20 {
		t.Fatalf("opening made %d list requests and loaded %d runs, want 1 and 20", h.lists(), h.m.Loaded())
	}
	if r := h.m.Selected(); r == nil || r.ID != h.srv.Jobs[0].ID || r.Status != "processing" {
		t.Fatalf("first row %+v, want the processing job", r)
	}
	for range 3 {
		h.key("down")
	}
	want := h.m.Selected().ID
	h.fire(detailDelay)
	if d := h.m.details[want]; d == nil || d.st == nil || d.st.Status == "" {
		t.Fatalf("details of %s not fetched: %+v", want, d)
	}
	if n := len(h.m.details); n != 1 {
		t.Errorf("details of %d runs fetched for one resting selection, want 1", n)
	}
	if v := h.view(); !strings.Contains(v, "expires") || !strings.Contains(v, "credits ") {
		t.Errorf("the details pane lacks the status fields:\n%s", v)
	}
	h.key("enter")
	if !h.quit || h.m.Chosen != want {
		t.Fatalf("enter: quit %v chosen %q, want %s", h.quit, h.m.Chosen, want)
	}
	// Watching happened; come back.
	h.quit = false
	h.run(h.m.Reopen())
	if h.m.Chosen != "" || h.m.Selected().ID != want {
		t.Fatalf("back: selected %s, want %s", h.m.Selected().ID, want)
	}
	// A new run starts: the refresh puts it on top, the selection stays.
	req, _ := http.NewRequest("POST", h.srv.URL+"/v2/agent", bytes.NewBufferString(`{"prompt":"A new run"}`))
	req.Header.Set("Authorization", "Bearer "+h.srv.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.fire(DefaultInterval)
	if h.m.Loaded() != 21 || h.m.Selected().ID != want || h.m.sel != 4 {
		t.Fatalf("after the refresh: %d loaded, selected %s at %d; want 21, %s at 4", h.m.Loaded(), h.m.Selected().ID, h.m.sel, want)
	}
}

// TestPagingCost: 200 runs over 10 pages; the
// screen asks for one page up front and, while the cursor goes down to the
// last run, for each further page once.
func TestPagingCost(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioFirstGen}, History: 199, Speed: 1000}, 120, 40)
	h.run(h.m.Init())
	if h.lists() != 1 {
		t.Fatalf("opening made %d list requests, want 1", h.lists())
	}
	keys := 0
	for !h.m.Done() || h.m.sel < len(h.m.view)-1 {
		h.key("j")
		keys++
		if keys > 1000 {
			t.Fatal("never reached the end")
		}
	}
	t.Logf("200 runs, 10 pages: 1 list request up front, %d while pressing j %d times to the last run", h.lists()-1, keys)
	if h.m.Loaded() != 200 || h.lists() != 10 || h.m.Pages() != 10 {
		t.Fatalf("loaded %d with %d list requests (%d pages); want 200 with 10: no page twice", h.m.Loaded(), h.lists(), h.m.Pages())
	}
	// More keys at the end ask for nothing.
	h.key("G")
	h.key("j")
	if h.lists() != 10 {
		t.Fatalf("%d list requests after the end", h.lists())
	}
}

// TestFilters: / filters by prompt text and id, status keys by status.
func TestFilters(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioCancel}, History: 12, Speed: 1}, 100, 30)
	h.run(h.m.Init())
	h.key("/")
	for _, r := range "vector" {
		h.key(string(r))
	}
	h.key("enter")
	if len(h.m.view) == 0 {
		t.Fatal("no row matches vector")
	}
	for _, i := range h.m.view {
		if !strings.Contains(strings.ToLower(h.m.rows[i].Prompt), "vector") {
			t.Fatalf("row %q does not match", h.m.rows[i].Prompt)
		}
	}
	h.key("esc")
	id := h.srv.Jobs[0].ID
	h.key("/")
	for _, r := range id[:8] {
		h.key(string(r))
	}
	h.key("enter")
	if len(h.m.view) != 1 || h.m.Selected().ID != id {
		t.Fatalf("filter by id: %d rows", len(h.m.view))
	}
	h.key("esc")
	h.key("2")
	if len(h.m.view) != 1 || h.m.Selected().Status != "processing" {
		t.Fatalf("processing: %d rows", len(h.m.view))
	}
	h.key("4")
	for _, i := range h.m.view {
		if h.m.rows[i].Status != "failed" {
			t.Fatalf("failed filter shows %s", h.m.rows[i].Status)
		}
	}
	h.key("1")
	if len(h.m.view) != 13 {
		t.Fatalf("all: %d rows, want 13", len(h.m.view))
	}
}

// TestRateLimited: a 429 on the list waits what the service asked before
// the next refresh.
func TestRateLimited(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioFirstGen}, Speed: 1000, RateLimit: 2}, 100, 30)
	h.run(h.m.Init()) // list + token usage + crawls: the third is refused
	h.fire(DefaultInterval)
	if h.m.note == "" || h.m.nextTry.IsZero() {
		t.Fatalf("no rate-limit note after a 429 (note %q)", h.m.note)
	}
	var d time.Duration
	for _, tm := range h.timers {
		d = max(d, tm.d)
	}
	if d < 10*time.Second {
		t.Fatalf("next refresh in %v, want the service's wait", d)
	}
}

// TestGoldens: the list and the team tab (options rendered the v2 way, v1
// leftovers flagged; o shows a crawl's options as JSON, enter picks the
// crawl to watch) at 120x40 and 80x24, without colour.
func TestGoldens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioFirstGen}, History: 30, Speed: 1000}, size[0], size[1])
			h.run(h.m.Init())
			h.fire(detailDelay)
			name := fmt.Sprintf("%dx%d", size[0], size[1])
			golden.Check(t, "list-"+name+".txt", h.view())
			h.key("tab")
			golden.Check(t, "team-"+name+".txt", h.view())
			for range 3 {
				h.key("j")
			}
			golden.Check(t, "team-last-crawl-"+name+".txt", h.view())
			h.key("o")
			golden.Check(t, "crawl-json-"+name+".txt", h.view())
			h.key("esc")
			h.key("enter")
			if want := h.m.crawls[3].ID; !h.quit || h.m.ChosenCrawl != want {
				t.Fatalf("enter on a crawl: quit %v, chosen crawl %q, want %s", h.quit, h.m.ChosenCrawl, want)
			}
			h.key("esc")
			if h.m.tab != TabRuns {
				t.Fatal("esc did not come back to the runs")
			}
		})
	}
}

// BenchmarkKeyDown: a key costs the same with 200 and 20 000 runs loaded
// (only the visible rows are drawn).
func BenchmarkKeyDown(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
			m.SetSize(120, 40)
			rows := make([]poller.RunInfo, n)
			for i := range rows {
				rows[i] = poller.RunInfo{ID: fmt.Sprintf("%08x-0000-4000-8000-000000000000", i), Status: "completed",
					Prompt: "Compare the pricing of the top web-scraping APIs", CreatedAt: fixedNow.Add(-time.Duration(i) * time.Minute)}
			}
			m.onPage(pageMsg{list: &poller.RunList{Runs: rows}})
			benchKeys(b, m)
		})
	}
}

// benchKeys times down and up (a hundred of each in turn) with a draw.
func benchKeys(b *testing.B, m *Model) {
	down, up := tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyUp}
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%200 >= 100 {
			k = up
		}
		m.Update(k)
		_ = m.View()
	}
}

// The filter matches what a row shows: its [label], status word and model
// as well as its prompt and id.
func TestFilterMatchesWhatIsDrawn(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioCancel}, History: 19, Speed: 1}, 120, 40)
	h.run(h.m.Init())
	label := ""
	for i := range h.m.rows {
		if l := h.m.rows[i].Label; l != "" && !strings.Contains(strings.ToLower(h.m.rows[i].Prompt), strings.ToLower(l)) {
			label = l
			break
		}
	}
	if label == "" {
		t.Fatal("no labelled run whose prompt does not hold its label")
	}
	h.key("/")
	for _, r := range label {
		h.key(string(r))
	}
	h.key("enter")
	if len(h.m.view) == 0 {
		t.Fatalf("/%s matches no row, though rows show [%s]", label, label)
	}
	for _, i := range h.m.view {
		if !strings.Contains(strings.ToLower(h.m.rowText(&h.m.rows[i])), strings.ToLower(label)) {
			t.Errorf("row %s matched /%s", h.m.rows[i].ID, label)
		}
	}
}

// y copies the selected run's id; c asks before cancelling a processing
// run (keys typed before the question is armed are dropped), y cancels it
// and the list shows it cancelled; n starts a new run from a typed prompt
// and opens it.
func TestListActions(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioCancel}, History: 5, Speed: 1}, 120, 40)
	h.run(h.m.Init())
	job := h.srv.Jobs[0].ID
	if r := h.m.Selected(); r == nil || r.ID != job {
		t.Fatalf("selected %+v, want the processing job", r)
	}
	h.key("y")
	if !strings.Contains(h.m.flash, "copied run id") {
		t.Errorf("y: note %q", h.m.flash)
	}

	h.key("c")
	if !strings.Contains(h.view(), "Cancel run "+job[:8]) {
		t.Fatalf("c: no confirmation:\n%s", h.view())
	}
	h.key("y") // typed ahead: dropped
	if h.srv.Finished(job) || h.m.confirmID == "" {
		t.Fatal("a key typed before the confirmation was armed cancelled the run")
	}
	h.fire(confirm.ArmAfter)
	h.key("y")
	if !strings.Contains(h.m.flash, "accepted") {
		t.Fatalf("after y: note %q", h.m.flash)
	}
	if err := h.srv.WaitFinished(t.Context(), job); err != nil {
		t.Fatal(err)
	}
	h.fire(DefaultInterval)
	if r := h.m.Selected(); r == nil || h.m.shownStatus(r) != "cancelled" || !strings.Contains(h.view(), "cancelled") {
		t.Errorf("the cancelled run shows %q:\n%s", h.m.shownStatus(r), h.view())
	}

	h.key("n")
	for _, r := range "Find the API docs" {
		h.key(string(r))
	}
	if !strings.Contains(h.view(), "new run: Find the API docs") {
		t.Fatalf("n: the prompt is not shown:\n%s", h.view())
	}
	h.key("enter")
	if !h.quit || h.m.Chosen == "" || h.m.Chosen == job {
		t.Fatalf("enter on a new run: quit %v, chosen %q", h.quit, h.m.Chosen)
	}
	if got := h.srv.Request(h.m.Chosen).Prompt; got != "Find the API docs" {
		t.Errorf("the new run's prompt is %q", got)
	}
	// Watched, then back on the list: the start is over, the footer no
	// longer says it is under way.
	h.quit = false
	h.run(h.m.Reopen())
	if v := h.view(); strings.Contains(v, "starting a run") {
		t.Errorf("back on the list after the run started, the footer still says so:\n%s", v)
	}
}

// A line cut where its value was already cut short ends in one ellipsis.
func TestFitOneEllipsis(t *testing.T) {
	for _, w := range []int{10, 19, 20, 21, 22} {
		got := fit("prompt \"Extract the…\", schema", w)
		if strings.Contains(got, "……") || ansi.StringWidth(got) > w {
			t.Errorf("fit at %d: %q", w, got)
		}
	}
}

// One credit is "1 credit": the token line and the list's header count
// credits with text.Credits.
func TestOneCredit(t *testing.T) {
	u := &poller.TokenUsage{RemainingTokens: 15, PlanTokens: 1500}
	if got := TokenLine(u); !strings.HasSuffix(got, "= 1 credit") {
		t.Errorf("TokenLine = %q, want it to end in \"= 1 credit\"", got)
	}
	m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
	m.SetSize(100, 20)
	m.usage = u
	if v := m.View(); !strings.Contains(v, "1 credit left") || strings.Contains(v, "1 credits") {
		t.Errorf("the header does not say \"1 credit left\":\n%s", v)
	}
}

// The details' expiry counts down in whole minutes: the screen is not
// redrawn every second, so it shows no seconds figure ("45m00s" would
// stand still for a minute).
func TestExpiresNoSeconds(t *testing.T) {
	m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
	m.SetSize(120, 30)
	id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	m.onPage(pageMsg{list: &poller.RunList{Runs: []poller.RunInfo{{ID: id, Status: "completed", Prompt: "p", CreatedAt: fixedNow.Add(-time.Hour)}}}})
	for _, tc := range []struct {
		left time.Duration
		want string
	}{
		{45*time.Minute + 30*time.Second, "(in 45m)"},
		{30 * time.Second, "(in <1m)"},
		{5*time.Hour + 7*time.Minute + 59*time.Second, "(in 5h07m)"},
	} {
		exp := fixedNow.Add(tc.left)
		m.details[id] = &detail{st: &poller.Status{Status: "completed", ExpiresAt: &exp}}
		v := golden.NoColour(t, m.View(), 120, 30)
		if !strings.Contains(v, tc.want) {
			t.Errorf("%v left: the details lack %q:\n%s", tc.left, tc.want, v)
		}
	}
}

// A first page that said there was no other (the team's list read from
// the archive while its holder was still storing the page) does not end
// the paging for good: a newest page that says older ones follow starts
// it again, and "more below" is said.
func TestNewestPageReopensPaging(t *testing.T) {
	m := New(Config{NoColor: true, Now: func() time.Time { return fixedNow }})
	m.SetSize(120, 40)
	rows := make([]poller.RunInfo, poller.ListPageSize)
	for i := range rows {
		rows[i] = poller.RunInfo{ID: fmt.Sprintf("%08x-0000-4000-8000-000000000000", i), Status: "completed",
			Prompt: "p", CreatedAt: fixedNow.Add(-time.Duration(i+1) * time.Minute)}
	}
	m.onPage(pageMsg{list: &poller.RunList{Runs: rows[:1]}})
	if !m.Done() || strings.Contains(m.View(), "more below") {
		t.Fatalf("one run and no next page: done %v\n%s", m.Done(), m.View())
	}
	m.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: rows, Next: "archive", NextBefore: rows[len(rows)-1].CreatedAt}})
	if m.Done() {
		t.Fatal("a newest page with older ones after it left the paging done")
	}
	if v := golden.NoColour(t, m.View(), 120, 40); !strings.Contains(v, "20 of 20 loaded, more below") {
		t.Errorf("the status line does not say more runs follow:\n%s", v)
	}
	// A refresh without a next page does not end paging again.
	m.onPage(pageMsg{refresh: true, list: &poller.RunList{Runs: rows[:1]}})
	if m.Done() {
		t.Error("a refresh without a next page ended the paging")
	}
}
