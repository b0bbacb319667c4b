package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// TestScreensExitAndRestore: every full screen on a real terminal (a
// pseudo-terminal), left by q, by Ctrl-C, or ended by SIGINT, SIGTERM or
// SIGHUP (the terminal window closed, the SSH session dropped). q on the
// runs screen is 0; Ctrl-C and the signals are 130 on every screen (a run
// or a crawl still going: q leaves it unfinished, 130 too). Whatever ended
// it, the terminal is given back as it was found: the alternate screen
// off, the cursor shown, raw mode undone.
func TestScreensExitAndRestore(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1, History: 45, Scrapes: 1})
	// history's and compare's screens read an archive of two runs.
	done := startSim(t, sim.Options{Speed: 100, Scenarios: []string{"research", "research"}})
	archive := filepath.Join(t.TempDir(), "archive.db")
	// compare's screen sets two archived runs side by side.
	for _, j := range done.Jobs[:2] {
		if r := runFW(t, simEnv(done), runLimit, "watch", j.ID, "-o", "json", "--interval", "100ms", "--archive", archive); r.code != 0 {
			t.Fatalf("archiving a run: %s", r)
		}
	}
	type step struct{ keys, wait string }
	screens := []struct {
		name  string
		env   []string
		args  []string
		steps []step // how to reach the screen: keys typed, then what it shows
		q     string // the key that leaves it ("" none) and its exit code
		qCode int
		ctrlC string // Ctrl-C, and what answers its question, if it asks one
		// console: the screen has its own simulator, where a call opened
		// the browser session: however the console ends without an
		// answer, the session is stopped and that is said.
		console bool
	}{
		{name: "runs", steps: []step{{"", "more below"}}, q: "q", qCode: 0},
		{name: "runs, team tab", steps: []step{{"", "more below"}, {"\t", "Active crawls"}}, q: "q", qCode: 0},
		{name: "runs, a run", steps: []step{{"", "more below"}, {"\r", "esc runs"}}, q: "q", qCode: 0},
		{name: "runs, a crawl", steps: []step{{"", "more below"}, {"\t", "https://docs.firecrawl.dev"}, {"\r", "c cancel crawl"}}}, // enter once the crawl rows are there
		{name: "watch", args: []string{"watch", srv.Jobs[0].ID}, steps: []step{{"", "Agents"}}, q: "q", qCode: 130},
		{name: "crawl", args: []string{"crawl", "https://acme.dev"}, steps: []step{{"", "pages"}}, q: "q", qCode: 130},
		{name: "console", steps: []step{{"", "code mode"}, {"await page.title()\r", "session open"}}, ctrlC: "\x03", console: true},
		{name: "compare", env: []string{"FIREWATCH_ARCHIVE=" + archive}, args: []string{"compare", done.Jobs[0].ID, done.Jobs[1].ID}, steps: []step{{"", "METRIC"}}, q: "q", qCode: 0},
		{name: "history", env: []string{"FIREWATCH_ARCHIVE=" + archive}, args: []string{"history", "--all-services"}, steps: []step{{"", done.Jobs[0].ID[:8]}}, q: "q", qCode: 0},
	}
	ends := []struct {
		name string
		sig  syscall.Signal
		key  string
	}{{"q", 0, "q"}, {"ctrl+c", 0, "\x03"}, {"SIGINT", syscall.SIGINT, ""}, {"SIGTERM", syscall.SIGTERM, ""}, {"SIGHUP", syscall.SIGHUP, ""}}
	for _, sc := range screens {
		for _, end := range ends {
			if end.name == "q" && sc.q == "" {
				continue
			}
			t.Run(sc.name+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				s, args := srv, sc.args
				if sc.console {
					s = startSim(t, sim.Options{Speed: 1, Scrapes: 1})
					args = []string{"interact", s.ScrapeIDs[0]}
				}
				p := startPTY(t, simEnv(s, sc.env...), args...)
				for _, s := range sc.steps {
					p.typeKeys(t, s.keys)
					p.waitScreen(t, s.wait)
				}
				want := 130
				switch {
				case end.sig != 0:
					if err := p.cmd.Process.Signal(end.sig); err != nil {
						t.Fatal(err)
					}
				case end.name == "q":
					p.typeKeys(t, sc.q)
					want = sc.qCode
				default:
					p.typeKeys(t, end.key+sc.ctrlC)
				}
				if code := p.exit(t); code != want {
					t.Errorf("exit %d, want %d\n%s", code, want, tailOf(p.screen()))
				}
				p.restored(t)
				if sc.console {
					if n := s.ActiveBrowserSessions(); n != 0 || !strings.Contains(p.screen(), "interrupted: stopped the browser session of scrape "+s.ScrapeIDs[0]) {
						t.Errorf("%d sessions open after the console; it says:\n%s", n, tailOf(p.screen()))
					}
				}
			})
		}
	}
}

