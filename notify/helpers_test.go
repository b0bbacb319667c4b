package notify

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
)

// receiver is a webhook receiver that keeps what it is sent; answer, if
// set, answers the n-th request (from 1) instead of 200.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	answer func(n int, w http.ResponseWriter, r *http.Request) bool
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, b)
		n, answer := len(rc.bodies), rc.answer
		rc.mu.Unlock()
		if answer != nil && answer(n, w, r) {
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got() [][]byte {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([][]byte(nil), rc.bodies...)
}

// sent is a received body, decoded.
type sent struct {
	Text  string `json:"text"`
	Event string `json:"event"`
	ID    string `json:"id"`
	Run   *struct {
		ID      string   `json:"id"`
		Prompt  string   `json:"prompt"`
		Model   string   `json:"model"`
		Outcome *string  `json:"outcome"`
		Credits *float64 `json:"credits"`
	} `json:"run"`
	Attention *struct {
		Kind  string `json:"kind"`
		Agent string `json:"agent"`
	} `json:"attention"`
	Budget *struct {
		Percent float64 `json:"percent"`
	} `json:"budget"`
	Dropped int `json:"dropped"`
}

func decode(t *testing.T, b []byte) sent {
	t.Helper()
	var s sent
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
	return s
}

// noSleep is a Retry.Sleep that does not wait and keeps the waits.
type noSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *noSleep) sleep(ctx context.Context, d time.Duration) bool {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err() == nil
}

// lines collects Log or Say lines.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) {
	l.mu.Lock()
	l.l = append(l.l, s)
	l.mu.Unlock()
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

// watchScenario feeds the simulator's scenario to n as a live watch does,
// polling every 2 s and ticking the quiet clock in between, and returns
// the store.
func watchScenario(t *testing.T, scenario string, n *Notifier) *model.Store {
	t.Helper()
	bodies, maxCredits := attentiontest.SimPolls(t, scenario, 2*time.Second)
	s := model.NewStore()
	s.SetRequest(model.Request{Prompt: "the prompt", Model: "spark-2", MaxCredits: float64(maxCredits)})
	tk := attention.New(s, attention.Options{MaxCredits: float64(maxCredits)})
	r := n.Follow("019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", s)
	local := attentiontest.Base
	for _, b := range bodies {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		r.Saw(tk, tk.Update(d, local))
		for dt := 250 * time.Millisecond; dt < 2*time.Second; dt += 250 * time.Millisecond {
			r.Saw(tk, tk.Tick(local.Add(dt)))
		}
		local = local.Add(2 * time.Second)
	}
	return s
}

func closeNow(t *testing.T, n *Notifier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if left, dropped := n.Close(ctx); left != 0 || dropped != 0 {
		t.Fatalf("%d moments not delivered, %d dropped", left, dropped)
	}
}
