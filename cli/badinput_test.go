package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/sim"
)

// A run that succeeds exits 0 and writes a summary that parses, whatever
// the hostile front does to the numbers and events of its trace, and
// stderr says what was set aside or not used.
func TestHostileTraceStillSucceeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode   hostile.Mode
		stderr string // what stderr must say
		check  func(t *testing.T, sum map[string]any)
	}{
		{hostile.HugeCredits, "creditsUsed", func(t *testing.T, sum map[string]any) {
			if sum["tokensUsed"] != 0.0 {
				t.Errorf("tokensUsed %v", sum["tokensUsed"])
			}
		}},
		{hostile.NegativeCredits, "creditsUsed", nil},
		{hostile.OverflowCredits, "creditsUsed", nil},
		{hostile.HugeDurations, "durationMs", nil},
		{hostile.NegativeDurations, "durationMs", nil},
		{hostile.HugeCounts, "itemCount", nil},
		{hostile.NegativeCounts, "itemCount", nil},
		{hostile.HugeSequence, "producerSequence", nil},
		{hostile.ForeignRun, "another run", nil},
		{hostile.DeepEvent, "nests deeper", nil},
		{hostile.DuplicateChanged, "other content", nil},
		// A body that cannot be used: stderr says why, not only that.
		{hostile.NotJSONOnce, "malformed response: not JSON", nil},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, Speed: 1000, RateLimit: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			f := hostile.Start(t, srv, tc.mode)
			dir := t.TempDir()
			file := filepath.Join(dir, "sum.json")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out, errOut, code := run(t, ctx, "watch", srv.Jobs[0].ID, "--api-url", f.URL, "--api-key", srv.Key,
				"--interval", "100ms", "-o", "plain", "--summary", file, "--debug", filepath.Join(dir, "debug.log"), "--archive", filepath.Join(dir, "a.db"))
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, tail(out), errOut)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var sum map[string]any
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatalf("summary %q: %v", b, err)
			}
			if sum["outcome"] != "succeeded" {
				t.Fatalf("outcome %v", sum["outcome"])
			}
			log, _ := os.ReadFile(filepath.Join(dir, "debug.log"))
			if !strings.Contains(errOut+out, tc.stderr) || !strings.Contains(string(log), tc.stderr) {
				t.Errorf("the output does not say %q\nstdout:\n%s\nstderr:\n%s", tc.stderr, tail(out), errOut)
			}
			if tc.check != nil {
				tc.check(t, sum)
			}
		})
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
