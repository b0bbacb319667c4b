package costtext

import (
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/text"
)

// The table: a bucket's key is redacted and on one line, a run without a
// label is keyed "", bars only on a terminal wide enough (#s for ASCII),
// and the crawls said apart; the JSON is redacted and escaped.
func TestWriteTable(t *testing.T) {
	const key = "fc-0123456789abcdef"
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	c1, c2 := 10.0, 5.0
	rep := Build("label", []archive.Run{
		{ID: "a", CreatedAt: &at, Label: "team " + key + "\nnext", Status: "completed", Outcome: "succeeded", Complete: true, CreditsUsed: &c1},
		{ID: "b", CreatedAt: &at, Status: "completed", Outcome: "succeeded", Complete: true, CreditsUsed: &c2},
	}, at)
	rep.AddCrawls([]archive.Crawl{{ID: "c", Status: "scraping", CreditsUsed: &c2}})
	if rep.Crawls.Crawls != 1 || rep.Crawls.Unfinished != 1 || rep.Crawls.CreditsUsed != 5 {
		t.Fatalf("crawls %+v", rep.Crawls)
	}
	secrets := text.NewSecrets(key)
	var plain, wide, js strings.Builder
	if err := WriteTable(&plain, &rep, secrets, 0, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&wide, &rep, secrets, 120, true); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, &rep, secrets); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{plain.String(), wide.String(), js.String()} {
		if strings.Contains(out, key) || strings.Contains(out, "\x1b") {
			t.Errorf("the key or an escape in:\n%s", out)
		}
	}
	p := plain.String()
	for _, want := range []string{"LABEL  ", `""  `, "team " + text.Redacted, "\ntotal ", "crawls: 1 crawl, 5 credits (not in the runs' figures)"} {
		if !strings.Contains(p, want) {
			t.Errorf("no %q in:\n%s", want, p)
		}
	}
	if strings.Contains(p, "#") || strings.Contains(p, "█") || !strings.Contains(wide.String(), strings.Repeat("#", 30)) {
		t.Errorf("bars: plain\n%s\nwide\n%s", p, wide.String())
	}
}
