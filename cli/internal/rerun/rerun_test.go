package rerun

import (
	"errors"
	"slices"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/poller"
)

func noSchema(string) (jsontext.Value, error) { return nil, errors.New("no schema here") }

// TestChanges: the flags given change the original's request and are
// named; a field the original lacks that no flag gives, or a model the
// service does not run, is bad usage before any request.
func TestChanges(t *testing.T) {
	or := &Original{From: "the archive", Req: poller.AgentRequest{Prompt: "find plans", Effort: "high", MaxCredits: 100}, CapSet: true}
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return slices.Contains(flags, f) }
	}
	ro := &Options{Effort: " LOW ", AddURLs: []string{"https://example.com"}}
	req, changed, err := ro.Changes(or, given("effort"), "", noSchema)
	if err != nil || req.Effort != "low" || !slices.Equal(changed, []string{"urls", "effort"}) {
		t.Fatalf("req %+v changed %v err %v", req, changed, err)
	}
	if _, _, err := (&Options{Model: "gpt"}).Changes(or, given("model"), "", noSchema); exitcode.Code(err) != exitcode.Usage {
		t.Errorf("unknown model: %v", err)
	}
	lacking := &Original{From: "the service's list", Req: poller.AgentRequest{Prompt: "x"}}
	if _, _, err := (&Options{}).Changes(lacking, given(), "", noSchema); exitcode.Code(err) != exitcode.Usage {
		t.Errorf("no cap known: %v", err)
	}
	if req, _, err := (&Options{}).Changes(lacking, given("max-credits"), "150", noSchema); err != nil || req.MaxCredits != 150 {
		t.Errorf("--max-credits 150: %+v %v", req, err)
	}
}
