package notify

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// TestScenarioPosts: a receiver gets one POST per moment of each scenario
// of the simulator, each moment once: the end (failed for a run that
// failed or hit its credit limit), the first item of each attention kind
// and the budget share; the text says it in a line.
func TestScenarioPosts(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		want     []string // event[:kind or share], in order
		text     string   // one of the texts
	}{
		{sim.ScenarioResearch, []string{"finished"}, "run 5eb381f7 succeeded: "},
		{sim.ScenarioFailure, []string{"failed"}, "run 5eb381f7 failed"},
		{sim.ScenarioStall, []string{"attention:stall", "finished"}, "run 5eb381f7 stalled: docs-analyst: no event for "},
		{sim.ScenarioLoop, []string{"attention:loop", "attention:failing-streak", "finished"}, "run 5eb381f7 is looping: pricing-researcher: mcp__tools__search called 3 times with the same parameters"},
		{sim.ScenarioBurn, []string{"attention:budget", "budget:80", "failed"}, "run 5eb381f7 used 80% of its cap: "},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t)
			on := DefaultOn()
			on.Budgets = []float64{0.8}
			n, err := New(Config{On: on, URL: rc.URL, Retry: retryNoWait()})
			if err != nil {
				t.Fatal(err)
			}
			s := watchScenario(t, tc.scenario, n)
			closeNow(t, n)
			var got, texts []string
			ids := map[string]bool{}
			for _, b := range rc.got() {
				m := decode(t, b)
				k := m.Event
				switch {
				case m.Attention != nil:
					k += ":" + m.Attention.Kind
				case m.Budget != nil:
					k += fmt.Sprintf(":%g", m.Budget.Percent)
				}
				got = append(got, k)
				texts = append(texts, m.Text)
				if ids[m.ID] {
					t.Errorf("moment %s sent twice", m.ID)
				}
				ids[m.ID] = true
				if m.Run == nil || m.Run.ID != "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7" || m.Run.Prompt != "the prompt" || m.Run.Model != "spark-2" {
					t.Errorf("run fields: %s", b)
				}
				if (m.Event == "finished" || m.Event == "failed") && (m.Run.Outcome == nil || *m.Run.Outcome != string(s.Run().Outcome) || m.Run.Credits == nil) {
					t.Errorf("the end without its outcome or credits: %s", b)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("moments %q, want %q\n%s", got, tc.want, strings.Join(texts, "\n"))
			}
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, tc.text) }) {
				t.Errorf("no text starting %q in\n%s", tc.text, strings.Join(texts, "\n"))
			}
		})
	}
}

