package attention

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

const runID = "11111111-1111-4111-8111-111111111111"

// A hand-made trace: agents by name, events at offsets from t0.
type trace struct {
	agents map[string]map[string]any
	events []tev
	n      int
}

type tev struct {
	at  time.Duration
	raw map[string]any
}

func newTrace() *trace {
	tr := &trace{agents: map[string]map[string]any{}}
	tr.agent("orch", "orchestrator", "")
	return tr
}

func agentID(name string) string {
	h := 0
	for _, c := range name {
		h = h*31 + int(c)
	}
	return fmt.Sprintf("aaaaaaaa-0000-4000-8000-%012x", h&0xffffffffffff)
}

func (tr *trace) agent(name, role, parent string) {
	a := map[string]any{"id": agentID(name), "role": role, "name": name}
	if parent != "" {
		a["parentId"] = agentID(parent)
	}
	tr.agents[name] = a
}

// ev adds an event of agent at offset at; kv are the payload's fields.
func (tr *trace) ev(at time.Duration, agent, typ string, kv ...any) *trace {
	tr.n++
	e := map[string]any{
		"schemaVersion": 1, "eventId": fmt.Sprintf("eeeeeeee-0000-4000-8000-%012d", tr.n), "runId": runID,
		"occurredAt": t0.Add(at).Format(time.RFC3339Nano),
		"agent":      tr.agents[agent], "type": typ,
	}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	tr.events = append(tr.events, tev{at, e})
	return tr
}

func (tr *trace) call(at, d time.Duration, agent, id, tool string, params any, result any) *trace {
	tr.ev(at, agent, "tool_call.started", "toolCallId", id, "toolName", tool, "parameters", params)
	if d >= 0 {
		tr.ev(at+d, agent, "tool_call.finished", "toolCallId", id, "toolName", tool, "result", result)
	}
	return tr
}

// upTo is the body of the events at or before at, with credits.
func (tr *trace) upTo(at time.Duration, credits float64) []byte {
	// producerSequence: each agent's events in time order (stable).
	all := slices.Clone(tr.events)
	slices.SortStableFunc(all, func(a, b tev) int { return cmp.Compare(a.at, b.at) })
	seq := map[any]int{}
	for _, e := range all {
		id := e.raw["agent"].(map[string]any)["id"]
		seq[id]++
		e.raw["producerSequence"] = seq[id]
	}
	var evs []map[string]any
	for _, e := range all {
		if e.at <= at {
			evs = append(evs, e.raw)
		}
	}
	if evs == nil {
		evs = []map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"success": true, "id": runID, "events": evs, "creditsUsed": credits})
	if err != nil {
		panic(err)
	}
	return b
}

// poll is one response: the events up to At, and the credits figure.
type poll struct {
	At      time.Duration
	Credits float64
}

// run feeds the polls into a new store and tracker (one second of local
// time between polls) and returns the tracker and every change.
func (tr *trace) run(t testing.TB, o Options, polls ...poll) (*Tracker, []Change) {
	t.Helper()
	_, r := feedPolls(t, tr, o, polls, nil)
	return r.tk, r.changes
}

// items is the tracker's items in a short form for comparing.
func items(tk *Tracker) []string {
	var out []string
	for _, it := range tk.Items() {
		out = append(out, short(it))
	}
	return out
}

func short(it *Item) string {
	name := "run"
	if it.AgentID != "" {
		name = it.AgentID[len(it.AgentID)-4:]
	}
	st := it.State()
	return fmt.Sprintf("%s %s %s..%s x%d %s [%s] %s", it.Kind, name, it.FirstAt.Sub(t0), it.LastAt.Sub(t0), it.Count, st, strings.Join(it.ToolCallIDs, ","), it.Message)
}

func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

type liveResult struct {
	tk      *Tracker
	changes []Change
}

// liveRun is run with between called after the last poll but one, with
// the local time of that poll (to tick the tracker); 200 s of local time
// pass before the last poll.
func liveRun(t testing.TB, tr *trace, polls []poll, between func(tk *Tracker, local time.Time) []Change) (*model.Store, liveResult) {
	t.Helper()
	return feedPolls(t, tr, Options{}, polls, between)
}

func feedPolls(t testing.TB, tr *trace, o Options, polls []poll, between func(tk *Tracker, local time.Time) []Change) (*model.Store, liveResult) {
	t.Helper()
	s := model.NewStore()
	tk := New(s, o)
	var all []Change
	local := t0
	for i, p := range polls {
		d, err := s.Ingest(tr.upTo(p.At, p.Credits))
		if err != nil {
			t.Fatal(err)
		}
		local = local.Add(time.Second)
		all = append(all, tk.Update(d, local)...)
		if between != nil && i == len(polls)-2 {
			all = append(all, between(tk, local)...)
			local = local.Add(200 * time.Second)
		}
	}
	return s, liveResult{tk, all}
}
