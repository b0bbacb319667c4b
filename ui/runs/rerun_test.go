package runs

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// TestRerunForm: R opens a form filled with the run's request; an edited
// field is marked with what it was; enter starts the run with the edit
// alone, ends the screen on it and names the original and the change. At
// 80x24 the form fits as at 120x40.
func TestRerunForm(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000}, size[0], size[1])
		h.run(h.m.Init())
		job := h.srv.Jobs[0].ID
		h.key("R")
		v := h.view()
		if !strings.Contains(v, "Rerun "+job[:8]) || !strings.Contains(v, "effort      high") || !strings.Contains(v, "urls        https://www.scrapingbee.com") {
			t.Fatalf("%v: R: no form:\n%s", size, v)
		}
		for range 3 {
			h.key("tab")
		}
		for range 4 {
			h.key("backspace")
		}
		for _, r := range "low" {
			h.key(string(r))
		}
		v = h.view()
		if !strings.Contains(v, "* effort      low") || !strings.Contains(v, "was: high") || strings.Contains(v, "* prompt") {
			t.Fatalf("%v: the change is not marked:\n%s", size, v)
		}
		if lines := strings.Count(v, "\n") + 1; lines != size[1] {
			t.Fatalf("%v: %d lines", size, lines)
		}
		h.key("enter")
		starts := h.srv.Starts()
		if !h.quit || len(starts) != 1 || h.m.Chosen != starts[0].ID || h.m.RerunOf != job || !slices.Equal(h.m.RerunChanged, []string{"effort"}) {
			t.Fatalf("%v: enter: quit %v, chosen %q, rerun of %q %v, %d starts", size, h.quit, h.m.Chosen, h.m.RerunOf, h.m.RerunChanged, len(starts))
		}
		var body map[string]any
		_ = json.Unmarshal(starts[0].Body, &body)
		if body["effort"] != "low" || !strings.HasPrefix(body["prompt"].(string), "Compare the pricing") || body["urls"] == nil || body["maxCredits"] != nil {
			t.Fatalf("%v: sent %v", size, body)
		}
	}
}

// TestFollowUpKey: F types a follow-up to the selected run's thread (its
// status names it); enter starts it in that thread.
func TestFollowUpKey(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000}, 80, 24)
	h.run(h.m.Init())
	job := h.srv.Jobs[0].ID
	if err := h.srv.WaitFinished(t.Context(), job); err != nil {
		t.Fatal(err)
	}
	h.key("F") // the details are asked for first
	h.fire(0)
	h.key("F")
	for _, r := range "and the free tiers?" {
		h.key(string(r))
	}
	if v := h.view(); !strings.Contains(v, "follow-up to "+job[:8]+": and the free tiers?") {
		t.Fatalf("F: the prompt is not shown:\n%s", v)
	}
	h.key("enter")
	starts := h.srv.Starts()
	if !h.quit || len(starts) != 1 || h.m.Chosen != starts[0].ID || h.m.RerunOf != "" {
		t.Fatalf("enter: quit %v, chosen %q, %d starts", h.quit, h.m.Chosen, len(starts))
	}
	if !strings.Contains(string(starts[0].Body), `"threadId"`) {
		t.Fatalf("sent %s", starts[0].Body)
	}
}

// TestRerunReadOnly: a viewer on a hub is told that only operators may.
func TestRerunReadOnly(t *testing.T) {
	h := newHarness(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000}, 80, 24)
	h.m.cfg.ReadOnly = "viewers cannot start or cancel runs: only operators may"
	h.run(h.m.Init())
	for _, k := range []string{"R", "F"} {
		h.key(k)
		if h.m.form != nil || h.m.composing || !strings.Contains(h.view(), "only operators may") {
			t.Fatalf("%s as a viewer:\n%s", k, h.view())
		}
	}
	if len(h.srv.Starts()) != 0 {
		t.Fatal("a viewer started a run")
	}
}
