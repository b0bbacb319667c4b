package cli

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// Two default demos, one after the other, are two runs to a tracing
// backend: each picks its own seed (and says it), so their job and trace
// ids differ; --seed gives the same ids again.
func TestDemosDoNotCollide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seedLine := regexp.MustCompile(`seed (\d+) \(--seed`)
	// Two demos at once, as two terminals would run them.
	type demo struct {
		errOut string
		code   int
		sink   *otlpSink
	}
	var demos [2]demo
	var wg sync.WaitGroup
	for i := range demos {
		demos[i].sink = newOTLPSink(t)
		wg.Go(func() {
			_, demos[i].errOut, demos[i].code = run(t, ctx, "demo", "--speed", "400", "-o", "json", "--otlp-endpoint", demos[i].sink.URL)
		})
	}
	wg.Wait()
	traces := map[string]bool{}
	var seeds []string
	for i, d := range demos {
		if d.code != ExitOK {
			t.Fatalf("demo %d: exit %d: %s", i+1, d.code, d.errOut)
		}
		m := seedLine.FindStringSubmatch(d.errOut)
		if m == nil {
			t.Fatalf("demo %d does not say its seed:\n%s", i+1, d.errOut)
		}
		seeds = append(seeds, m[1])
		ids := d.sink.traceIDs()
		if len(ids) != 1 {
			t.Fatalf("demo %d: spans in %d traces", i+1, len(ids))
		}
		for id := range ids {
			traces[id] = true
		}
	}
	if len(traces) != 2 || seeds[0] == seeds[1] {
		t.Fatalf("two demos: trace ids %v, seeds %v", traces, seeds)
	}

	// The same seed: the same job id (hence trace id), run twice at once.
	job := func(args ...string) string {
		out, errOut, code := run(t, ctx, append([]string{"demo", "--speed", "400", "-o", "json"}, args...)...)
		if code != ExitOK {
			t.Errorf("demo %v: exit %d: %s", args, code, errOut)
			return ""
		}
		m := regexp.MustCompile(`"runId":"([0-9a-f-]{36})"`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("no runId in the demo's output: %.300s", out)
			return ""
		}
		return m[1]
	}
	var a, b string
	wg.Go(func() { a = job("--seed", seeds[0]) })
	wg.Go(func() { b = job("--seed", seeds[0]) })
	wg.Wait()
	if a != b || a == "" {
		t.Errorf("--seed %s: job ids %s and %s", seeds[0], a, b)
	}
}

// serve says its seed on a SEED= line, among the lines meant for eval.
func TestServeSaysSeed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &firstWrite{wrote: make(chan struct{})}
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, []string{"serve", "--scenario", sim.ScenarioResearch, "--scrapes", "0"}, strings.NewReader(""), out, io.Discard)
	}()
	select {
	case <-out.wrote:
	case code := <-done:
		t.Fatalf("serve ended at once: exit %d", code)
	}
	cancel()
	<-done
	if !regexp.MustCompile(`(?m)^SEED=\d+$`).MatchString(out.b.String()) {
		t.Errorf("serve's output has no SEED= line:\n%s", out.b.String())
	}
}

// firstWrite keeps what is written and closes wrote after the first write.
type firstWrite struct {
	b     strings.Builder
	wrote chan struct{}
	once  sync.Once
}

func (w *firstWrite) Write(p []byte) (int, error) {
	n, err := w.b.Write(p)
	w.once.Do(func() { close(w.wrote) })
	return n, err
}
