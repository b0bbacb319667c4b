package cli

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// BenchmarkWatchArchiving: a whole watch of a finished research run
// (plain output), with archiving off and on; the ratio of the two is the
// archive's cost in a live watch (the simulator's own CPU is in both).
// go test ./cli -run XXX -bench WatchArchiving -benchtime 20x
func BenchmarkWatchArchiving(b *testing.B) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, Speed: 50, RateLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	if err := srv.WaitFinished(context.Background(), srv.Jobs[0].ID); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			dsn := "off"
			if mode == "on" {
				dsn = filepath.Join(b.TempDir(), "a.db")
			}
			c0 := processCPU()
			for b.Loop() {
				code := Execute(context.Background(), []string{"watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key,
					"-o", "plain", "--interval", "100ms", "--archive", dsn}, nil, discard{}, discard{})
				if code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(b.N)/1e6, "cpu-ms/watch")
		})
	}
}

// processCPU is the process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLiveWatchArchiving: a live watch of a research run from its
// start (about 15 s at speed 4, polled every 500 ms: the polls of a
// one-minute run at the default 2 s), archiving off and on.
// go test ./cli -run XXX -bench LiveWatchArchiving -benchtime 2x
func BenchmarkLiveWatchArchiving(b *testing.B) {
	for _, mode := range []string{"off", "record", "on"} {
		b.Run(mode, func(b *testing.B) {
			dsn := "off"
			extra := []string{}
			switch mode {
			case "on":
				dsn = filepath.Join(b.TempDir(), "a.db")
			case "record": // the recorder alone, which archiving uses
				extra = []string{"--record", filepath.Join(b.TempDir(), "rec.ndjson")}
			}
			var cpu time.Duration
			for b.Loop() {
				srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, Speed: 4, RateLimit: -1})
				if err != nil {
					b.Fatal(err)
				}
				c0 := processCPU()
				code := Execute(context.Background(), append([]string{"watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key,
					"-o", "plain", "--interval", "500ms", "--archive", dsn}, extra...), nil, discard{}, discard{})
				cpu += processCPU() - c0
				srv.Close()
				if code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/watch")
		})
	}
}
