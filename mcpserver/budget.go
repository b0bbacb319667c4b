package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/firewatch/firewatch/text"
)

// Every result has a character budget: the length of its JSON. A call may
// ask for less or more than the default, never more than MaxBudget. Within
// it, each long string of the service's is cut to a field limit and named
// in the result's "cut" list, so a model knows what it did not see and
// which call shows it whole.
const (
	DefaultBudget = 20000
	MaxBudget     = 100000
	minBudget     = 2000
	// DefaultField is the most characters of one string of an event or
	// a listing; get_tool_call and get_artifact take MaxField.
	DefaultField = 500
	MaxField     = 20000
)

// budgetOf is the budget a call asked for, within bounds.
func budgetOf(asked int) int {
	switch {
	case asked <= 0:
		return DefaultBudget
	case asked < minBudget:
		return minBudget
	case asked > MaxBudget:
		return MaxBudget
	}
	return asked
}

// sizeOf is v's length as JSON, in characters.
func sizeOf(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

// cutter sanitises and cuts the service's strings, keeping what it cut.
type cutter struct {
	sec   *text.Secrets
	limit int      // characters of one string (runes)
	cut   []string // the paths it cut, "events[3].data.result.text (12000 characters)"
}

// str is s sanitised (no escape sequence, control or bidi character, no
// secret) and cut to the limit; path names it when cut.
func (c *cutter) str(path, s string) string {
	s = c.sec.Sanitize(s)
	n := utf8.RuneCountInString(s)
	if c.limit <= 0 || n <= c.limit {
		return s
	}
	c.cut = append(c.cut, fmt.Sprintf("%s (%d characters, %d shown)", path, n, c.limit))
	return string([]rune(s)[:c.limit]) + "…"
}

// value is a decoded JSON value with every string (keys too) gone through
// str.
func (c *cutter) value(path string, v any) any {
	switch x := v.(type) {
	case string:
		return c.str(path, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			sk := c.sec.Sanitize(k)
			out[sk] = c.value(path+"."+sk, x[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = c.value(path+"["+strconv.Itoa(i)+"]", e)
		}
		return out
	}
	return v
}

// raw decodes JSON (the service's, already redacted) and passes it through
// value; what does not decode is a string.
func (c *cutter) raw(path string, b []byte) any {
	if len(b) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return c.str(path, string(b))
	}
	return c.value(path, v)
}

// cutList is the cut paths for a result, at most max of them named.
func cutList(cut []string, max int) []string {
	if len(cut) <= max {
		return cut
	}
	out := slices.Clone(cut[:max])
	return append(out, fmt.Sprintf("… and %d more fields", len(cut)-max))
}

// sanitizeText is one line of text made inert (text.Sanitize).
func sanitizeText(s string) string { return text.Sanitize(s) }
