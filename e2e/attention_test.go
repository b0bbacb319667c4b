package e2e

import (
	"bytes"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/sim"
)

// attentionSummary is the part of --summary that attention adds.
type attentionSummary struct {
	CreditsUsed float64 `json:"creditsUsed"`
	Attention   []struct {
		Kind        string   `json:"kind"`
		AgentID     *string  `json:"agentId"`
		ToolCallIDs []string `json:"toolCallIds"`
		Message     string   `json:"message"`
		FirstAt     string   `json:"firstAt"`
		LastAt      string   `json:"lastAt"`
		Count       int      `json:"count"`
		Cleared     bool     `json:"cleared"`
		Reached     bool     `json:"reached"`
	} `json:"attention"`
	CreditsByAgent    map[string]float64 `json:"creditsByAgent"`
	BurnRatePerMinute float64            `json:"burnRatePerMinute"`
	MaxCredits        float64            `json:"maxCredits"`
	MaxCreditsAssumed bool               `json:"maxCreditsAssumed"`
}

// TestAttention: the demo of each attention scenario prints the item when
// it appears and when it clears (the budget of a run that hit its cap:
// when it is reached, never "cleared"), lists it in the closing block with
// the estimated credits per agent, and puts it in the summary; the clean
// run raises nothing. JSON output keeps stdout to the service's events.
func TestAttention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scenario, kind, agent, line string
		capAssumed                  bool
		speed                       string
		args                        []string
	}{
		// The items that are counted (a loop, the budget) and a clean run
		// at speed 50; those that are timed at 20, their thresholds
		// seconds of real time past.
		{"research", "", "", "", true, "50", nil},
		// The agent is silent about 75 s: past a 60 s threshold by 0.75 s
		// of real time at speed 20, which a busy machine can miss between
		// two looks; past 30 s by 2.25 s.
		{"stall", "stall", "docs-analyst", "! stall  docs-analyst  no event for", true, "20", []string{"--stall", "30s"}},
		{"hang", "slow-tool", "source-verifier", "! slow-tool  source-verifier  mcp__tools__scrape running for", true, "20", nil},
		{"loop", "loop", "pricing-researcher", "! loop  pricing-researcher  mcp__tools__search called 3 times with the same parameters", true, "50", nil},
		{"burn", "budget", "", "! budget  run  at ", false, "50", nil},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			sum := filepath.Join(t.TempDir(), "sum.json")
			r := runFW(t, baseEnv(), runLimit, append([]string{"demo", "--scenario", tc.scenario, "--speed", tc.speed, "-o", "plain", "--summary", sum}, tc.args...)...)
			if r.code != 0 && !(tc.scenario == "burn" && r.code == 5) {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			var s attentionSummary
			if err := json.Unmarshal(readFile(t, sum), &s); err != nil {
				t.Fatal(err)
			}
			if s.Attention == nil || s.CreditsByAgent == nil || s.MaxCredits <= 0 || s.MaxCreditsAssumed != tc.capAssumed || s.BurnRatePerMinute <= 0 {
				t.Errorf("summary: %+v", s)
			}
			var total float64
			for _, c := range s.CreditsByAgent {
				total += c
			}
			if math.Abs(total-s.CreditsUsed) > 0 || len(s.CreditsByAgent) < 3 {
				t.Errorf("creditsByAgent %v adds up to %v, creditsUsed %v", s.CreditsByAgent, total, s.CreditsUsed)
			}
			if !strings.Contains(r.stdout, "by agent    estimated from tool-call time, not billing\n            ≈ ") {
				t.Errorf("no estimate per agent in the closing block\n%s", r.stdout)
			}
			if tc.kind == "" {
				if len(s.Attention) != 0 || strings.Contains(r.stdout, "\n! ") || !strings.Contains(r.stdout, "attention   nothing needed a look") {
					t.Errorf("a clean run raised items: %+v\n%s", s.Attention, r.stdout)
				}
				return
			}
			reached := tc.scenario == "burn" // it hits its cap
			if len(s.Attention) == 0 || s.Attention[0].Kind != tc.kind || s.Attention[0].Cleared == reached || s.Attention[0].Reached != reached || s.Attention[0].Count < 1 ||
				s.Attention[0].FirstAt == "" || s.Attention[0].LastAt < s.Attention[0].FirstAt || (tc.agent == "") != (s.Attention[0].AgentID == nil) {
				t.Errorf("attention: %+v", s.Attention)
			}
			end := "\n✓ " + tc.kind + "  "
			if reached {
				end = "\n! budget  run  the run hit its 1,000-credit cap and stopped\n"
			}
			if !strings.Contains(r.stdout, tc.line) || !strings.Contains(r.stdout, end) {
				t.Errorf("no line %q and its end %q in\n%s", tc.line, end, r.stdout)
			}
			if !strings.Contains(r.stdout, "attention   ") || !strings.Contains(r.stdout, "! "+tc.kind+" ") {
				t.Errorf("the closing block does not list the item\n%s", r.stdout)
			}
			if reached && (strings.Contains(r.stdout, "cleared") || !strings.Contains(r.stdout, "(reached)") ||
				!strings.Contains(r.stdout, "\noutcome     credit_limit_reached: the run hit its 1,000-credit cap and stopped\n")) {
				t.Errorf("the closing block of a run that hit its cap:\n%s", r.stdout)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := runFW(t, baseEnv(), runLimit, "demo", "--scenario", "loop", "--speed", "50", "-o", "json", "--summary", "-")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for _, l := range lines[:len(lines)-1] {
			var ev struct {
				EventID string `json:"eventId"`
			}
			if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.EventID == "" {
				t.Fatalf("stdout line is not an event: %q", l)
			}
		}
		if !strings.Contains(r.stderr, "firewatch: ! loop  pricing-researcher") || !strings.Contains(r.stderr, "firewatch: ✓ loop") ||
			!bytes.Contains([]byte(lines[len(lines)-1]), []byte(`"attention":[{"kind":"loop"`)) {
			t.Errorf("stderr:\n%s\nsummary:\n%s", r.stderr, lines[len(lines)-1])
		}
	})
}

