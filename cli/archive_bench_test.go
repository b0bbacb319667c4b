package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// BenchmarkArchivePass: a pass over a team of 1 000 runs (the simulator's
// history), then a second pass. It reports the trace requests of each
// (one per run not held, then none) and all requests per run.
// go test ./cli -run XXX -bench ArchivePass -benchtime 1x
func BenchmarkArchivePass(b *testing.B) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, History: 999, Speed: 50, RateLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	b.Setenv("FIRECRAWL_API_URL", srv.URL)
	b.Setenv("FIRECRAWL_API_KEY", srv.Key)
	if err := srv.WaitFinished(context.Background(), srv.Jobs[0].ID); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.Setenv("FIREWATCH_ARCHIVE", filepath.Join(b.TempDir(), "a.db"))
		s0 := srv.Stats()
		if code := Execute(context.Background(), []string{"archive", "--once"}, nil, discard{}, discard{}); code != 0 {
			b.Fatalf("first pass: exit %d", code)
		}
		s1 := srv.Stats()
		if code := Execute(context.Background(), []string{"archive", "--once"}, nil, discard{}, discard{}); code != 0 {
			b.Fatalf("second pass: exit %d", code)
		}
		s2 := srv.Stats()
		b.ReportMetric(float64(s1.ByRoute["GET trace"]-s0.ByRoute["GET trace"]), "traces-pass1")
		b.ReportMetric(float64(s2.ByRoute["GET trace"]-s1.ByRoute["GET trace"]), "traces-pass2")
		b.ReportMetric(float64(total(s1.ByRoute)-total(s0.ByRoute))/1000, "requests/run-pass1")
		b.ReportMetric(float64(total(s2.ByRoute)-total(s1.ByRoute)), "requests-pass2")
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
