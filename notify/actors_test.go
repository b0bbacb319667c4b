package notify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// keepMoments is a sink that keeps the moments whole.
type keepMoments struct {
	mu sync.Mutex
	ms []*Moment
}

func (k *keepMoments) name() string { return "keep" }
func (k *keepMoments) deliver(_ context.Context, m *Moment) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ms = append(k.ms, m)
	return nil
}

// endOf follows a cancelled run whose store knows acts to its end and
// returns the end's moment.
func endOf(t *testing.T, acts model.Actors) *Moment {
	t.Helper()
	const run = "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7"
	ev := func(id string, seq int, typ, extra string) string {
		return fmt.Sprintf(`{"schemaVersion":1,"eventId":"0190f3a4-0000-7000-8000-00000000000%s","runId":"%s","occurredAt":"2026-03-14T09:00:%02d.000Z","producerSequence":%d,"agent":{"id":"0190f3a4-0000-7000-8000-000000000001","role":"orchestrator","name":"orchestrator"},"type":"%s"%s}`,
			id, run, seq, seq, typ, extra)
	}
	body := func(evs ...string) []byte {
		return []byte(`{"success":true,"id":"` + run + `","events":[` + strings.Join(evs, ",") + `],"creditsUsed":3}`)
	}
	started := ev("a", 1, "run.started", "")
	bodies := [][]byte{body(started), body(started, ev("b", 2, "run.cancel_requested", `,"reason":"user"`),
		ev("c", 3, "run.finished", `,"outcome":"cancelled","error":{"code":"cancelled","source":"agent","retryable":false,"message":"cancelled"}`))}
	n, err := New(Config{On: DefaultOn()})
	if err != nil {
		t.Fatal(err)
	}
	k := &keepMoments{}
	w := &worker{s: k, wake: make(chan struct{}, 1)}
	n.sinks = append(n.sinks, w)
	n.wg.Add(1)
	go n.run(w)
	s := model.NewStore()
	s.SetActors(acts)
	tk := attention.New(s, attention.Options{})
	r := n.Follow(run, s)
	local := attentiontest.Base
	for _, b := range bodies {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		r.Saw(tk, tk.Update(d, local))
		local = local.Add(2 * time.Second)
	}
	closeNow(t, n)
	for _, m := range k.ms {
		if m.Event == EventFinished || m.Event == EventFailed {
			return m
		}
	}
	t.Fatalf("no end among %d moments", len(k.ms))
	return nil
}

// TestActorsTold: who started and cancelled a run through a hub is in the
// end's text, its webhook body and the command's variables; a cancel
// firewatch did not see is said to be unknown, with null and empty
// values, never a name.
func TestActorsTold(t *testing.T) {
	m := endOf(t, model.Actors{StartedBy: "bob", CancelledBy: "alice"})
	if m.Job.Outcome != "cancelled" {
		t.Fatalf("outcome %q", m.Job.Outcome)
	}
	if !strings.HasPrefix(m.Text, "run 5eb381f7 was cancelled by alice through the hub") || !strings.HasSuffix(m.Text, " (started by bob through the hub)") {
		t.Errorf("text %q", m.Text)
	}
	var body struct {
		Run struct {
			StartedBy   *string `json:"startedBy"`
			CancelledBy *string `json:"cancelledBy"`
		} `json:"run"`
	}
	if err := json.Unmarshal(Body(m, text.NewSecrets()), &body); err != nil {
		t.Fatal(err)
	}
	if body.Run.StartedBy == nil || *body.Run.StartedBy != "bob" || body.Run.CancelledBy == nil || *body.Run.CancelledBy != "alice" {
		t.Errorf("body %s", Body(m, text.NewSecrets()))
	}
	env := Env(nil, m)
	if !slices.Contains(env, "FIREWATCH_STARTED_BY=bob") || !slices.Contains(env, "FIREWATCH_CANCELLED_BY=alice") {
		t.Errorf("env %q", env)
	}

	m = endOf(t, model.Actors{})
	if !strings.HasPrefix(m.Text, "run 5eb381f7 was cancelled (by the service or a client firewatch did not see)") || strings.Contains(m.Text, "started by") {
		t.Errorf("unknown: text %q", m.Text)
	}
	b := string(Body(m, text.NewSecrets()))
	if !strings.Contains(b, `"startedBy":null`) || !strings.Contains(b, `"cancelledBy":null`) {
		t.Errorf("unknown: body %s", b)
	}
	env = Env(nil, m)
	if !slices.Contains(env, "FIREWATCH_STARTED_BY=") || !slices.Contains(env, "FIREWATCH_CANCELLED_BY=") {
		t.Errorf("unknown: env %q", env)
	}
}

// TestActorsToldWithTheHub: a record that names its hub ("alice via hub
// prod", an mcp client's "carol (mcp:claude-code) via hub prod") is said
// with the hub's name in the text, and split into the person and the
// hub's name in the webhook body and the command's variables.
func TestActorsToldWithTheHub(t *testing.T) {
	m := endOf(t, model.Actors{StartedBy: model.ActorVia("carol (mcp:claude-code)", "prod"), CancelledBy: model.ActorVia("alice", "prod")})
	if !strings.HasPrefix(m.Text, "run 5eb381f7 was cancelled by alice via hub prod") || !strings.HasSuffix(m.Text, " (started by carol (mcp:claude-code) via hub prod)") {
		t.Errorf("text %q", m.Text)
	}
	b := string(Body(m, text.NewSecrets()))
	for _, want := range []string{`"startedBy":"carol (mcp:claude-code)"`, `"startedVia":"prod"`, `"cancelledBy":"alice"`, `"cancelledVia":"prod"`} {
		if !strings.Contains(b, want) {
			t.Errorf("body lacks %s: %s", want, b)
		}
	}
	env := Env(nil, m)
	for _, want := range []string{"FIREWATCH_STARTED_BY=carol (mcp:claude-code)", "FIREWATCH_STARTED_VIA=prod", "FIREWATCH_CANCELLED_BY=alice", "FIREWATCH_CANCELLED_VIA=prod"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s: %q", want, env)
		}
	}
	// A record from before hubs had names: no hub, null and empty.
	m = endOf(t, model.Actors{CancelledBy: "alice"})
	if b := string(Body(m, text.NewSecrets())); !strings.Contains(b, `"cancelledBy":"alice"`) || !strings.Contains(b, `"cancelledVia":null`) {
		t.Errorf("old record: body %s", b)
	}
	if env := Env(nil, m); !slices.Contains(env, "FIREWATCH_CANCELLED_VIA=") {
		t.Errorf("old record: env %q", env)
	}
}