// TestEndText: the end says the outcome, the credits and the time, in the
// one duration style.
func TestEndText(t *testing.T) {
	c := 288.0
	j := Job{Kind: KindRun, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", Outcome: "succeeded", Credits: &c, Duration: 4*time.Minute + 12*time.Second, HasDuration: true}
	if got := endText(&j, ""); got != "run 5eb381f7 succeeded: 288 credits in 4m12s" {
		t.Errorf("%q", got)
	}
	j.Outcome, j.Credits = "failed", nil
	if got := endText(&j, "The run exceeded the maximum duration"); got != "run 5eb381f7 failed in 4m12s — The run exceeded the maximum duration" {
		t.Errorf("%q", got)
	}
	a := &Attention{Kind: attention.KindStall, Message: "the whole run quiet for 2m00s"}
	if got := attentionText(&j, a); got != "run 5eb381f7 stalled: nothing new for 2m00s" {
		t.Errorf("%q", got)
	}
}

func retryNoWait() (r poller.Retry) {
	s := &noSleep{}
	r.Sleep = s.sleep
	return r
}

// TestRetried: a 500 is retried and the moment arrives once; the retry
// carries the same id; the wait is said once, every wait is logged; a 400
// is not retried.
func TestRetried(t *testing.T) {
	rc := newReceiver(t)
	rc.answer = func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n == 1 || n == 2 {
			w.WriteHeader(http.StatusInternalServerError)
			return true
		}
		if n == 4 {
			w.WriteHeader(http.StatusBadRequest)
			return true
		}
		return false
	}
	sl := &noSleep{}
	var said, logged lines
	n, err := New(Config{On: DefaultOn(), URL: rc.URL, Retry: poller.Retry{Sleep: sl.sleep}, Say: said.add, Log: logged.add})
	if err != nil {
		t.Fatal(err)
	}
	c := 12.0
	n.send(&Moment{Key: "run:x:finished", Event: EventFinished, Text: "run x succeeded", Job: Job{Kind: KindRun, ID: "x", Credits: &c}})
	n.send(&Moment{Key: "run:y:finished", Event: EventFinished, Text: "run y succeeded", Job: Job{Kind: KindRun, ID: "y"}})
	closeNow(t, n)
	got := rc.got()
	if len(got) != 4 {
		t.Fatalf("%d requests, want 4 (500, 500, 200; then a 400 not retried)", len(got))
	}
	for i, want := range []string{"run:x:finished", "run:x:finished", "run:x:finished", "run:y:finished"} {
		if id := decode(t, got[i]).ID; id != want {
			t.Errorf("request %d is %s, want %s", i+1, id, want)
		}
	}
	if fmt.Sprint(sl.waits) != "[1s 2s]" {
		t.Errorf("waits %v, want the one policy's 1s then 2s", sl.waits)
	}
	s := said.all()
	if len(s) != 2 || !strings.Contains(s[0], "server error 500, retrying in 1.0s (1/2)") || !strings.Contains(s[1], "refused it (400)") {
		t.Errorf("said %q: want the first wait and the 400, once each", s)
	}
	if l := strings.Join(logged.all(), "\n"); strings.Count(l, "retrying in") != 2 {
		t.Errorf("the log has not every wait:\n%s", l)
	}
}

// TestRedirectNotFollowed: a receiver that redirects to another host is
// not followed there (that host gets nothing); one that redirects on the
// same host with a 307 is.
func TestRedirectNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) // another host name, same machine
	rc := newReceiver(t)
	rc.answer = func(n int, w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, otherURL+"/hook", http.StatusTemporaryRedirect)
			return true
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusPermanentRedirect)
			return true
		}
		return false
	}
	var said lines
	for _, path := range []string{"/away", "/moved"} {
		n, err := New(Config{On: DefaultOn(), URL: rc.URL + path, Retry: retryNoWait(), Say: said.add})
		if err != nil {
			t.Fatal(err)
		}
		n.send(&Moment{Key: "k" + path, Event: EventFinished, Text: "run x succeeded", Job: Job{Kind: KindRun, ID: "x"}})
		closeNow(t, n)
	}
	if elsewhere.Load() != 0 {
		t.Error("the redirect to another host was followed")
	}
	if got := len(rc.got()); got != 3 {
		t.Errorf("%d requests to the receiver, want 3 (/away, /moved, /here)", got)
	}
	if s := said.all(); len(s) != 1 || !strings.Contains(s[0], "a redirect to localhost:") || !strings.Contains(s[0], "not followed") {
		t.Errorf("said %q", s)
	}
}

