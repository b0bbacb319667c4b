package model

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The ranges of the numbers the model takes from the wire. This is the one
// place that decides what a number out of range becomes: it is not used
// (the field counts as absent, as if the server had not sent it) and it is
// reported once as a Flaw, with the value as sent and why. Inside these
// ranges nothing downstream can overflow: tokens (credits × 15) stay
// finite and exact, a duration in milliseconds fits a time.Duration, a
// count fits an int on every platform, and the summary always marshals.
//
// producerSequence is stricter: an event whose sequence is not a whole
// number within int64 cannot be ordered, so the event is set aside (a
// Rejected), not flagged.
const (
	// MaxCredits bounds creditsUsed: [0, 1e12]. A run's credits are
	// capped by its maxCredits (2 500 by default).
	MaxCredits = 1e12
	// MaxDurationMs bounds durationMs: [0, one year]. Runs last minutes.
	MaxDurationMs = 366 * 24 * 3600 * 1000
	// MaxCount bounds counts (an artifact's itemCount): [0, 10⁹].
	MaxCount = 1_000_000_000
	// MaxViewport bounds a browser viewport's width and height: [0, 65 535].
	MaxViewport = 1<<16 - 1
	// MinYear and MaxYear bound occurredAt (in UTC): a time outside is
	// unknown (the JSON of a time outside 0–9999 cannot be written).
	MinYear, MaxYear = 1970, 9999
)

// Flaw is a value from the wire that the model did not use because it is out
// of range. Reported once per event and field (per distinct value for the
// response's own members).
type Flaw struct {
	EventID string `json:"eventId,omitempty"` // "" for a member of the response (creditsUsed, activeBrowserSessions)
	Field   string `json:"field"`             // e.g. "creditsUsed", "durationMs", "artifact.itemCount"
	Value   string `json:"value"`             // as sent, at most 40 bytes
	Reason  string `json:"reason"`            // e.g. "negative", "above 1e+12", "not a finite number"
}

// bounded reads the JSON number v for field and checks it against [0, hi].
// A value of another kind is not a flaw (payload types are read leniently)
// and gives ok false with no flaw; a number out of range gives ok false and
// a flaw for the decoder to report.
func (d *Decoder) bounded(v jsontext.Value, field string, hi float64) (float64, bool) {
	if v.Kind() != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	reason := ""
	switch {
	case err != nil || math.IsInf(f, 0) || math.IsNaN(f):
		reason = "not a finite number"
	case f < 0:
		reason = "negative"
	case f > hi:
		reason = "above " + strconv.FormatFloat(hi, 'g', -1, 64)
	}
	if reason != "" {
		val := string(v)
		if len(val) > 40 {
			val = val[:39] + "…"
		}
		d.flaws = append(d.flaws, Flaw{Field: field, Value: val, Reason: reason})
		return 0, false
	}
	return f, true
}

// boundedTime checks the parsed occurredAt t (raw value v) against
// MinYear..MaxYear: outside, it is unknown (zero) and a flaw.
func (d *Decoder) boundedTime(v jsontext.Value, t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	if y := t.UTC().Year(); y < MinYear || y > MaxYear {
		val := string(v)
		if len(val) > 40 {
			val = val[:39] + "…"
		}
		d.flaws = append(d.flaws, Flaw{Field: "occurredAt", Value: val, Reason: "outside the years " + strconv.Itoa(MinYear) + "–" + strconv.Itoa(MaxYear)})
		return time.Time{}
	}
	return t
}

// takeFlaws hands the flaws collected since the last call to p, naming the
// event they belong to ("" for the response's own members).
func (d *Decoder) takeFlaws(p *Poll, eventID string) {
	for _, f := range d.flaws {
		f.EventID = eventID
		p.Flaws = append(p.Flaws, f)
	}
	d.flaws = d.flaws[:0]
}

// ReasonTooDeep is the reason of an event set aside because it nests deeper
// than the JSON library reads (10 000 levels): the rest of the body is used.
const ReasonTooDeep = "the event nests deeper than 10000 levels"

// maxDepth is jsontext's nesting limit.
const maxDepth = 10000

// tooDeep reports whether the JSON value v (whose brackets match) nests
// deeper than maxDepth. Only called on a value the JSON reader refused.
func tooDeep(v []byte) bool {
	depth := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			depth--
		case '"':
			j, ok := stringEnd(v, i+1)
			if !ok {
				return false
			}
			i = j - 1
		}
	}
	return false
}

// deepEvent is the Event of a value set aside for its depth: its raw bytes,
// and its eventId when a top-level "eventId" member comes before the deep
// part.
func (d *Decoder) deepEvent(raw []byte) *Event {
	ev := d.newEvent()
	ev.Raw = raw
	if red, changed := d.secrets.RedactJSON(raw); changed {
		// Too deep to walk, so kept as redacted text: its bytes go out as
		// a set-aside event's raw value like any other.
		ev.Raw = red
	}
	if len(raw) == 0 || raw[0] != '{' {
		return ev
	}
	// Read members from the start while they are shallow.
	dec := jsontext.NewDecoder(bytes.NewReader(raw), decodeOpts...)
	if _, err := dec.ReadToken(); err != nil {
		return ev
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return ev
		}
		key := name.String()
		v, err := dec.ReadValue()
		if err != nil {
			return ev
		}
		if key == "eventId" && v.Kind() == '"' {
			ev.ID = d.str(v)
			return ev
		}
	}
	return ev
}

// describeID quotes an id from the wire for a reason: sanitised, at most 40
// characters.
func describeID(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:40], "") + "…"
	}
	return strconv.Quote(s)
}
