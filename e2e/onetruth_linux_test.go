package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/firewatch/firewatch/sim"
)

// facts are what a reader says about a run, in one shape for all of them.
type facts struct {
	Prompt, Model, Outcome string
	Cap                    *float64 // nil: not known (2,500 assumed)
	Credits                float64
	Billed                 *float64 // nil: not known
	Attention              int
	ByAgent                map[string]float64 // estimated credits by agent id
}

func (f facts) String() string {
	b, _ := json.Marshal(f)
	return string(b)
}

func fptr(v float64) *float64 { return &v }

// TestOneTruthAboutARun: five runs against the simulator (succeeded with a
// cap of 300, started with --detach and watched later; credit-limited;
// cancelled from the runs screen; failed; listed but never watched, fetched
// by an archive pass) and a 404 id. history -o json, cost -o json, compare
// -o json, report -o md, the OTLP export's run span and --summary agree on
// the prompt, model, cap, outcome, credits, billed credits, attention items
// and per-agent credits of each, before and after the service forgets the
// runs (its retention clock moved past them); nothing is stored for the
// 404 id; --result - is the status endpoint's data, live and from the
// archive.
func TestOneTruthAboutARun(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 100, Retention: time.Hour})
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+filepath.Join(t.TempDir(), "archive.db"))
	fw := func(args ...string) result {
		t.Helper()
		return runFW(t, env, runLimit, args...)
	}
	watch := []string{"-o", "plain", "--interval", "100ms", "--summary", "sum.json"}

	// 1. Succeeded, cap 300: started with --detach, watched later, its
	// result asked live.
	r := fw("run", "Compare the pricing of web-scraping APIs", "--max-credits", "300", "--detach")
	if r.code != 0 {
		t.Fatalf("run --detach: %s", r)
	}
	capped300 := strings.TrimSpace(r.stdout)
	r = fw(append([]string{"watch", capped300, "--result", "-"}, watch...)...)
	if r.code != 0 {
		t.Fatalf("watch: %s", r)
	}
	live := map[string]facts{capped300: summaryFacts(t, readFile(t, filepath.Join(r.dir, "sum.json")))}
	data := statusData(t, srv, capped300)
	if got := lastLine(r.stdout); !sameJSON(got, data) {
		t.Errorf("watch --result - printed\n%s\nthe status's data is\n%s", got, data)
	}

	// 2. Credit-limited; 4. failed: watched by run.
	r = fw(append([]string{"run", "Compare the pricing of vector databases", "--max-credits", "150", "--result", "-"}, watch...)...)
	if r.code != 5 || !strings.Contains(r.stderr, "--result: nothing written") {
		t.Fatalf("the credit-limited run: %s", r)
	}
	limited := startedID(t, r)
	live[limited] = summaryFacts(t, readFile(t, filepath.Join(r.dir, "sum.json")))
	r = fw(append([]string{"run", "This one will fail"}, watch...)...)
	if r.code != 1 {
		t.Fatalf("the failed run: %s", r)
	}
	failed := startedID(t, r)
	live[failed] = summaryFacts(t, readFile(t, filepath.Join(r.dir, "sum.json")))

	// 3. Cancelled from the runs screen: the archive records the cancel
	// and, once the run is over, its outcome, while the screen is open.
	r = fw("run", "Keep watching the pricing page of Zyte (monitor)", "--detach")
	if r.code != 0 {
		t.Fatalf("run --detach: %s", r)
	}
	cancelled := strings.TrimSpace(r.stdout)
	p := startPTY(t, env, "runs")
	p.waitScreen(t, "Keep watching")
	p.typeKeys(t, "c")
	p.waitScreen(t, "yes, cancel the run")
	p.typeKeys(t, "y")
	p.waitScreen(t, "accepted")
	deadline := time.Now().Add(runLimit)
	for historyOf(t, fw)[cancelled].Outcome != "cancelled" {
		if time.Now().After(deadline) {
			t.Fatalf("the archive never read the cancelled run's outcome: %v", historyOf(t, fw)[cancelled])
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.typeKeys(t, "q")
	if code := p.exit(t); code != 0 {
		t.Fatalf("the runs screen: exit %d", code)
	}

	// 5. Listed but never watched: the hosted research run, fetched by a
	// pass.
	listed := srv.Jobs[0].ID
	if r = fw("archive", "--once"); r.code != 0 {
		t.Fatalf("archive --once: %s", r)
	}

	// A 404 id: nothing stored.
	if r = fw("00000000-0000-0000-0000-000000000000", "-o", "plain"); r.code != 6 {
		t.Fatalf("the 404 id: %s", r)
	}

	ids := []string{capped300, limited, cancelled, failed, listed}
	want := map[string]struct {
		outcome string
		cap     *float64
		billed  func(credits float64) float64
	}{
		capped300: {"succeeded", fptr(300), func(c float64) float64 { return c }},
		limited:   {"credit_limit_reached", fptr(150), func(c float64) float64 { return c }},
		cancelled: {"cancelled", fptr(2500), func(c float64) float64 { return c }},
		failed:    {"failed", fptr(2500), func(float64) float64 { return 0 }},
		listed:    {"succeeded", nil, func(c float64) float64 { return c }},
	}
	var before map[string]facts
	for _, phase := range []string{"before the service forgets them", "after the service forgot them"} {
		if before != nil {
			srv.PassTime(2 * time.Hour)
			if r = fw("archive", "--once"); r.code != 0 || !strings.Contains(r.stderr, "5 no longer kept by the service") {
				t.Fatalf("archive --once after the runs were forgotten: %s", r)
			}
		}
		hist := historyOf(t, fw)
		if len(hist) != len(ids) {
			t.Fatalf("%s: history holds %d runs, want %d (nothing for the 404 id): %v", phase, len(hist), len(ids), hist)
		}
		got := map[string]facts{}
		for _, id := range ids {
			byReader := map[string]facts{"history": hist[id]}
			cmpFacts, names := compareFacts(t, fw, id)
			byReader["compare"] = cmpFacts
			byReader["report"] = reportFacts(t, fw, id, names)
			byReader["export"] = exportFacts(t, env, id)
			byReader["replay --summary"] = replaySummary(t, fw, id)
			if l, ok := live[id]; ok && before == nil {
				byReader["the live --summary"] = l
			}
			ref := byReader["history"]
			for reader, f := range byReader {
				if f.String() != ref.String() {
					t.Errorf("%s: run %s: %s says\n  %s\nhistory says\n  %s", phase, id, reader, f, ref)
				}
			}
			w := want[id]
			if ref.Outcome != w.outcome || !reflect.DeepEqual(ref.Cap, w.cap) || ref.Billed == nil || *ref.Billed != w.billed(ref.Credits) ||
				ref.Prompt == "" || ref.Model != "spark-2" || len(ref.ByAgent) == 0 {
				t.Errorf("%s: run %s: %s; want outcome %s, cap %v, billed by the rule", phase, id, ref, w.outcome, w.cap)
			}
			got[id] = ref
		}
		// cost: the same bill, summed.
		var cost struct {
			Total struct {
				Runs                                                      int
				CreditsUsed, BilledCredits, FailedCredits, UnknownCredits float64
			}
		}
		r = fw("cost", "-o", "json")
		if err := json.Unmarshal([]byte(r.stdout), &cost); err != nil || r.code != 0 {
			t.Fatalf("cost: %v %s", err, r)
		}
		var used, billed float64
		for _, f := range got {
			used += f.Credits
			billed += *f.Billed
		}
		if tt := cost.Total; tt.Runs != 5 || tt.CreditsUsed != used || tt.BilledCredits != billed || tt.FailedCredits != got[failed].Credits || tt.UnknownCredits != 0 {
			t.Errorf("%s: cost totals %+v; the runs used %v, billed %v, the failed one %v", phase, tt, used, billed, got[failed].Credits)
		}
		if before != nil && !reflect.DeepEqual(got, before) {
			t.Errorf("the figures changed when the service forgot the runs:\nbefore %v\nafter  %v", before, got)
		}
		before = got
	}

	// The result from the archive, the service having forgotten the run.
	if r = fw("result", capped300); r.code != 0 || !sameJSON(strings.TrimSpace(r.stdout), data) {
		t.Errorf("result from the archive: %s", r)
	}
	if r = fw("watch", capped300, "-o", "plain", "--result", "-"); r.code != 0 || !sameJSON(lastLine(r.stdout), data) {
		t.Errorf("watch --result - of the forgotten run: %s", r)
	}
	if r = fw("result", failed); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "only a run that succeeded has a result") {
		t.Errorf("result of the failed run: %s", r)
	}
	if r = fw("report", "00000000-0000-0000-0000-000000000000", "-o", "md"); r.code != 6 {
		t.Errorf("report of the 404 id: %s", r)
	}
	noKey(t, srv.Key, map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)})
}