// TestHangingReceiver: a receiver that never answers does not slow the
// watch: on a fake clock, every Saw returns at the very instant it was
// called, the moments after the hanging one are decided as they come, and
// the hanging POST is given up on at the timeout, not retried (it may
// have arrived).
func TestHangingReceiver(t *testing.T) {
	bodies, maxCredits := attentiontest.SimPolls(t, sim.ScenarioLoop, 2*time.Second)
	synctest.Test(t, func(t *testing.T) {
		var posts atomic.Int32
		hang := roundTrip(func(r *http.Request) (*http.Response, error) {
			posts.Add(1)
			<-r.Context().Done() // never answers
			return nil, r.Context().Err()
		})
		var logged lines
		n, err := New(Config{On: DefaultOn(), URL: "https://hooks.example.com/x", Transport: hang, Retry: poller.Retry{Sleep: (&noSleep{}).sleep}, Log: logged.add})
		if err != nil {
			t.Fatal(err)
		}
		s := model.NewStore()
		tk := attention.New(s, attention.Options{MaxCredits: float64(maxCredits)})
		r := n.Follow("019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", s)
		for _, b := range bodies {
			d, err := s.Ingest(b)
			if err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			r.Saw(tk, tk.Update(d, before))
			if after := time.Now(); !after.Equal(before) {
				t.Fatalf("Saw took %s of the watch's time", after.Sub(before))
			}
			time.Sleep(2 * time.Second) // the next poll
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*WebhookTimeout)
		defer cancel()
		n.Close(ctx)
		// Three moments (loop, failing streak, end), each given up on
		// after one POST and its 10 s.
		if posts.Load() != 3 {
			t.Errorf("%d POSTs, want 3: a timeout is not retried", posts.Load())
		}
		if l := strings.Join(logged.all(), "\n"); strings.Count(l, "no answer within 10.0s") != 3 {
			t.Errorf("log:\n%s", l)
		}
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNoSecretInBody: the API key and the live-view links never reach a
// body, whatever the service put them in (the prompt, an agent's name, an
// error message), in whatever form.
func TestNoSecretInBody(t *testing.T) {
	const key = "fc-0123456789abcdef0123"
	const live = "https://liveview.example.com/s/abcdef"
	rc := newReceiver(t)
	sec := text.NewSecrets(key)
	n, err := New(Config{On: On{Finished: true, Attention: true}, URL: rc.URL, Secrets: sec, Retry: retryNoWait()})
	if err != nil {
		t.Fatal(err)
	}
	s := model.NewStore()
	s.SetSecrets(sec)
	s.SetRequest(model.Request{Prompt: "use " + key + " and watch " + live, Model: "spark-2"})
	r := n.Follow("019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", s)
	id := "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7"
	body := `{"success":true,"id":"` + id + `","creditsUsed":3,"activeBrowserSessions":[{"id":"b1","liveViewUrl":"` + live + `"}],"events":[` +
		`{"schemaVersion":1,"eventId":"e1","runId":"` + id + `","type":"run.started","occurredAt":"2026-01-01T00:00:00Z","producerSequence":1,"agent":{"id":"a1","role":"orchestrator","name":"agent f\u001b[0mc-0123456789abcdef0123"}}]}`
	d, err := s.Ingest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	tk := attention.New(s, attention.Options{})
	r.Saw(tk, tk.Update(d, time.Now()))
	fin := `{"success":true,"id":"` + id + `","creditsUsed":3,"activeBrowserSessions":[{"id":"b1","liveViewUrl":"` + live + `"}],"events":[` +
		`{"schemaVersion":1,"eventId":"e2","runId":"` + id + `","type":"run.finished","occurredAt":"2026-01-01T00:01:00Z","producerSequence":2,"agent":{"id":"a1","role":"orchestrator"},"outcome":"failed","error":{"code":"internal","message":"key ` + key + ` at ` + live + `"}}]}`
	d, err = s.Ingest([]byte(fin))
	if err != nil {
		t.Fatal(err)
	}
	r.Saw(tk, tk.Update(d, time.Now()))
	closeNow(t, n)
	got := rc.got()
	if len(got) != 1 {
		t.Fatalf("%d bodies, want the failure", len(got))
	}
	for _, b := range got {
		if strings.Contains(string(b), key) || strings.Contains(string(b), "0123456789abcdef0123") || strings.Contains(string(b), live) {
			t.Errorf("a secret in the body: %s", b)
		}
		if !strings.Contains(string(b), "[redacted]") || !strings.Contains(string(b), "[live view]") {
			t.Errorf("not redacted where expected: %s", b)
		}
	}
}
