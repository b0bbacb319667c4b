package archive

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWatchWrites: what one live watch of a one-minute research run
// asks of an SQLite archive, as one process does it: open the file, the
// run's lookup, 26 polls of a few events each, 18 snapshots, the summary,
// close. Its CPU per watch is the store's part of the archive's cost in
// a live watch (scripts/archivecpu.sh measures the whole processes).
// go test ./archive -run XXX -bench WatchWrites -benchtime 50x
func BenchmarkWatchWrites(b *testing.B) {
	path := filepath.Join(b.TempDir(), "a.db")
	rng := rand.New(rand.NewPCG(1, 2))
	polls := make([][]byte, 26)
	for i := range polls {
		polls[i] = benchPoll(rng, i)
	}
	snaps := make([]string, 18)
	for i := range snaps {
		snaps[i] = benchWords(rng, 1500)
	}
	summary, _ := Encode(func(w io.Writer) error {
		_, err := w.Write([]byte(`{"events":131,"notes":"` + benchWords(rng, 20000) + `"}`))
		return err
	})
	ctx := context.Background()
	n := 0
	c0 := benchCPU()
	for b.Loop() {
		n++
		id := fmt.Sprintf("job-%d", n)
		st, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := st.PutRun(wctx, &Run{Service: "https://api.example", ID: id, Prompt: "research", Team: "t"}); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for i, p := range polls {
			if err := st.AppendPolls(wctx, "https://api.example", id, start, []Poll{{ReceivedAt: start.Add(time.Duration(i) * time.Second), Line: p}}); err != nil {
				b.Fatal(err)
			}
			if i < len(snaps) && i > 2 {
				_ = st.PutSnapshot(wctx, "https://api.example", id, fmt.Sprintf("snap-%d", i), snaps[i])
			}
		}
		for i := len(polls) - 3; i < len(snaps); i++ {
			_ = st.PutSnapshot(wctx, "https://api.example", id, fmt.Sprintf("snap-%d", i), snaps[i])
		}
		if err := st.SetDerived(wctx, &Run{Service: "https://api.example", ID: id, Events: 131, Complete: true, Outcome: "completed", SummaryEncoded: summary}); err != nil {
			b.Fatal(err)
		}
		cancel()
		st.Close()
	}
	b.ReportMetric(float64(benchCPU()-c0)/float64(n)/1e6, "cpu-ms/watch")
}

// benchPoll is a recording line of a poll that brought a few events.
func benchPoll(rng *rand.Rand, i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"receivedAt":"2026-01-02T03:04:%02d.123456Z","status":200,"body":{"success":true,"events":[`, i%60)
	for e := range 5 {
		if e > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"eventId":"ev-%d-%d","type":"tool_call","agent":"researcher-%d","timestamp":"2026-01-02T03:04:%02dZ","data":{"tool":"search","query":%q,"result":%q}}`,
			i, e, e%3, i%60, benchWords(rng, 40), benchWords(rng, 400))
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

func benchWords(rng *rand.Rand, n int) string {
	words := []string{"agent", "search", "result", "page", "the", "crawl", "firecrawl", "data", "price", "market", "report", "2026", "analysis", "source", "quote", "table"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func benchCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
