package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The tests decode the wire with encoding/json and their own types, never
// the project's model package: the simulator is an independent check on it.

const testKey = "fc-0123456789abcdef0123456789abcdef"

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 2, 26, 45, 123e6, time.UTC) }

// startSim starts a server for one test; unless the test says otherwise it
// is fast, unlimited and on a fixed clock.
func startSim(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Key == "" {
		o.Key = testKey
	}
	if o.RateLimit == 0 {
		o.RateLimit = -1
	}
	if o.Speed == 0 {
		o.Speed = 1000
	}
	if o.Now == nil {
		o.Now = fixedNow
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// manualClock is the wall time since Start that a test moves by hand
// (Options.elapsed): what each request sees is then decided by the test,
// not by how busy the machine is.
type manualClock struct{ ns atomic.Int64 }

func (c *manualClock) elapsed() time.Duration { return time.Duration(c.ns.Load()) }

// advance moves the clock by d of simulated time at speed.
func (c *manualClock) advance(d time.Duration, speed float64) {
	c.ns.Add(int64(float64(d) / speed))
}

func waitFinished(t testing.TB, s *Server, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.WaitFinished(ctx, id); err != nil {
		t.Fatalf("job %s did not finish: %v", id, err)
	}
}

type tclient struct {
	base, key string
	hc        *http.Client
}

func newClient(s *Server) *tclient {
	return &tclient{base: s.URL, key: s.Key, hc: &http.Client{Timeout: 10 * time.Second}}
}

type tresp struct {
	status int
	header http.Header
	body   []byte
}

func (c *tclient) do(method, path string) (tresp, error) {
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		return tresp{}, err
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return tresp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return tresp{status: resp.StatusCode, header: resp.Header, body: b}, err
}

func (c *tclient) must(t testing.TB, method, path string) tresp {
	t.Helper()
	r, err := c.do(method, path)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// jsonBody decodes a body into a generic map.
func jsonBody(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v: %.300s", err, b)
	}
	return m
}

type terr struct {
	Code      string `json:"code"`
	Source    string `json:"source"`
	Retryable *bool  `json:"retryable"`
	Message   string `json:"message"`
}

type tart struct {
	Kind             string   `json:"kind"`
	ArtifactID       string   `json:"artifactId"`
	Path             string   `json:"path"`
	SnapshotID       string   `json:"snapshotId"`
	Change           string   `json:"change"`
	ChangedFields    []string `json:"changedFields"`
	ItemCount        *int     `json:"itemCount"`
	SourceToolCallID string   `json:"sourceToolCallId"`
}

type tev struct {
	SchemaVersion    int    `json:"schemaVersion"`
	EventID          string `json:"eventId"`
	RunID            string `json:"runId"`
	OccurredAt       string `json:"occurredAt"`
	ProducerSequence int64  `json:"producerSequence"`
	Agent            struct {
		ID       string `json:"id"`
		Role     string `json:"role"`
		Name     string `json:"name"`
		ParentID string `json:"parentId"`
	} `json:"agent"`
	Type       string          `json:"type"`
	Reason     string          `json:"reason"`
	Outcome    string          `json:"outcome"`
	Error      *terr           `json:"error"`
	DurationMs *int64          `json:"durationMs"`
	SessionID  string          `json:"sessionId"`
	Phase      string          `json:"phase"`
	Message    string          `json:"message"`
	Text       string          `json:"text"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Parameters json.RawMessage `json:"parameters"`
	Result     json.RawMessage `json:"result"`
	Artifact   *tart           `json:"artifact"`

	raw json.RawMessage
}

type tsession struct {
	ID          string `json:"id"`
	LiveViewURL string `json:"liveViewUrl"`
	Viewport    struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"viewport"`
}

type ttrace struct {
	Success               bool              `json:"success"`
	ID                    string            `json:"id"`
	Events                []json.RawMessage `json:"events"`
	CreditsUsed           *int              `json:"creditsUsed"`
	ActiveBrowserSessions *[]tsession       `json:"activeBrowserSessions"`

	events []tev
}

func decodeTrace(b []byte) (*ttrace, error) {
	var tr ttrace
	if err := json.Unmarshal(b, &tr); err != nil {
		return nil, err
	}
	for _, r := range tr.Events {
		var e tev
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, err
		}
		e.raw = r
		tr.events = append(tr.events, e)
	}
	return &tr, nil
}

func (c *tclient) trace(t testing.TB, id string, live bool) *ttrace {
	t.Helper()
	p := "/v2/agent/" + id + "/trace"
	if live {
		p += "?liveView=true"
	}
	r := c.must(t, "GET", p)
	if r.status != 200 {
		t.Fatalf("trace: %d %s", r.status, r.body)
	}
	tr, err := decodeTrace(r.body)
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	return tr
}

// finalTrace waits for the run to finish and returns its whole trace.
func finalTrace(t testing.TB, s *Server, id string) *ttrace {
	t.Helper()
	waitFinished(t, s, id)
	return newClient(s).trace(t, id, false)
}

func findType(evs []tev, typ string) []tev {
	var out []tev
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

var retryAfterText = regexp.MustCompile(`retry after (\d+)s`)

// patientTrace is the client the chaos run is meant for: it retries every
// failure (transport errors, non-200 answers, bodies that are not a whole
// trace), honours the server's wait hints in order (Retry-After header,
// retry_after_seconds, the text), and returns the first good trace.
func (c *tclient) patientTrace(ctx context.Context, id string) (*ttrace, int, error) {
	failures := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, failures, err
		}
		r, err := c.do("GET", "/v2/agent/"+id+"/trace")
		if err == nil && r.status == 200 {
			tr, derr := decodeTrace(r.body)
			if derr == nil && tr.Success {
				return tr, failures, nil
			}
			err = fmt.Errorf("bad body: %v", derr)
		} else if err == nil {
			err = fmt.Errorf("status %d", r.status)
		}
		failures++
		wait := 2 * time.Millisecond
		if err == nil || r.status == http.StatusTooManyRequests {
			wait = hint(r)
		}
		if failures > 200 {
			return nil, failures, errors.New("too many failures: " + err.Error())
		}
		time.Sleep(min(wait, 200*time.Millisecond))
	}
}

func hint(r tresp) time.Duration {
	if h := r.header.Get("Retry-After"); h != "" {
		if n, err := strconv.Atoi(h); err == nil {
			return time.Duration(n) * time.Second
		}
	}
	var m struct {
		RetryAfterSeconds *int   `json:"retry_after_seconds"`
		Error             string `json:"error"`
	}
	if json.Unmarshal(r.body, &m) == nil {
		if m.RetryAfterSeconds != nil {
			return time.Duration(*m.RetryAfterSeconds) * time.Second
		}
		if sm := retryAfterText.FindStringSubmatch(m.Error); sm != nil {
			n, _ := strconv.Atoi(sm[1])
			return time.Duration(n) * time.Second
		}
	}
	return 2 * time.Millisecond
}

// keyOrder returns the top-level keys of a JSON object in order.
func keyOrder(t testing.TB, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", b)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
