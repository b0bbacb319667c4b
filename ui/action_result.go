package ui

import (
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// resultArtifact is the run's result: the artifact "result", else the
// json artifact updated last; nil when there is none yet.
func resultArtifact(s *model.Store) *model.Artifact {
	if a := s.Artifact("result"); a != nil {
		return a
	}
	var best *model.Artifact
	for _, a := range s.Artifacts() {
		if a.Kind != model.KindJSON {
			continue
		}
		if best == nil || a.Latest().Event.Pos() > best.Latest().Event.Pos() {
			best = a
		}
	}
	return best
}

// openResult is a: the result artifact's detail.
func (m *Model) openResult() {
	a := resultArtifact(m.env.store)
	if a == nil {
		m.env.flash = "no result yet: the run has no json artifact"
		return
	}
	m.push(newArtifactView(m.env, a))
}

// resultHint is what the banner says about a.
func (m *Model) resultHint() string {
	a := resultArtifact(m.env.store)
	if a == nil {
		return ""
	}
	return "a shows the result (" + describe.Count(len(a.Versions), "version") + ")"
}
