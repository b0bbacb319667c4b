package ui

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// Benchmarks at the sizes the UI must stay quick at: the simulator's "large" scenario
// (12 agents, scrape calls, reasoning, artifact updates, sessions) at
// 1 000 and 100 000 events, its whole trace body built from the script
// (no waiting for the pacing).
//
//	go test ./ui -run '^$' -bench . -benchmem -count 6
//
// View and a key cost the same at both sizes: the panes render only their
// visible rows from indexes kept up to date by the deltas.

var (
	bodyMu sync.Mutex
	bodies = map[int][]byte{}
)

// largeBody is the whole trace response of a finished "large" run of n
// events.
func largeBody(tb testing.TB, n int) []byte {
	tb.Helper()
	bodyMu.Lock()
	defer bodyMu.Unlock()
	if b := bodies[n]; b != nil {
		return b
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: n, Seed: 5, RateLimit: -1,
		Now: func() time.Time { return fixtureBase }})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	evs, credits := s.Script(s.Jobs[0].ID)
	var b bytes.Buffer
	b.WriteString(`{"success":true,"id":"` + s.Jobs[0].ID + `","creditsUsed":` + strconv.Itoa(credits) + `,"events":[`)
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.JSON)
	}
	b.WriteString("]}")
	bodies[n] = b.Bytes()
	return bodies[n]
}

func largeModel(tb testing.TB, n int) *Model {
	tb.Helper()
	s := model.NewStore()
	if _, err := s.Ingest(largeBody(tb, n)); err != nil {
		tb.Fatal(err)
	}
	m := New(Config{Store: s})
	now := latest(s).Add(time.Second)
	m.SetClock(func() time.Time { return now }, time.UTC)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	content(m)
	return m
}

var sizes = []int{1_000, 100_000}

// benchKeys measures Update and View for one key press, keys pressed in
// turn, on the large model at each size after setup (nil: none).
func benchKeys(b *testing.B, setup func(m *Model), keys ...string) {
	msgs := make([]tea.KeyPressMsg, len(keys))
	for i, k := range keys {
		msgs[i] = keyMsg(k)
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			m := largeModel(b, n)
			if setup != nil {
				setup(m)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				m.Update(msgs[i%len(msgs)])
				_ = m.View()
			}
		})
	}
}

// BenchmarkView renders the whole screen from scratch (every pane's cache
// dropped) at each size.
func BenchmarkView(b *testing.B) {
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			m := largeModel(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				m.markAll()
				_ = m.View()
			}
		})
	}
}

// BenchmarkKey is Update and View for one key press in the timeline:
// moving the selection up and down in the middle of the run.
func BenchmarkKey(b *testing.B) {
	benchKeys(b, func(m *Model) {
		press(m, "g")
		for range 200 {
			press(m, "j")
		}
	}, "j", "k")
}

// BenchmarkKeyPageAndEnds covers the keys that jump far: pgdn, G, g.
func BenchmarkKeyPageAndEnds(b *testing.B) {
	benchKeys(b, nil, "pgdown", "G", "g", "pgdown")
}

// BenchmarkAgentScope moves the selection in the agents pane: every key
// re-scopes the timeline, the tool calls and the artifacts to the selected
// agent's subtree.
func BenchmarkAgentScope(b *testing.B) {
	benchKeys(b, func(m *Model) {
		m.setFocus(paneAgents)
		press(m, "j")
	}, "j", "k")
}

// BenchmarkScopedTimelineKey moves in the timeline while it shows one
// agent's subtree and a filter: the union of per-agent lists.
func BenchmarkScopedTimelineKey(b *testing.B) {
	benchKeys(b, func(m *Model) {
		m.setFocus(paneAgents)
		press(m, "j")
		m.setFocus(paneTimeline)
		press(m, "/")
		typeText(m, "scrape")
		press(m, "enter", "g", "pgdown")
	}, "j", "k")
}

// BenchmarkPoll merges a poll of 10 new events into a large run and
// renders: the cost of following a long run.
func BenchmarkPoll(b *testing.B) { benchPoll(b, nil) }

// BenchmarkMemory reports the heap the store and the UI keep for a run,
// after a GC, as a multiple of the trace's JSON size (the budget is 4x).
func BenchmarkMemory(b *testing.B) {
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			body := largeBody(b, n)
			var ratio float64
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				m := largeModel(b, n)
				press(m, "/")
				typeText(m, "scrape")
				press(m, "enter", "esc")
				m.setFocus(paneAgents)
				press(m, "j", "j")
				runtime.GC()
				runtime.ReadMemStats(&after)
				ratio = float64(after.HeapAlloc-before.HeapAlloc) / float64(len(body))
				runtime.KeepAlive(m)
			}
			b.ReportMetric(ratio, "heap/json")
			b.ReportMetric(float64(len(body))/float64(n), "json-bytes/event")
		})
	}
}

// benchPoll measures merging a poll of the last 10 events into the large
// run at each size and rendering, the UI set up by setup (nil: none) while
// the timer is stopped.
func benchPoll(b *testing.B, setup func(m *Model)) {
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			full := model.NewStore()
			if _, err := full.Ingest(largeBody(b, n)); err != nil {
				b.Fatal(err)
			}
			evs := full.Timeline()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				s := model.NewStore()
				s.Merge(&model.Poll{Events: evs[:len(evs)-10]})
				m := New(Config{Store: s})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				if setup != nil {
					setup(m)
				}
				content(m)
				b.StartTimer()
				m.Update(updateMsg{pollOf(evs[len(evs)-10:])})
				_ = m.View()
			}
		})
	}
}

// pollOf is an update that brings evs.
func pollOf(evs []*model.Event) poller.Update {
	return poller.Update{Poll: &model.Poll{Events: evs}}
}

// BenchmarkWaterfallKey moves the selection in the waterfall (open over
// the panes): Update and View for one key.
func BenchmarkWaterfallKey(b *testing.B) {
	benchKeys(b, func(m *Model) {
		press(m, "w", "pgdown")
	}, "j", "k")
}

// BenchmarkAgentDetailKey moves in an agent's details, on the tab of its
// events (the longest list).
func BenchmarkAgentDetailKey(b *testing.B) {
	benchKeys(b, func(m *Model) {
		m.setFocus(paneAgents)
		press(m, "j", "enter", "tab", "tab", "tab", "pgdown")
	}, "j", "k")
}

// BenchmarkWaterfallPoll merges a poll of 10 new events with the
// waterfall open: its rows are rebuilt once per merge, never per frame.
func BenchmarkWaterfallPoll(b *testing.B) {
	benchPoll(b, func(m *Model) { press(m, "w") })
}