var startedRE = regexp.MustCompile(`started run ([0-9a-f-]{36})`)

func startedID(t *testing.T, r result) string {
	t.Helper()
	m := startedRE.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no started run: %s", r)
	}
	return m[1]
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// statusData is the status endpoint's data for id, as the service sends it.
func statusData(t *testing.T, srv *sim.Server, id string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+"/v2/agent/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+srv.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || len(st.Data) == 0 {
		t.Fatalf("the status of %s: %v, no data", id, err)
	}
	return string(st.Data)
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// historyOf is history -o json by run id.
func historyOf(t *testing.T, fw func(...string) result) map[string]facts {
	t.Helper()
	r := fw("history", "-o", "json")
	if r.code != 0 {
		t.Fatalf("history: %s", r)
	}
	out := map[string]facts{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var h struct {
			ID, Outcome, Prompt, Model string
			MaxCredits                 *float64
			CreditsUsed                float64
			BilledCredits              *float64
			Attention                  int
			CreditsByAgent             map[string]float64
		}
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("history line %q: %v", line, err)
		}
		out[h.ID] = facts{Prompt: h.Prompt, Model: h.Model, Outcome: h.Outcome, Cap: h.MaxCredits, Credits: h.CreditsUsed, Billed: h.BilledCredits,
			Attention: h.Attention, ByAgent: h.CreditsByAgent}
	}
	return out
}

