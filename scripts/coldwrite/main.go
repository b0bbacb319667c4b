//go:build unix

// Command coldwrite measures what one poll's write costs a process that
// makes one now and then, as a live watch does (a poll every 2 s), against
// the same writes back to back: it opens an SQLite archive, takes a run's
// lease, and appends one poll under it every -gap, timing each append by
// the process's CPU (getrusage: every thread, the kernel's part included).
//
//	go run ./scripts/coldwrite -gap 0 -n 30
//	go run ./scripts/coldwrite -gap 2s -n 30
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/firewatch/firewatch/archive"
)

func main() {
	gap := flag.Duration("gap", 2*time.Second, "time between two writes")
	n := flag.Int("n", 30, "writes")
	flag.Parse()
	dir, err := os.MkdirTemp("", "coldwrite-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := archive.Open(ctx, filepath.Join(dir, "archive.db"))
	if err != nil {
		fail(err)
	}
	defer st.Close()
	const svc, id = "https://api.example", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	if err := st.PutRun(ctx, &archive.Run{Service: svc, ID: id, Prompt: "research", Team: "t"}); err != nil {
		fail(err)
	}
	l, err := st.Take(ctx, archive.LeaseKey{Service: svc, Team: "t", Run: id}, archive.NewHolder("coldwrite"), 6*time.Second)
	if err != nil {
		fail(err)
	}
	// A poll that brought a few events, as a research run's do (about a
	// kilobyte stored).
	line := []byte(`{"receivedAt":"2026-01-02T03:04:05.123456Z","status":200,"body":{"success":true,"events":[` +
		strings.Repeat(`{"eventId":"ev","type":"tool_call","data":{"tool":"search","query":"prices of things"}},`, 12) + `{}]}}`)
	start := time.Now()
	var spent time.Duration
	for range *n {
		time.Sleep(*gap)
		c := cpu()
		if _, err := st.AppendLeased(ctx, l, start, []archive.Poll{{ReceivedAt: time.Now(), Line: line}}); err != nil {
			fail(err)
		}
		spent += cpu() - c
	}
	fmt.Printf("%d writes %s apart: %.3f ms of CPU each\n", *n, *gap, float64(spent)/float64(*n)/1e6)
}

// cpu is the process's CPU so far, user and system, every thread's.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coldwrite:", err)
	os.Exit(1)
}
