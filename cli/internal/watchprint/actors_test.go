package watchprint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
)

// cancelledStore is a run cancelled after it started, with acts known of
// who did it.
func cancelledStore(t *testing.T, acts model.Actors) *model.Store {
	t.Helper()
	const run = "019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7"
	ev := func(id string, seq int, typ, extra string) string {
		return fmt.Sprintf(`{"schemaVersion":1,"eventId":"0190f3a4-0000-7000-8000-00000000000%s","runId":"%s","occurredAt":"2026-03-14T09:00:%02d.000Z","producerSequence":%d,"agent":{"id":"0190f3a4-0000-7000-8000-000000000001","role":"orchestrator","name":"orchestrator"},"type":"%s"%s}`,
			id, run, seq, seq, typ, extra)
	}
	s := model.NewStore()
	s.SetActors(acts)
	body := `{"success":true,"id":"` + run + `","events":[` + strings.Join([]string{ev("a", 1, "run.started", ""),
		ev("b", 2, "run.cancel_requested", `,"reason":"user"`),
		ev("c", 3, "run.finished", `,"outcome":"cancelled","error":{"code":"cancelled","source":"agent","retryable":false,"message":"cancelled"}`)}, ",") + `],"creditsUsed":3}`
	if _, err := s.Ingest([]byte(body)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestClosingBlockActors: the plain closing block names who cancelled and
// who started the run through a hub, and says a cancel firewatch did not
// see is unknown rather than name anyone.
func TestClosingBlockActors(t *testing.T) {
	closing := func(acts model.Actors) string {
		var out strings.Builder
		NewPlain(Watch{Run: &follow.Run{Store: cancelledStore(t, acts)}, Stdout: &out}).End("")
		return out.String()
	}
	out := closing(model.Actors{StartedBy: "bob", CancelledBy: "alice"})
	for _, want := range []string{"cancelled   by alice through the hub\n", "started     by bob through the hub\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	out = closing(model.Actors{})
	if !strings.Contains(out, "cancelled   by the service or a client firewatch did not see\n") || strings.Contains(out, "started ") {
		t.Errorf("unknown:\n%s", out)
	}
}

// TestSummaryActors: --summary has startedBy and cancelledBy, null when
// firewatch does not know.
func TestSummaryActors(t *testing.T) {
	for _, c := range []struct {
		acts model.Actors
		want string
	}{
		{model.Actors{StartedBy: "bob", CancelledBy: "alice"}, `"startedBy":"bob","cancelledBy":"alice"`},
		{model.Actors{}, `"startedBy":null,"cancelledBy":null`},
	} {
		r := follow.Run{Store: cancelledStore(t, c.acts)}
		b, err := r.Summary().Marshal(false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("no %s in %s", c.want, b)
		}
	}
}
