package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	uicompare "github.com/firewatch/firewatch/ui/compare"
	"github.com/firewatch/firewatch/ui/screen"
)

// TestCompareScreen: the compare screen on two recordings of the simulator
// (a run that succeeded, one that failed), as a Bubble Tea program: it
// draws the comparison --output json prints, its keys switch tabs and open
// an agent's steps, q leaves with the gate's exit code (1: the outcome
// threshold is crossed) and Ctrl-C with 130.
func TestCompareScreen(t *testing.T) {
	t.Parallel()
	recs := compareRecordings(t)
	jsonOut, _, code := run(t, context.Background(), "compare", recs[0], recs[1], "-o", "json", "--fail-on", "outcome")
	if code != ExitFailed {
		t.Fatalf("compare -o json: exit %d", code)
	}

	// The screen's comparison is the one --output json prints.
	ctx := context.Background()
	secrets := text.NewSecrets()
	a := &app{stderr: &scrubWriter{w: &bytes.Buffer{}, secrets: secrets}, secrets: secrets}
	gates, err := parseFailOn("outcome")
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.comparison(ctx, recs[0], recs[1], gates, "", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c, json.Deterministic(true), jsontext.WithIndent("  "))
	if err != nil {
		t.Fatal(err)
	}
	if string(b)+"\n" != jsonOut {
		t.Fatalf("the screen's comparison differs from --output json's:\n%s\n---\n%s", b, jsonOut)
	}

	m := uicompare.New(uicompare.Config{C: c, Gates: gates, NoColor: true})
	tm := teatest.NewTestModel(t, screen.Root{S: m}, teatest.WithInitialTermSize(120, 40))
	// Each wait reads the output drawn since the last one: all of what
	// is waited for must be new.
	wait := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	wait("1 threshold crossed", "✗ failed", "toolCalls:mcp__tools__search", "! crossed")
	tm.Send(tea.KeyPressMsg{Code: '2', Text: "2"})
	wait("AGENT (ROLE)")
	tm.Send(tea.KeyPressMsg{Code: 'j', Text: "j"})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("agent pricing-researcher (subagent)")
	tm.Send(tea.KeyPressMsg{Code: '4', Text: "4"})
	wait("No final results to compare")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	res := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(screen.Root).S.(*uicompare.Model).Result()
	if res.Interrupted {
		t.Fatal("q counted as an interrupt")
	}

	// After the screen: the gate decides, as without it.
	var errOut bytes.Buffer
	a.stderr = &scrubWriter{w: &errOut, secrets: secrets}
	if code := codeOf(gateErr(a.compareScreenEnd(ctx, c, res, nil))); code != ExitFailed || !strings.Contains(errOut.String(), "crossed outcome") {
		t.Fatalf("q with a crossed threshold: exit %d, stderr %q", code, errOut.String())
	}
	if code := codeOf(gateErr(a.compareScreenEnd(ctx, c, uicompare.Result{Interrupted: true}, nil))); code != ExitInterrupted {
		t.Fatalf("Ctrl-C: exit %d", code)
	}
	same, err := a.comparison(ctx, recs[0], recs[0], gates, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if code := codeOf(gateErr(a.compareScreenEnd(ctx, same, res, nil))); code != ExitOK {
		t.Fatalf("q with no threshold crossed: exit %d", code)
	}
	if code := codeOf(gateErr(a.compareScreenEnd(ctx, c, res, context.DeadlineExceeded))); code == ExitFailed {
		t.Fatal("the screen failing exits 1, which a script reads as crossed")
	}
}

// compareRecordings records two runs of the simulator (research, which
// succeeds, and failure) into files of the test's.
func compareRecordings(t *testing.T) []string {
	t.Helper()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure"}, Speed: 200})
	dir := t.TempDir()
	recs := []string{filepath.Join(dir, "ok.ndjson"), filepath.Join(dir, "failed.ndjson")}
	for i, rec := range recs {
		if _, errOut, code := run(t, context.Background(), "watch", srv.Jobs[i].ID, "-o", "json", "--interval", "100ms", "--record", rec,
			"--api-url", srv.URL, "--api-key", srv.Key, "--archive", "off"); code != i {
			t.Fatalf("watch %d: exit %d %s", i, code, errOut)
		}
	}
	return recs
}

// TestCompareScreenHostile: a recording whose prompt, agent and tool names
// carry an OSC 52 clipboard write, a hyperlink, bidi overrides and a C1
// CSI: none of it reaches the terminal from the compare screen, on the
// metrics, the agents, the steps and a step's parameters.
func TestCompareScreenHostile(t *testing.T) {
	t.Parallel()
	recs := compareRecordings(t)
	b, err := os.ReadFile(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	evil := strings.NewReplacer(
		`"Compare the pricing`, `"Compare\u001b]8;;http://evil.example\u0007 the pricing\u202e`,
		`mcp__tools__scrape`, `mcp__tools__scr\u001b]52;c;ZXZpbA==\u0007ape\u009b31m`,
		`pricing-researcher`, `pricing\u001b[2J-researcher\u202e`,
		`https://www.scrapingbee.com/pricing/"`, `https://www.scrapingbee.com/pricing/\u001b]52;c;ZXZpbA==\u0007"`,
	).Replace(string(b))
	if evil == string(b) {
		t.Fatal("nothing replaced in the recording")
	}
	bad := filepath.Join(t.TempDir(), "hostile.ndjson")
	if err := os.WriteFile(bad, []byte(evil), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secrets := text.NewSecrets()
	a := &app{stderr: &scrubWriter{w: &bytes.Buffer{}, secrets: secrets}, secrets: secrets}
	c, err := a.comparison(ctx, recs[0], bad, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, screen.Root{S: uicompare.New(uicompare.Config{C: c})}, teatest.WithInitialTermSize(100, 30))
	var out bytes.Buffer
	read := func(what string) {
		t.Helper()
		teatest.WaitFor(t, io.TeeReader(tm.Output(), &out), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	read("toolCalls:mcp__tools__scr")
	for _, k := range []struct {
		key  tea.KeyPressMsg
		want string
	}{
		{tea.KeyPressMsg{Code: '2', Text: "2"}, "AGENT (ROLE)"},
		{tea.KeyPressMsg{Code: 'j', Text: "j"}, "-researcher"},
		{tea.KeyPressMsg{Code: tea.KeyEnter}, "agent pricing"},
		// The parameters' diff shows the escape as text.
		{tea.KeyPressMsg{Code: tea.KeyEnter}, `pricing/\u001b]52;c;ZXZpbA==\u0007"`},
	} {
		tm.Send(k.key)
		read(k.want)
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	// (The program's own window title ends in BEL: BEL is no test here.)
	for _, seq := range []string{"\x1b]52", "\x1b]8;;http", "\u202e", "\u009b"} {
		if strings.Contains(out.String(), seq) {
			t.Fatalf("%q reached the terminal:\n%q", seq, out.String())
		}
	}
}

// TestCompareTUINeedsTerminal: --output tui without a terminal is bad
// usage (2), and the default output on a pipe stays the plain text.
func TestCompareTUINeedsTerminal(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 200})
	rec := filepath.Join(t.TempDir(), "run.ndjson")
	if _, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "-o", "json", "--interval", "100ms", "--record", rec,
		"--api-url", srv.URL, "--api-key", srv.Key, "--archive", "off"); code != 0 {
		t.Fatalf("watch: exit %d %s", code, errOut)
	}
	if _, errOut, code := run(t, context.Background(), "compare", rec, rec, "-o", "tui"); code != ExitUsage || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("-o tui on a pipe: exit %d %q", code, errOut)
	}
	out, _, code := run(t, context.Background(), "compare", rec, rec)
	if code != 0 || !strings.Contains(out, "metric") || strings.Contains(out, "\x1b") {
		t.Fatalf("compare on a pipe: exit %d\n%s", code, out)
	}
}
