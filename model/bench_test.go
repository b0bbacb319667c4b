package model

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// The benchmarks run on generated traces like the service's: several agents
// interleaved, every event kind, ~500 bytes an event on average (tool
// results carry markdown), the body ordered globally by producerSequence.
//
//	go test -run '^$' -bench . -benchmem -count 6 ./model
//
// BenchmarkDecode compares the first decode with a plain encoding/json
// watcher on the same body; BenchmarkRepoll is a 20 000-event body polled
// again with 10 new events; BenchmarkMemory is the heap kept per JSON byte.

var benchSizes = []int{100, 10_000, 20_000, 100_000}

var (
	benchMu     sync.Mutex
	benchBodies = map[int][]byte{}
)

// benchBody is the body of a generated trace of n events (cached).
func benchBody(n int) []byte {
	benchMu.Lock()
	defer benchMu.Unlock()
	if b, ok := benchBodies[n]; ok {
		return b
	}
	tr := genTrace(genOpts{events: n, seed: uint64(n), maxAgent: 8})
	b := render(tr.events, globalSeq, nil, 250)
	benchBodies[n] = b
	return b
}

// BenchmarkDecode compares, on the same body and back to back (so that a
// busy machine slows both alike), the first decode and merge of a trace
// (firewatch) with a plain encoding/json watcher's full decode of it into
// equivalent structs (encoding-json), which such a watcher repeats on every
// poll.
func BenchmarkDecode(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("events=%d/firewatch", n), func(b *testing.B) {
			body := benchBody(n)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				s := NewStore()
				if _, err := s.Ingest(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("events=%d/encoding-json", n), func(b *testing.B) {
			body := benchBody(n)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				var t plainTrace
				if err := json.Unmarshal(body, &t); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A plain encoding/json watcher: the same fields, decoded in full on every
// poll, tool parameters and results kept as raw JSON.
type plainTrace struct {
	Success               bool         `json:"success"`
	ID                    string       `json:"id"`
	Events                []plainEvent `json:"events"`
	CreditsUsed           float64      `json:"creditsUsed"`
	ActiveBrowserSessions []plainLive  `json:"activeBrowserSessions"`
	Error                 string       `json:"error"`
}

type plainLive struct {
	ID          string `json:"id"`
	LiveViewURL string `json:"liveViewUrl"`
	Viewport    struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"viewport"`
}

type plainEvent struct {
	SchemaVersion    int       `json:"schemaVersion"`
	EventID          string    `json:"eventId"`
	RunID            string    `json:"runId"`
	OccurredAt       time.Time `json:"occurredAt"`
	ProducerSequence int64     `json:"producerSequence"`
	Agent            struct {
		ID       string `json:"id"`
		Role     string `json:"role"`
		Name     string `json:"name"`
		ParentID string `json:"parentId"`
	} `json:"agent"`
	Type       string          `json:"type"`
	Reason     string          `json:"reason"`
	Outcome    string          `json:"outcome"`
	Error      *plainError     `json:"error"`
	DurationMs int64           `json:"durationMs"`
	SessionID  string          `json:"sessionId"`
	Phase      string          `json:"phase"`
	Message    string          `json:"message"`
	Text       string          `json:"text"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Parameters json.RawMessage `json:"parameters"`
	Result     json.RawMessage `json:"result"`
	Artifact   *struct {
		Kind             string   `json:"kind"`
		ArtifactID       string   `json:"artifactId"`
		Path             string   `json:"path"`
		SnapshotID       string   `json:"snapshotId"`
		Change           string   `json:"change"`
		ChangedFields    []string `json:"changedFields"`
		ItemCount        int      `json:"itemCount"`
		SourceToolCallID string   `json:"sourceToolCallId"`
	} `json:"artifact"`
}

type plainError struct {
	Code      string `json:"code"`
	Source    string `json:"source"`
	Retryable bool   `json:"retryable"`
	Message   string `json:"message"`
}

// BenchmarkRepoll: a store holds a 20 000-event trace (~10 MB); each
// iteration decodes and merges the next poll, the same body with 10 new
// events, which global producerSequence order puts in the middle as well
// as at the end. Only Ingest is timed.
func BenchmarkRepoll(b *testing.B) {
	const base, step, chain = 20_000, 10, 100
	tr := genTrace(genOpts{events: base + step*chain + 50, seed: 20_000, maxAgent: 8}) // the generator may fall a few short of its target
	all := slices.Clone(tr.events)
	slices.SortStableFunc(all, func(x, y genEvent) int {
		if x.seq != y.seq {
			return int(x.seq - y.seq)
		}
		return x.agent - y.agent
	})
	// poll k holds the first base+step*k events generated, in global
	// producerSequence order.
	poll := func(k int) []byte {
		var keep []genEvent
		for _, e := range all {
			if e.gen < base+step*k {
				keep = append(keep, e)
			}
		}
		return render(keep, -1, nil, 250)
	}
	first := poll(0)
	b.SetBytes(int64(len(first)))
	b.ReportAllocs()
	var s *Store
	k := chain
	for b.Loop() {
		if k == chain {
			b.StopTimer()
			s = NewStore()
			if _, err := s.Ingest(first); err != nil {
				b.Fatal(err)
			}
			k = 0
			b.StartTimer()
		}
		k++
		b.StopTimer()
		next := poll(k)
		b.StartTimer()
		d, err := s.Ingest(next)
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Events) != step {
			b.Fatalf("poll %d brought %d new events, want %d", k, len(d.Events), step)
		}
	}
}

// BenchmarkMemory reports the heap a store keeps per byte of the JSON it
// was given (raw bytes kept for export included): heap-bytes/json-byte.
func BenchmarkMemory(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			body := benchBody(n)
			var ratio, perEvent float64
			for b.Loop() {
				ratio, perEvent = heapPerJSONByte(b, body)
			}
			b.ReportMetric(ratio, "heap-bytes/json-byte")
			b.ReportMetric(perEvent, "heap-bytes/event")
		})
	}
}

// heapPerJSONByte is the live heap a store holding body keeps, divided by
// the body's size, and per event.
func heapPerJSONByte(tb testing.TB, body []byte) (ratio, perEvent float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewStore()
	if _, err := s.Ingest(body); err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	runtime.KeepAlive(body)
	kept := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	return kept / float64(len(body)), kept / float64(s.Len())
}

// The heap a store keeps for a trace, raw bytes for export included, is at
// most three times the JSON it was given. Heap bytes after a full GC are
// deterministic enough to assert (time is not: see the benchmarks).
func TestMemoryPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes a 10 000-event trace")
	}
	body := benchBody(10_000)
	ratio, perEvent := heapPerJSONByte(t, body)
	t.Logf("%d events, %d bytes of JSON (%d a event): the store keeps %.2f bytes per JSON byte, %.0f bytes per event",
		10_000, len(body), len(body)/10_000, ratio, perEvent)
	if ratio > 3 {
		t.Errorf("the store keeps %.2f× the JSON it was given; the budget is 3×", ratio)
	}
}
