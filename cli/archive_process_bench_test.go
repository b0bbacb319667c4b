//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// builtFirewatch builds firewatch for a benchmark that measures it as a
// process (its peak memory is the process's).
func builtFirewatch(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "firewatch")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runPeak runs firewatch with args, its output thrown away, and returns how
// long it took and its peak memory (maximum resident set, in MB of 10^6
// bytes).
func runPeak(b *testing.B, bin string, args ...string) (time.Duration, float64) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	wall := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return wall, float64(ru.Maxrss) * 1024 / 1e6 // KiB on Linux
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
			var peak float64
			var wall time.Duration
			for b.Loop() {
				w, p := runPeak(b, bin, "history", "-o", "json", "--all-services", "--archive", db)
				wall, peak = wall+w, max(peak, p)
			}
			b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N)/float64(n), "ns/run")
			b.ReportMetric(peak, "peak-MB")
		})
	}
}

// BenchmarkImportLongLine is archive import of a recording whose one poll
// is a line of about 220 MB (2 000 events of 110 KB of text, which deflate
// to about 90 MB), run as a process: its peak memory against the line's
// size.
//
//	go test ./cli -run '^$' -bench ImportLongLine -benchtime 1x
func BenchmarkImportLongLine(b *testing.B) {
	bin := builtFirewatch(b)
	dir := b.TempDir()
	rec := filepath.Join(dir, "long.ndjson")
	f, err := os.Create(rec)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	fmt.Fprintf(w, `{"firewatch":"recording","version":2,"jobId":"%s","baseUrl":"http://x","startedAt":"2026-11-25T20:50:30Z"}`+"\n", id)
	fmt.Fprintf(w, `{"receivedAt":"2026-11-25T20:50:31Z","trace":{"id":"%s","events":[`, id)
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 2000)
	for i := range words {
		word := make([]byte, 3+r.IntN(7))
		for j := range word {
			word[j] = 'a' + byte(r.IntN(26))
		}
		words[i] = string(word)
	}
	for i := range 2000 {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"eventId":"e%d","type":"reasoning.summary","producerSequence":%d,"agentId":"a","ts":"2026-11-25T20:50:31Z","text":"`, i, i)
		for range 16000 {
			w.WriteString(words[r.IntN(len(words))])
			w.WriteByte(' ')
		}
		w.WriteString(`"}`)
	}
	w.WriteString("]}}\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(rec)
	var peak float64
	var wall time.Duration
	for b.Loop() {
		db := filepath.Join(b.TempDir(), "a.db")
		wt, p := runPeak(b, bin, "archive", "import", rec, "--archive", db)
		wall, peak = wall+wt, max(peak, p)
	}
	b.ReportMetric(float64(st.Size())/1e6, "line-MB")
	b.ReportMetric(peak, "peak-MB")
	b.ReportMetric(peak/(float64(st.Size())/1e6), "peak/line")
	b.ReportMetric(wall.Seconds()/float64(b.N), "s/import")
}
