package crawl

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// fakeService feeds a crawl's updates from a list and counts cancels.
type fakeService struct {
	docs    []string
	final   string
	stats   poller.CrawlWatchStats // what the watch's end reports
	cancels atomic.Int32
	release chan struct{} // closed to let the watch end
}

func (f *fakeService) WatchCrawl(ctx context.Context, id string, o poller.CrawlWatchOptions, sink func(poller.CrawlUpdate)) (*poller.CrawlStatus, poller.CrawlWatchStats, error) {
	sink(poller.CrawlUpdate{Transport: poller.TransportLive})
	for _, raw := range f.docs {
		d, _ := poller.ParseCrawlDoc([]byte(raw))
		sink(poller.CrawlUpdate{Doc: &d})
	}
	sink(poller.CrawlUpdate{Status: &poller.CrawlStatus{Status: "scraping", Completed: len(f.docs), Total: len(f.docs) + 3}})
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, poller.CrawlWatchStats{}, ctx.Err()
		}
	}
	return &poller.CrawlStatus{Status: f.final, Completed: len(f.docs), Total: len(f.docs)}, f.stats, nil
}

func (f *fakeService) CrawlErrorsOf(ctx context.Context, id string) (*poller.CrawlErrors, error) {
	return &poller.CrawlErrors{Errors: []poller.CrawlError{{URL: "https://e.com/broken", Error: "Request timed out"}}, RobotsBlocked: []string{"https://e.com/login"}}, nil
}

func (f *fakeService) CancelCrawl(ctx context.Context, id string) (string, error) {
	f.cancels.Add(1)
	return "cancelled", nil
}

func doc(n int, title string) string {
	q, _ := json.Marshal(title)
	return fmt.Sprintf(`{"markdown":"# Page %d\n\nbody","links":["https://e.com/%d/x"],"metadata":{"title":%s,"url":"https://e.com/%d","sourceURL":"https://e.com/%d","statusCode":200,"scrapeId":"s%d"}}`, n, n, q, n, n, n)
}

// drive runs cmd and the commands it returns until nothing but timers
// is left (ticks are dropped: they would run for ever).
func drive(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 10000; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tickMsg, nil:
			continue
		}
		queue = append(queue, m.Update(msg))
	}
}

func newTestModel(t testing.TB, svc Service) *Model {
	t.Helper()
	m, err := New(Config{Service: svc, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", URL: "https://e.com", NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.SetSize(80, 24)
	return m
}

func press(m *Model, k string) tea.Cmd {
	var msg tea.KeyPressMsg
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEscape}
	default:
		msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
	}
	return m.Update(msg)
}

func TestScreenPagesErrorsAndHostileText(t *testing.T) {
	t.Parallel() // its screen waits out a one-second tick
	hostile := "\x1b]0;pwned\x07\x1b[2J\u202eevil\u202c \u009b31m" + strings.Repeat("W", 5000)
	svc := &fakeService{docs: []string{doc(1, "One"), doc(2, hostile), doc(3, "Three")}, final: "completed"}
	m := newTestModel(t, svc)
	drive(t, m, m.Init())
	if !m.done || m.final != "completed" || len(m.rows) != 5 || m.failed != 1 || m.robots != 1 {
		t.Fatalf("done %v final %q, %d rows, %d failed, %d robots", m.done, m.final, len(m.rows), m.failed, m.robots)
	}
	v := m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != 24 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w != 80 {
			t.Fatalf("a line of %d cells: %q", w, l)
		}
		if p := ansi.Strip(l); !text.IsSafe(p) {
			t.Fatalf("unsafe text on screen: %q", p)
		}
	}
	for _, want := range []string{"ERR", "ROBOT", "One", "evil WWW", "completed", "https://e.com/broken"} {
		if !strings.Contains(ansi.Strip(v), want) {
			t.Fatalf("%q not on screen:\n%s", want, ansi.Strip(v))
		}
	}
	// Filter, then open the page: its markdown, metadata and links.
	for _, k := range []string{"/", "T", "h", "r"} {
		press(m, k)
	}
	drive(t, m, press(m, "enter"))
	if m.shown() != 1 || m.selected().title != "Three" {
		t.Fatalf("filter shows %d", m.shown())
	}
	drive(t, m, press(m, "enter"))
	if m.page == nil || !strings.Contains(ansi.Strip(m.View()), "Page 3") {
		t.Fatalf("page not open:\n%s", ansi.Strip(m.View()))
	}
	press(m, "3")
	if !strings.Contains(ansi.Strip(m.View()), "https://e.com/3/x") {
		t.Fatalf("links not shown:\n%s", ansi.Strip(m.View()))
	}
	// s saves the page in the save dir, under its URL's name.
	dir := t.TempDir()
	m.cfg.SaveDir = dir
	drive(t, m, press(m, "s"))
	if b, err := os.ReadFile(dir + "/e.com_3.md"); err != nil || !strings.Contains(string(b), "# Page 3") {
		t.Fatalf("saved: %q %v (%s)", b, err, m.flash)
	}
}

