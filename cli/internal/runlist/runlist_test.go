package runlist

import (
	"testing"

	"github.com/firewatch/firewatch/poller"
)

// TestWithOutcome: "outcome" is added last, the service's members kept as
// they were; null while the run is not over; a line that is no object is
// left alone.
func TestWithOutcome(t *testing.T) {
	for _, tc := range []struct{ line, outcome, want string }{
		{`{"id":"a","status":"failed"}`, "cancelled", `{"id":"a","status":"failed","outcome":"cancelled"}`},
		{`{"id":"a"}` + "\n", "", `{"id":"a","outcome":null}`},
		{`{}`, "failed", `{"outcome":"failed"}`},
		{`[1]`, "failed", `[1]`},
	} {
		if got := string(withOutcome([]byte(tc.line), tc.outcome)); got != tc.want {
			t.Errorf("withOutcome(%q, %q) = %s, want %s", tc.line, tc.outcome, got, tc.want)
		}
	}
}

// TestRunWord: the table's STATUS is the outcome firewatch knows of an
// ended run, in the list's words, else the service's status.
func TestRunWord(t *testing.T) {
	known := func(o string) *poller.RunInfo {
		r := &poller.RunInfo{Status: "failed"}
		r.Known = &poller.Known{Outcome: o}
		return r
	}
	for _, tc := range []struct {
		r    *poller.RunInfo
		want string
	}{
		{&poller.RunInfo{Status: "processing"}, "processing"},
		{&poller.RunInfo{Status: "failed"}, "failed"},
		{known("cancelled"), "cancelled"},
		{known("succeeded"), "completed"},
	} {
		if got := runWord(tc.r); got != tc.want {
			t.Errorf("runWord(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
