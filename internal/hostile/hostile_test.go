package hostile_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/sim"
)

// Every mode changes the answer to a trace request, the same way on every
// request (injected events keep their bytes), and leaves other requests
// alone.
func TestEveryModeSpoilsTheTrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := sim.Start(ctx, sim.Options{Speed: 1000, RateLimit: -1, Scenarios: []string{"refused"}, Now: func() time.Time { return time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(ctx, job); err != nil {
		t.Fatal(err)
	}
	get := func(base, path string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+srv.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	f := hostile.Start(t, srv)
	trace := "/v2/agent/" + job + "/trace?liveView=true"
	_, clean := get(f.URL, trace)
	if _, direct := get(srv.URL, trace); !bytes.Equal(clean, direct) {
		t.Fatal("with no mode the front changes the answer")
	}
	if len(hostile.Modes()) < 15 {
		t.Fatalf("modes: %v", hostile.Modes())
	}
	for _, m := range hostile.Modes() {
		f.Set(m)
		c1, b1 := get(f.URL, trace)
		c2, b2 := get(f.URL, trace)
		if c1 == http.StatusOK && bytes.Equal(b1, clean) {
			t.Errorf("%s: the answer is the sim's", m)
		}
		if m != hostile.RetryAfterLong && m != hostile.RetryAfterHours && m != hostile.NotJSONOnce && (c1 != c2 || !bytes.Equal(b1, b2)) {
			t.Errorf("%s: two requests, two answers", m)
		}
		if hostile.Doc(m) == "" {
			t.Errorf("%s: no doc", m)
		}
		_, via := get(f.URL, "/v2/agent/"+job)
		if _, direct := get(srv.URL, "/v2/agent/"+job); !bytes.Equal(via, direct) {
			t.Errorf("%s: the status endpoint's answer was changed", m)
		}
	}
}
