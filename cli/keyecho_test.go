package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/sim"
)

// The key echoed by the server in forms that unescaping JSON or sanitising
// turn back into the key (a \u-escaped letter, zero-width, bidi and C1
// characters, an escape sequence inside it) reaches no output: stdout in
// plain and JSON, stderr, the summary, the recording, the debug log, and a
// replay of the recording.
func TestKeyEchoedInOtherFormsIsRedacted(t *testing.T) {
	t.Parallel()
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	f := hostile.Start(t, srv, hostile.KeyEchoForms)
	dir := t.TempDir()
	check := func(what, s string) {
		t.Helper()
		if strings.Contains(s, srv.Key) {
			i := strings.Index(s, srv.Key)
			t.Errorf("%s holds the key: …%q…", what, s[max(0, i-60):min(len(s), i+len(srv.Key)+20)])
		}
	}
	for _, mode := range []string{"plain", "json"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		rec := filepath.Join(dir, mode+".ndjson")
		sum := filepath.Join(dir, mode+"-sum.json")
		dbg := filepath.Join(dir, mode+"-debug.log")
		out, errOut, code := run(t, ctx, "watch", srv.Jobs[0].ID, "--api-url", f.URL, "--api-key", srv.Key,
			"--interval", "100ms", "-o", mode, "--summary", sum, "--record", rec, "--debug", dbg, "--archive", filepath.Join(dir, "a.db"))
		cancel()
		if code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", mode, code, errOut)
		}
		check(mode+" stdout", out)
		check(mode+" stderr", errOut)
		if mode == "plain" && strings.Count(out, "[redacted]") < 2 {
			t.Errorf("plain stdout shows no redacted echo (were the events used?):\n%s", tail(out))
		}
		if mode == "json" && !strings.Contains(out, "[redacted]") {
			t.Errorf("json stdout has no redacted event:\n%s", tail(out))
		}
		for _, file := range []string{rec, sum, dbg} {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			check(mode+" "+filepath.Base(file), string(b))
		}
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		out, errOut, _ = run(t, ctx, "replay", rec, "-o", "plain", "--speed", "1000")
		cancel()
		check(mode+" replay stdout", out)
		check(mode+" replay stderr", errOut)
	}
}