// summaryFacts reads a --summary.
func summaryFacts(t *testing.T, b []byte) facts {
	t.Helper()
	var s struct {
		Outcome, Prompt, Model string
		MaxCredits             float64
		MaxCreditsAssumed      bool
		CreditsUsed            float64
		BilledCredits          *float64
		Attention              []json.RawMessage
		CreditsByAgent         map[string]float64
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary %q: %v", b, err)
	}
	f := facts{Prompt: s.Prompt, Model: s.Model, Outcome: s.Outcome, Credits: s.CreditsUsed, Billed: s.BilledCredits, Attention: len(s.Attention), ByAgent: s.CreditsByAgent}
	if !s.MaxCreditsAssumed {
		f.Cap = fptr(s.MaxCredits)
	}
	return f
}

func replaySummary(t *testing.T, fw func(...string) result, id string) facts {
	t.Helper()
	r := fw("replay", id, "-o", "json", "--summary", "-")
	if r.code > 5 {
		t.Fatalf("replay: %s", r)
	}
	return summaryFacts(t, []byte(lastLine(r.stdout)))
}

// compareFacts reads compare -o json of the run against itself; names maps
// its agents' names to their ids, for the report.
func compareFacts(t *testing.T, fw func(...string) result, id string) (facts, map[string]string) {
	t.Helper()
	r := fw("compare", id, id, "-o", "json")
	if r.code != 0 {
		t.Fatalf("compare: %s", r)
	}
	var c struct {
		Baseline struct {
			Outcome, Prompt, Model    string
			MaxCredits, BilledCredits *float64
		}
		Metrics []struct {
			Name     string
			Baseline float64
		}
		Agents []struct {
			Name     string
			Baseline *struct {
				ID      string
				Credits *float64
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	f := facts{Prompt: c.Baseline.Prompt, Model: c.Baseline.Model, Outcome: c.Baseline.Outcome, Cap: c.Baseline.MaxCredits, Billed: c.Baseline.BilledCredits,
		ByAgent: map[string]float64{}}
	for _, m := range c.Metrics {
		switch m.Name {
		case "creditsUsed":
			f.Credits = m.Baseline
		case "attention":
			f.Attention = int(m.Baseline)
		}
	}
	names := map[string]string{}
	for _, a := range c.Agents {
		if a.Baseline != nil {
			names[a.Name] = a.Baseline.ID
			if a.Baseline.Credits != nil {
				f.ByAgent[a.Baseline.ID] = *a.Baseline.Credits
			}
		}
	}
	return f, names
}

var (
	mdOutcome = regexp.MustCompile(`(?m)^\| Outcome \| \*\*(.*)\*\* \|$`)
	mdCredits = regexp.MustCompile(`(?m)^\| Credits \| ([\d.,]+) used(?:, ([\d.,]+) billed)?`)
	mdModel   = regexp.MustCompile(`(?m)^- Model: (.*)$`)
	mdCap     = regexp.MustCompile(`(?m)^- Credit cap: ([\d,]+)( \(assumed\))?$`)
	mdPrompt  = regexp.MustCompile(`(?m)^> (.*)$`)
	mdAgent   = regexp.MustCompile(`(?m)^\| (.+) \| ≈ ([\d.]+) \|$`)
)

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// reportFacts reads report -o md.
func reportFacts(t *testing.T, fw func(...string) result, id string, names map[string]string) facts {
	t.Helper()
	r := fw("report", id, "-o", "md")
	if r.code != 0 {
		t.Fatalf("report: %s", r)
	}
	md := r.stdout
	f := facts{ByAgent: map[string]float64{}}
	if m := mdOutcome.FindStringSubmatch(md); m != nil {
		f.Outcome = strings.ReplaceAll(m[1], `\_`, "_")
	}
	if m := mdCredits.FindStringSubmatch(md); m != nil {
		f.Credits = num(t, m[1])
		if m[2] != "" {
			f.Billed = fptr(num(t, m[2]))
		}
	}
	if m := mdModel.FindStringSubmatch(md); m != nil {
		f.Model = m[1]
	}
	if m := mdCap.FindStringSubmatch(md); m != nil && m[2] == "" {
		f.Cap = fptr(num(t, m[1]))
	}
	if m := mdPrompt.FindStringSubmatch(md); m != nil {
		f.Prompt = strings.NewReplacer(`\(`, "(", `\)`, ")").Replace(m[1])
	}
	if _, look, ok := strings.Cut(md, "### Needed a look\n\n"); ok {
		look, _, _ = strings.Cut(look, "\n\n")
		f.Attention = strings.Count(look, "- **")
	}
	for _, m := range mdAgent.FindAllStringSubmatch(md, -1) {
		f.ByAgent[names[m[1]]] = num(t, m[2])
	}
	return f
}

// exportFacts sends the run with firewatch export to a real OTLP/HTTP
// endpoint and reads its run span.
func exportFacts(t *testing.T, env []string, id string) facts {
	t.Helper()
	var mu sync.Mutex
	var spans []*tracepb.Span
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var msg collpb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range msg.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		mu.Unlock()
	}))
	defer recv.Close()
	r := runFW(t, env, runLimit, "export", id, "--otlp-endpoint", recv.URL+"/v1/traces", "--otlp-content")
	if r.code != 0 {
		t.Fatalf("export: %s", r)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range spans {
		if len(s.ParentSpanId) != 0 {
			continue
		}
		a := map[string]any{}
		for _, kv := range s.Attributes {
			switch v := kv.Value.GetValue().(type) {
			case *commonpb.AnyValue_StringValue:
				a[kv.Key] = v.StringValue
			case *commonpb.AnyValue_DoubleValue:
				a[kv.Key] = v.DoubleValue
			case *commonpb.AnyValue_IntValue:
				a[kv.Key] = float64(v.IntValue)
			}
		}
		str := func(k string) string { s, _ := a[k].(string); return s }
		nf := func(k string) float64 { v, _ := a[k].(float64); return v }
		f := facts{Prompt: str("input.value"), Model: str("gen_ai.request.model"), Outcome: str("firecrawl.outcome"), Credits: nf("firecrawl.credits_used"),
			Attention: int(nf("firecrawl.attention_items"))}
		if _, ok := a["firecrawl.request.max_credits"]; ok {
			f.Cap = fptr(nf("firecrawl.request.max_credits"))
		}
		if str("firecrawl.billing") != "unknown" {
			f.Billed = fptr(nf("firecrawl.billed_credits"))
		}
		if err := json.Unmarshal([]byte(str("firecrawl.credits_by_agent")), &f.ByAgent); err != nil {
			t.Errorf("firecrawl.credits_by_agent %q: %v", str("firecrawl.credits_by_agent"), err)
		}
		return f
	}
	t.Fatalf("no run span among %d spans", len(spans))
	return facts{}
}