// A key typed ahead of the confirmation does not answer it.
func TestCancelConfirmationIgnoresTypedAhead(t *testing.T) {
	svc := &fakeService{docs: []string{doc(1, "One")}, final: "cancelled", release: make(chan struct{})}
	m := newTestModel(t, svc)
	init := m.Init()
	// Take the first batch only (the watch waits on release).
	m.Update(init().(tea.BatchMsg)[0]())
	press(m, "c")
	drive(t, m, press(m, "y")) // typed ahead: before the arming message
	if svc.cancels.Load() != 0 || m.question == nil {
		t.Fatal("a typed-ahead y cancelled the crawl")
	}
	m.Update(m.question.Arm())
	drive(t, m, press(m, "y"))
	if svc.cancels.Load() != 1 || m.question != nil {
		t.Fatalf("cancels %d after an armed y", svc.cancels.Load())
	}
	close(svc.release)
}

// A crawl that ends while the cancel question is up closes the question,
// and the key typed as its answer goes nowhere: not a cancel, not the
// list's y (copy the URL). The key after it is the list's again.
func TestCancelQuestionDroppedWhenCrawlEnds(t *testing.T) {
	svc := &fakeService{docs: []string{doc(1, "One")}, final: "completed", release: make(chan struct{})}
	m := newTestModel(t, svc)
	init := m.Init()
	next := init().(tea.BatchMsg)[0]
	m.Update(next())
	press(m, "c")
	m.Update(m.question.Arm())
	if m.question == nil {
		t.Fatal("no question")
	}
	close(svc.release)
	// The watch's messages come in batches of what is ready: read them
	// until its end has come.
	for i := 0; !m.done && i < 10; i++ {
		m.Update(m.next()())
	}
	if m.question != nil || !strings.Contains(m.flash, "the crawl is over (completed): nothing to cancel") {
		t.Fatalf("confirming %v, flash %q", m.question != nil, m.flash)
	}
	if cmd := press(m, "y"); cmd != nil || svc.cancels.Load() != 0 || !strings.Contains(m.flash, "that key was not taken") {
		t.Fatalf("the y meant for the vanished question: a command %v, %d cancels, flash %q", cmd != nil, svc.cancels.Load(), m.flash)
	}
	if cmd := press(m, "y"); cmd == nil || svc.cancels.Load() != 0 {
		t.Fatal("the key after it did not reach the list (y copies the URL)")
	}
}

// c is offered (footer, ?) only while the crawl can be cancelled; on a
// finished crawl the key says why it does nothing.
func TestCancelNotOfferedWhenOver(t *testing.T) {
	svc := &fakeService{docs: []string{doc(1, "One")}, final: "completed", release: make(chan struct{})}
	m := newTestModel(t, svc)
	m.SetSize(120, 40)
	init := m.Init()
	m.Update(init().(tea.BatchMsg)[0]())
	if !strings.Contains(ansi.Strip(m.View()), "c cancel crawl") {
		t.Fatalf("no c while scraping:\n%s", ansi.Strip(m.View()))
	}
	close(svc.release)
	for i := 0; !m.done && i < 10; i++ {
		m.Update(m.next()())
	}
	if v := ansi.Strip(m.View()); strings.Contains(v, "cancel crawl") {
		t.Fatalf("c offered on a finished crawl:\n%s", v)
	}
	press(m, "?")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "copy URL") || strings.Contains(v, "cancel crawl") {
		t.Fatalf("? on a finished crawl:\n%s", v)
	}
	press(m, "?")
	if cmd := press(m, "c"); cmd != nil || m.question != nil || m.flash != "the crawl is over (completed): nothing to cancel" {
		t.Fatalf("c on a finished crawl: confirming %v, flash %q", m.question != nil, m.flash)
	}
}

// The pages' content goes to a private file that is gone once closed
// (on Unix: as soon as it is open).
func TestPageStorePrivate(t *testing.T) {
	s, err := newPageStore()
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.f.Stat()
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	name := s.f.Name()
	off, n, _ := s.add([]byte("hello"))
	if b, err := s.get(off, n); err != nil || string(b) != "hello" {
		t.Fatalf("%q %v", b, err)
	}
	s.Close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("the file is still there: %v", err)
	}
}

// The pages the watch's end fetched late or could not fetch are in the
// header and in what the screen tells its caller, with the first failed
// pages and whether they were read after the end.
func TestScreenEndNotesAndSeen(t *testing.T) {
	t.Parallel() // its screen waits out a one-second tick
	svc := &fakeService{docs: []string{doc(1, "One"), doc(2, "Two")}, final: "completed", stats: poller.CrawlWatchStats{Late: 1, Missing: 2}}
	m := newTestModel(t, svc)
	m.SetSize(120, 40)
	drive(t, m, m.Init())
	if v := ansi.Strip(m.View()); !strings.Contains(v, "1 page fetched late") || !strings.Contains(v, "2 pages not delivered") {
		t.Fatalf("no end notes in the header:\n%s", v)
	}
	s := m.Result().Seen
	if s.Late != 1 || s.Missing != 2 || !s.ErrorsAfterEnd || s.Pages != 2 || s.Failed != 1 ||
		len(s.FailedPages) != 1 || s.FailedPages[0].URL != "https://e.com/broken" || s.FailedPages[0].Error != "Request timed out" {
		t.Fatalf("seen %+v", s)
	}
}
