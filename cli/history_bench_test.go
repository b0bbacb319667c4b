//go:build linux

package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	benchBinOnce sync.Once
	benchBin     string
	benchBinErr  error
)

// builtFirewatch builds firewatch once for the benchmarks that measure it
// as a process (its peak memory is the process's).
func builtFirewatch(b *testing.B) string {
	benchBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "firewatch-bench")
		if err != nil {
			benchBinErr = err
			return
		}
		benchBin = filepath.Join(dir, "firewatch")
		cmd := exec.Command("go", "build", "-o", benchBin, ".")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			benchBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if benchBinErr != nil {
		b.Fatal(benchBinErr)
	}
	return benchBin
}

// BenchmarkHistoryJSON is history -o json over an archive of 10 000 and of
// 100 000 runs (non-ASCII prompts), run as a process: the time per run must
// not grow with the archive, and its peak memory (the process's maximum
// resident set) must not either.
//
//	go test ./cli -run '^$' -bench HistoryJSON -benchtime 3x
func BenchmarkHistoryJSON(b *testing.B) {
	bin := builtFirewatch(b)
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db := filepath.Join(b.TempDir(), "a.db")
			fillArchive(b, db, "http://x", n)
			var peak int64
			var wall time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, "history", "-o", "json", "--all-services", "--archive", db)
				cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peak = max(peak, int64(ru.Maxrss)) // kB on Linux
				}
			}
			b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N)/float64(n), "ns/run")
			b.ReportMetric(float64(peak)/1024, "peak-MB")
		})
	}
}