// TestAttentionUsageErrors: bad --stall and --max-credits are usage errors
// (exit 2), before the demo starts.
func TestAttentionUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"demo", "--stall", "0s"},
		{"demo", "--stall", "-5s"},
		{"demo", "--max-credits", "-1"},
		{"replay", "-", "--stall", "soon"},
	} {
		r := runFW(t, baseEnv(), runLimit, args...)
		if r.code != 2 || !strings.Contains(r.stderr, args[len(args)-2]) {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r)
		}
	}
}

// TestAttentionReplay: replaying a recording raises the same items, with
// the same times and credits per agent, as the live watch did. The agent
// is silent 3.75 s at speed 20: well past the 2 s asked for, on a busy
// machine too.
func TestAttentionReplay(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"stall"}, Speed: 20})
	dir := t.TempDir()
	rec, live, re := filepath.Join(dir, "run.ndjson"), filepath.Join(dir, "live.json"), filepath.Join(dir, "replayed.json")
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "-o", "plain", "--interval", "100ms", "--stall", "2s", "--record", rec, "--summary", live)
	if r.code != 0 || !strings.Contains(r.stdout, "! stall  docs-analyst") {
		t.Fatalf("live watch: exit %d\n%s", r.code, r)
	}
	rr := runFW(t, baseEnv(), runLimit, "replay", rec, "-o", "plain", "--stall", "2s", "--summary", re)
	if rr.code != 0 {
		t.Fatalf("replay: exit %d\n%s", rr.code, rr)
	}
	var a, b attentionSummary
	if err := json.Unmarshal(readFile(t, live), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(readFile(t, re), &b); err != nil {
		t.Fatal(err)
	}
	if len(a.Attention) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("live:\n%+v\nreplayed:\n%+v", a, b)
	}
}
