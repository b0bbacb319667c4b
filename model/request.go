package model

import (
	"unicode/utf8"

	"github.com/firewatch/firewatch/text"
)

// Request is what the run was asked to do, as far as firewatch knows it:
// from the POST that started it, the run's status and the team's list, or a
// recording's header. Every field may be empty: a run watched by id from a
// saved trace body knows none of it.
type Request struct {
	Prompt     string
	Model      string
	Effort     string
	URLs       []string
	MaxCredits float64 // the run's cap; 0 when not known
}

// IsZero reports whether nothing is known.
func (r Request) IsZero() bool {
	return r.Prompt == "" && r.Model == "" && r.Effort == "" && len(r.URLs) == 0 && r.MaxCredits == 0
}

// Clean returns r with every string sanitised (it may come from the wire
// or a file) and a cap out of range dropped.
func (r Request) Clean() Request {
	out := Request{Prompt: text.Sanitize(cut(r.Prompt, maxPromptBytes)), Model: text.Sanitize(cut(r.Model, 200)), Effort: text.Sanitize(cut(r.Effort, 200))}
	for _, u := range r.URLs {
		if len(out.URLs) == maxRequestURLs {
			break
		}
		out.URLs = append(out.URLs, text.Sanitize(cut(u, 4096)))
	}
	if r.MaxCredits > 0 && r.MaxCredits <= MaxCredits {
		out.MaxCredits = r.MaxCredits
	}
	return out
}

// maxPromptBytes bounds the prompt kept: the service takes 10 000
// characters; a hostile answer or file can send any length.
const maxPromptBytes = 64 << 10

// cut keeps at most n bytes of s, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// maxRequestURLs bounds the urls kept: a hostile file or answer can list
// any number.
const maxRequestURLs = 100

// Merge fills what r does not know from o.
func (r Request) Merge(o Request) Request {
	if r.Prompt == "" {
		r.Prompt = o.Prompt
	}
	if r.Model == "" {
		r.Model = o.Model
	}
	if r.Effort == "" {
		r.Effort = o.Effort
	}
	if len(r.URLs) == 0 {
		r.URLs = o.URLs
	}
	if r.MaxCredits == 0 {
		r.MaxCredits = o.MaxCredits
	}
	return r
}

// SetRequest records what the run was asked to do (cleaned); what s
// already knows is kept.
func (s *Store) SetRequest(r Request) { s.request = s.request.Merge(r.Clean()) }

// Request is what the run was asked to do, as far as it is known.
func (s *Store) Request() Request { return s.request }