// TestSummaryOnSIGHUP: the SSH session drops (SIGHUP) in the middle of
// watch --summary, in each output: the summary is written, whole, with
// the run's id and what was seen, and the exit is 130. On the terminal
// UI the terminal is given back too (for when it is still there).
func TestSummaryOnSIGHUP(t *testing.T) {
	t.Parallel()
	for _, output := range []string{"tui", "plain", "json"} {
		t.Run(output, func(t *testing.T) {
			t.Parallel()
			srv := startSim(t, sim.Options{Speed: 1})
			id := srv.Jobs[0].ID
			sum := filepath.Join(t.TempDir(), "sum.json")
			args := []string{"watch", id, "--output", output, "--summary", sum, "--interval", "200ms"}
			var code int
			if output == "tui" {
				p := startPTY(t, simEnv(srv), args...)
				p.waitScreen(t, "run      started")
				if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				code = p.exit(t)
				p.restored(t)
			} else {
				p := start(t, simEnv(srv), args...)
				p.waitOutput(t, runLimit, "the first event", func(s string) bool {
					return strings.Contains(s, "run       started") || strings.Contains(s, `"type":"run.started"`)
				})
				if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				code = p.wait(t, 20*time.Second)
			}
			if code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			s := readSummary(t, readFile(t, sum)) // whole JSON, or it fails here
			if s.RunID != id || s.State != model.StateRunning || s.EventCount == 0 || s.Outcome != nil {
				t.Errorf("summary: run %q (want %s), state %s, %d events, outcome %v", s.RunID, id, s.State, s.EventCount, s.Outcome)
			}
		})
	}
}

// TestRunStartedOnTheRunsScreen: n on the runs screen starts a billed
// run: its id reaches the terminal (stderr, once the screen has given it
// back) and the debug log of its watch, as firewatch run's does.
func TestRunStartedOnTheRunsScreen(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1, History: 3})
	debug := filepath.Join(t.TempDir(), "debug.log")
	p := startPTY(t, simEnv(srv), "--debug", debug)
	p.waitScreen(t, "enter open")
	p.typeKeys(t, "n")
	p.waitScreen(t, "new run:")
	p.typeKeys(t, "Compare the pricing of web-scraping APIs\r")
	p.waitScreen(t, "esc runs")
	p.typeKeys(t, "q")
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	p.restored(t)
	m := regexp.MustCompile(`firewatch: started run ([0-9a-f-]{36})`).FindStringSubmatch(p.screen())
	if m == nil {
		t.Fatalf("the started run's id is not on the terminal:\n%s", tailOf(p.screen()))
	}
	if log := readFile(t, debug); !strings.Contains(string(log), "started run "+m[1]) {
		t.Errorf("the debug log does not hold %s:\n%s", m[1], log)
	}
}

// TestCrawlSummaryOnSIGHUP: crawl --summary --pages-dir when the SSH
// session drops, on the crawl screen and in plain output: 130, the summary
// written whole with the crawl's id, still going, and every page it
// counts in the pages folder (the screen ignored both flags before).
func TestCrawlSummaryOnSIGHUP(t *testing.T) {
	t.Parallel()
	for _, output := range []string{"tui", "plain"} {
		t.Run(output, func(t *testing.T) {
			t.Parallel()
			srv := startSim(t, sim.Options{Speed: 1})
			dir := t.TempDir()
			sum, pages := filepath.Join(dir, "sum.json"), filepath.Join(dir, "pages")
			args := []string{"crawl", "https://acme.dev", "--output", output, "--summary", sum, "--pages-dir", pages}
			var code int
			var said string
			if output == "tui" {
				p := startPTY(t, simEnv(srv), args...)
				p.waitScreen(t, "c cancel crawl")
				p.waitScreen(t, "200 ") // a page's row
				if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				code = p.exit(t)
				p.restored(t)
				said = p.screen()
			} else {
				p := start(t, simEnv(srv), args...)
				p.waitOutput(t, runLimit, "the first page", func(s string) bool { return strings.Contains(s, "page 200 ") })
				if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				code = p.wait(t, 20*time.Second)
				said = p.stderr.String()
			}
			if code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			m := regexp.MustCompile(`started crawl ([0-9a-f-]{36})`).FindStringSubmatch(said)
			if m == nil {
				t.Fatalf("no crawl id said:\n%s", tailOf(said))
			}
			var s struct {
				ID, Status string
				Pages      int
			}
			if b := readFile(t, sum); json.Unmarshal(b, &s) != nil || s.ID != m[1] || s.Status == "completed" || s.Pages == 0 {
				t.Errorf("summary %s", b)
			}
			if files, _ := os.ReadDir(pages); len(files) < s.Pages {
				t.Errorf("%d files in --pages-dir, the summary counts %d pages", len(files), s.Pages)
			}
		})
	}
}

