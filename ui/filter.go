package ui

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/firewatch/firewatch/model"
)

// query is the `/` filter: a substring matched against agent names, tool
// names, event kinds and messages. Lower-case queries ignore case; a query
// with an upper-case letter matches case exactly (smart case).
type query struct {
	text string
	fold bool
}

func newQuery(s string) query {
	s = strings.TrimSpace(s)
	fold := true
	for _, r := range s {
		if unicode.IsUpper(r) {
			fold = false
			break
		}
	}
	return query{text: s, fold: fold}
}

func (q query) empty() bool { return q.text == "" }

// in reports whether hay contains the query.
func (q query) in(hay string) bool {
	if q.text == "" {
		return true
	}
	if !q.fold {
		return strings.Contains(hay, q.text)
	}
	return containsFold(hay, q.text)
}

func (q query) inBytes(hay []byte) bool {
	if q.text == "" {
		return true
	}
	if !q.fold {
		return bytes.Contains(hay, []byte(q.text))
	}
	return containsFold(string(hay), q.text) // no copy: the conversion does not escape
}

// containsFold is strings.Contains ignoring case; needle is lower case.
// ASCII is compared without allocating.
func containsFold(hay, needle string) bool {
	n := len(needle)
	if n == 0 {
		return true
	}
	for i := 0; i < len(needle); i++ {
		if needle[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(hay), needle)
		}
	}
	first := needle[0]
	for i := 0; i+n <= len(hay); i++ {
		c := hay[i]
		if c >= utf8.RuneSelf {
			// Non-ASCII text: compare the rest the slow, correct way.
			return strings.Contains(strings.ToLower(hay[i:]), needle)
		}
		if lower(c) != first {
			continue
		}
		j := 1
		for ; j < n; j++ {
			if lower(hay[i+j]) != needle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// event reports whether an event matches: its agent's name, its type, and
// the text of its payload (tool name and parameters, phase and message,
// reasoning, error, artifact, outcome).
func (q query) event(e *model.Event) bool {
	if q.text == "" {
		return true
	}
	if q.in(e.Agent.Name) || q.in(string(e.Type)) {
		return true
	}
	switch p := e.Payload.(type) {
	case model.ToolCallStarted:
		return q.in(p.ToolName) || q.inBytes(p.Parameters)
	case model.ToolCallFinished:
		return q.in(p.ToolName)
	case model.ProgressReported:
		return q.in(string(p.Phase)) || q.in(p.Message)
	case model.ReasoningSummary:
		return q.in(p.Text)
	case model.ErrorOccurred:
		return q.traceError(&p.Error)
	case model.RunFinished:
		return q.in(string(p.Outcome)) || (p.Error != nil && q.traceError(p.Error))
	case model.AgentFinished:
		return q.in(string(p.Outcome)) || (p.Error != nil && q.traceError(p.Error))
	case model.ArtifactUpdated:
		a := &p.Artifact
		return q.in(a.Path) || q.in(a.ArtifactID) || q.in(string(a.Kind)) || q.in(string(a.Change))
	case model.RunCancelRequested:
		return q.in(p.Reason)
	case model.BrowserSessionStarted:
		return q.in(p.SessionID)
	case model.BrowserSessionFinished:
		return q.in(p.SessionID)
	}
	return false
}

func (q query) traceError(te *model.TraceError) bool {
	return q.in(te.Message) || q.in(string(te.Code)) || q.in(string(te.Source))
}

func (q query) agent(a *model.Agent) bool {
	return q.text == "" || q.in(a.Name) || q.in(string(a.Role))
}

func (q query) tool(t *model.ToolCall) bool {
	if q.text == "" {
		return true
	}
	return q.in(t.Name) || (t.Agent != nil && q.in(t.Agent.Name)) || q.inBytes(t.Parameters)
}

func (q query) artifact(a *model.Artifact) bool {
	if q.text == "" {
		return true
	}
	return q.in(a.Path) || q.in(a.ID) || q.in(string(a.Kind))
}

func (q query) session(b *model.BrowserSession) bool {
	if q.text == "" {
		return true
	}
	return q.in(b.ID) || (b.Agent != nil && q.in(b.Agent.Name))
}
