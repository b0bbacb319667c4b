package export

import (
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// A run that hit its cap: both reports say so in its budget item, which
// is neither "still open" nor cleared.
func TestReportCapReached(t *testing.T) {
	bodies, maxCredits := attentiontest.SimPolls(t, sim.ScenarioBurn, 2*time.Second)
	s := model.NewStore()
	s.SetRequest(model.Request{MaxCredits: float64(maxCredits)})
	for _, b := range bodies {
		if _, err := s.Ingest(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{FormatMarkdown, FormatHTML} {
		var out strings.Builder
		if err := Report(&out, s, f, ReportOptions{}); err != nil {
			t.Fatal(err)
		}
		r := out.String()
		if !strings.Contains(r, "the run hit its 1,000-credit cap and stopped") || strings.Contains(r, "still open") || strings.Contains(r, "cleared") {
			t.Errorf("%s: the budget of a run that hit its cap:\n%s", f, r)
		}
	}
}
