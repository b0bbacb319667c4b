package ui

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

const testJob = "e9d1e131-b05b-4d08-b44a-bde34a7aa278"

// fakeStarts is Config.Start: it keeps the requests and answers an id.
type fakeStarts struct {
	mu   sync.Mutex
	reqs []poller.AgentRequest
}

func (f *fakeStarts) start(_ context.Context, req poller.AgentRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return "7b0c5e2a-1111-4222-8333-444455556666", nil
}

func rerunStore(t *testing.T) *model.Store {
	s := loadStore(t, "running.json")
	s.SetRequest(model.Request{Prompt: "Find the pricing of the plans", Model: "spark-2", Effort: "high",
		URLs: []string{"https://example.com/pricing"}, MaxCredits: 300})
	s.SetThread(model.Thread{ID: "51b3ab58-9c1e-4f7a-8d2b-0a1b2c3d4e5f", Turn: 2})
	return s
}

// TestRunScreenRerun: R on a run's screen opens the form filled with the
// run's request (its cap too), a changed field is marked with what it
// was, and enter sends the request with only that change; the screen
// ends with the new run and its lineage.
func TestRunScreenRerun(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		fs := &fakeStarts{}
		m := newTestModel(t, "", size.w, size.h, Config{Store: rerunStore(t), JobID: testJob, Backend: &fakeBackend{}, Start: fs.start})
		healthy(m, false)
		pressRun(t, m, "R")
		got := content(m)
		checkScreen(t, got, size.w, size.h)
		golden(t, "rerun-form-"+itoa(size.w)+"x"+itoa(size.h)+".txt", plain(got))
		pressRun(t, m, "tab", "tab", "tab") // effort
		pressRun(t, m, "backspace", "backspace", "backspace", "backspace")
		typeText(m, "low")
		got = content(m)
		checkScreen(t, got, size.w, size.h)
		golden(t, "rerun-form-changed-"+itoa(size.w)+"x"+itoa(size.h)+".txt", plain(got))
		pressRun(t, m, "enter")
		want := poller.AgentRequest{Prompt: "Find the pricing of the plans", Model: "spark-2", Effort: "low",
			URLs: []string{"https://example.com/pricing"}, MaxCredits: 300}
		if len(fs.reqs) != 1 || !reflect.DeepEqual(fs.reqs[0], want) {
			t.Fatalf("%dx%d: sent %+v, want %+v", size.w, size.h, fs.reqs, want)
		}
		r := m.Result()
		if r.Started != "7b0c5e2a-1111-4222-8333-444455556666" || r.StartedRerunOf != testJob || !reflect.DeepEqual(r.StartedChanged, []string{"effort"}) || r.FollowUp {
			t.Errorf("%dx%d: result %+v", size.w, size.h, r)
		}
	}
}

// TestRunScreenFollowUp: F types a follow-up for the run's thread (q and
// c are typed, not acted on); enter sends it with the thread's id.
func TestRunScreenFollowUp(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		fs := &fakeStarts{}
		m := newTestModel(t, "", size.w, size.h, Config{Store: rerunStore(t), JobID: testJob, Backend: &fakeBackend{}, Start: fs.start})
		healthy(m, false)
		pressRun(t, m, "F")
		typeText(m, "and the enterprise quote, cc sales?")
		got := content(m)
		checkScreen(t, got, size.w, size.h)
		golden(t, "followup-"+itoa(size.w)+"x"+itoa(size.h)+".txt", plain(got))
		if m.Result().Quit || m.overlay == nil {
			t.Fatalf("%dx%d: q or c acted while typing", size.w, size.h)
		}
		pressRun(t, m, "enter")
		want := poller.AgentRequest{Prompt: "and the enterprise quote, cc sales?", ThreadID: "51b3ab58-9c1e-4f7a-8d2b-0a1b2c3d4e5f"}
		if len(fs.reqs) != 1 || !reflect.DeepEqual(fs.reqs[0], want) {
			t.Fatalf("%dx%d: sent %+v", size.w, size.h, fs.reqs)
		}
		if r := m.Result(); r.Started == "" || !r.FollowUp || r.StartedRerunOf != "" {
			t.Errorf("%dx%d: result %+v", size.w, size.h, r)
		}
	}
	// A run whose thread the service did not name: F says so.
	fs := &fakeStarts{}
	m := newTestModel(t, "running.json", 120, 40, Config{JobID: testJob, Backend: &fakeBackend{}, Start: fs.start})
	pressRun(t, m, "F")
	if m.overlay != nil || !strings.Contains(footerLine(m), "does not say which thread") {
		t.Errorf("F without a thread: %s", footerLine(m))
	}
}