// TestTerminalGone: the terminal itself goes away (its master side
// closed: the kernel's SIGHUP, and every later write fails). watch's
// summary is written, the console stops the billed session it opened and
// says so in its debug log; both exit 130.
func TestTerminalGone(t *testing.T) {
	t.Parallel()
	for _, output := range []string{"tui", "plain"} {
		t.Run("watch "+output, func(t *testing.T) {
			t.Parallel()
			srv := startSim(t, sim.Options{Speed: 1})
			id := srv.Jobs[0].ID
			sum := filepath.Join(t.TempDir(), "sum.json")
			p := startPTY(t, simEnv(srv), "watch", id, "-o", output, "--summary", sum, "--interval", "200ms")
			p.waitScreen(t, map[string]string{"tui": "run      started", "plain": "run       started"}[output])
			p.hangUp(t)
			if code := p.exit(t); code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			if s := readSummary(t, readFile(t, sum)); s.RunID != id || s.EventCount == 0 {
				t.Errorf("summary: run %q, %d events", s.RunID, s.EventCount)
			}
		})
	}
	t.Run("crawl", func(t *testing.T) {
		t.Parallel()
		srv := startSim(t, sim.Options{Speed: 1})
		sum := filepath.Join(t.TempDir(), "sum.json")
		p := startPTY(t, simEnv(srv), "crawl", "https://acme.dev", "--summary", sum)
		p.waitScreen(t, "c cancel crawl")
		p.hangUp(t)
		if code := p.exit(t); code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
		var s struct{ ID string }
		if b := readFile(t, sum); json.Unmarshal(b, &s) != nil || s.ID == "" {
			t.Errorf("summary %s", b)
		}
	})
	t.Run("runs screen", func(t *testing.T) {
		t.Parallel()
		srv := startSim(t, sim.Options{Speed: 1, History: 3})
		p := startPTY(t, simEnv(srv))
		p.waitScreen(t, "enter open")
		p.hangUp(t)
		if code := p.exit(t); code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
	})
	t.Run("console", func(t *testing.T) {
		t.Parallel()
		srv := startSim(t, sim.Options{Speed: 1, Scrapes: 1})
		id := srv.ScrapeIDs[0]
		debug := filepath.Join(t.TempDir(), "debug.log")
		p := startPTY(t, simEnv(srv), "interact", id, "--debug", debug)
		p.waitScreen(t, "code mode")
		p.typeKeys(t, "await page.title()\r")
		p.waitScreen(t, "session open")
		p.hangUp(t)
		if code := p.exit(t); code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
		log := string(readFile(t, debug))
		if n := srv.ActiveBrowserSessions(); n != 0 || !strings.Contains(log, "started browser session of scrape "+id) || !strings.Contains(log, "interrupted: stopped the browser session of scrape "+id) {
			t.Errorf("%d sessions open; the debug log:\n%s", n, log)
		}
	})
}

// TestRerunOnTheRunsScreen: R on the runs screen opens the form filled
// with the run's request; an edited effort is marked and sent alone; the
// rerun is watched, and back on the list = opens the compare screen of the
// two runs.
func TestRerunOnTheRunsScreen(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 50})
	if err := srv.WaitFinished(context.Background(), srv.Jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "a.db")
	p := startPTY(t, simEnv(srv, "FIREWATCH_ARCHIVE="+db))
	p.waitScreen(t, "enter open")
	p.typeKeys(t, "R")
	p.waitScreen(t, "edit its request")
	p.typeKeys(t, "\t\t\t\x7f\x7f\x7f\x7flow")
	p.waitScreen(t, "was: high")
	p.typeKeys(t, "\r")
	p.waitScreen(t, "esc runs")
	deadline := time.Now().Add(runLimit)
	for len(srv.Starts()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	starts := srv.Starts()
	if len(starts) != 1 || !strings.Contains(string(starts[0].Body), `"effort":"low"`) {
		t.Fatalf("starts: %+v", starts)
	}
	if err := srv.WaitFinished(context.Background(), starts[0].ID); err != nil {
		t.Fatal(err)
	}
	p.waitScreen(t, "succeeded")
	p.typeKeys(t, "\x1b")
	p.waitScreen(t, "= compares rerun")
	p.typeKeys(t, "=")
	p.waitScreen(t, "creditsUsed")
	// Back on the list: its footer drawn once more than before.
	lists := strings.Count(p.screen(), "enter open")
	p.typeKeys(t, "q")
	for deadline := time.Now().Add(runLimit); strings.Count(p.screen(), "enter open") == lists; {
		if time.Now().After(deadline) {
			t.Fatalf("not back on the list:\n%s", tailOf(p.screen()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.typeKeys(t, "q")
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}
