package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// TestHistoryHintsAtOtherServices: history of a service the archive holds
// no runs of says, on stderr, which services it does hold runs of (the
// usual mistake: another --api-url than the one the runs were archived
// under); with the right service, or runs found, it says nothing more.
func TestHistoryHintsAtOtherServices(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := archive.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	const archived = "http://127.0.0.1:3002"
	created := time.Now().Add(-time.Hour)
	err = st.PutRun(ctx, &archive.Run{Service: archived, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5a", Status: "completed", CreatedAt: &created})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"plain", "json"} {
		out, errOut, code := run(t, ctx, "history", "-o", o, "--archive", db, "--api-url", "https://api.firecrawl.dev")
		if code != 0 {
			t.Fatalf("history -o %s: exit %d\n%s", o, code, errOut)
		}
		if strings.Contains(out, "019a2b3c") {
			t.Fatalf("history -o %s listed another service's run:\n%s", o, out)
		}
		if want := "no archived runs of https://api.firecrawl.dev; the archive holds runs of " + archived; !strings.Contains(errOut, want) {
			t.Errorf("history -o %s: stderr %q, want %q in it", o, errOut, want)
		}
		out, errOut, code = run(t, ctx, "history", "-o", o, "--archive", db, "--api-url", archived)
		if code != 0 || !strings.Contains(out, "019a2b3c") || errOut != "" {
			t.Errorf("history -o %s of the archived service: exit %d\nstdout:\n%s\nstderr:\n%s", o, code, out, errOut)
		}
	}
}