// TestRunScreenStartViewer: a hub's viewer is told only operators may; R
// and F open nothing, send nothing and are not offered in the help.
func TestRunScreenStartViewer(t *testing.T) {
	fs := &fakeStarts{}
	m := newTestModel(t, "", 120, 40, Config{Store: rerunStore(t), JobID: testJob, Backend: &fakeBackend{}, Start: fs.start,
		Person: "vic", Role: "viewer", ReadOnly: "only the hub's operators may cancel or start runs (vic is a viewer)"})
	healthy(m, false)
	for _, k := range []string{"R", "F"} {
		pressRun(t, m, k)
		if m.overlay != nil || !strings.Contains(footerLine(m), "only the hub's operators may") {
			t.Errorf("%s: %s", k, footerLine(m))
		}
	}
	pressRun(t, m, "enter")
	if len(fs.reqs) != 0 {
		t.Errorf("a viewer started %+v", fs.reqs)
	}
	pressRun(t, m, "?")
	if help := plain(content(m)); strings.Contains(help, "rerun with changes") || strings.Contains(help, "follow up in its thread") {
		t.Errorf("a viewer's help offers R or F:\n%s", help)
	}
	// A replay (no Start): R says why not.
	r := newTestModel(t, "running.json", 120, 40, Config{JobID: testJob})
	pressRun(t, r, "R")
	if r.overlay != nil || !strings.Contains(footerLine(r), "live watch") {
		t.Errorf("replay R: %s", footerLine(r))
	}
}

// TestRunScreenCompare: = on a rerun's screen waits for it to end, then
// ends the screen for the compare screen (its footer offers = first once
// the rerun has ended); on a run that is no rerun it says so.
func TestRunScreenCompare(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{JobID: testJob, Backend: &fakeBackend{}, RerunOf: "0a0a0a0a-0000-4000-8000-000000000000"})
	pressRun(t, m, "=")
	if m.Result().Compare || !strings.Contains(footerLine(m), "once it has ended") {
		t.Errorf("= while running: %s", footerLine(m))
	}
	d := newTestModel(t, "succeeded.json", 120, 40, Config{JobID: testJob, Backend: &fakeBackend{}, RerunOf: "0a0a0a0a-0000-4000-8000-000000000000"})
	healthy(d, true)
	if !strings.Contains(footerLine(d), "= compare with the original") {
		t.Errorf("the ended rerun's footer does not offer =: %s", footerLine(d))
	}
	if strings.Contains(footerLine(m), "= compare with") {
		t.Errorf("a running rerun's footer offers =: %s", footerLine(m))
	}
	pressRun(t, d, "?")
	if !strings.Contains(plain(content(d)), "compare with the original") {
		t.Errorf("a rerun's help does not offer =")
	}
	pressRun(t, d, "esc", "=")
	if !d.Result().Compare {
		t.Errorf("= after the rerun ended: %s", footerLine(d))
	}
	n := newTestModel(t, "succeeded.json", 120, 40, Config{JobID: testJob, Backend: &fakeBackend{}})
	pressRun(t, n, "=")
	if n.Result().Compare || !strings.Contains(footerLine(n), "not a rerun") {
		t.Errorf("= on a run that is no rerun: %s", footerLine(n))
	}
}

// TestHeaderThread: the run's header names its thread and turn; at 80
// columns the turn stays when the whole does not fit.
func TestHeaderThread(t *testing.T) {
	for _, size := range []struct {
		w, h int
		want string
	}{{120, 40, "thread 51b3ab58 · turn 2"}, {80, 24, "turn 2"}} {
		m := newTestModel(t, "", size.w, size.h, Config{Store: rerunStore(t), JobID: testJob, LiveView: true})
		healthy(m, false)
		got := content(m)
		checkScreen(t, got, size.w, size.h)
		lines := strings.Split(plain(got), "\n")
		if !strings.Contains(lines[1], size.want) || !strings.Contains(lines[1], "live") {
			t.Errorf("%dx%d: header:\n%s\n%s", size.w, size.h, lines[0], lines[1])
		}
		golden(t, "thread-"+itoa(size.w)+"x"+itoa(size.h)+".txt", plain(got))
	}
}
