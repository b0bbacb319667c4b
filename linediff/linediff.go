// Package linediff is what changed between two versions of a value, line
// by line: for JSON, both versions pretty-printed (JSONLines: members in the
// order sent, strings as text.Quote shows them) and compared line by line;
// for text, markdown and HTML, the sanitised lines compared. The result is
// a list of lines marked +, - or unchanged, with runs of unchanged lines
// beyond the context folded into a Gap, and a summary ("+12 −3 lines").
//
// Both compare/ (the results of two runs) and ui/diff (the scrollable view
// of an artifact's versions) use it. Pure: no I/O, no terminal.
//
// Compute may take a moment on megabytes of input (the line comparison is
// bounded, so it never runs away: on very different inputs it may report
// more changed lines than strictly needed): the UI calls it in a command for
// large snapshots.
package linediff

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Op is what happened to a line.
type Op int8

const (
	Equal  Op = iota
	Insert    // only in the new version
	Delete    // only in the old version
	Gap       // unchanged lines left out (Line.Skipped of them)
)

// Line is one line of the diff.
type Line struct {
	Op   Op
	Text string // sanitised; "" for a Gap
	// Old and New are the line's 1-based numbers in each version, 0 where
	// it has none.
	Old, New int
	// Skipped is the number of unchanged lines a Gap stands for.
	Skipped int
}

// Result is a computed diff.
type Result struct {
	Lines          []Line
	Added, Removed int
	// JSON is set when both versions were compared as JSON.
	JSON bool
	// Note says how the versions were compared when it is not obvious
	// ("not JSON: compared as text").
	Note string
}

// DefaultContext is the number of unchanged lines kept around each change.
const DefaultContext = 3

// Same reports whether the versions have no differences.
func (r Result) Same() bool { return r.Added == 0 && r.Removed == 0 }

// Summary is "+12 −3 lines", or "no changes"; ascii uses "-" for "−".
func (r Result) Summary(ascii bool) string {
	if r.Same() {
		return "no changes"
	}
	minus := "−"
	if ascii {
		minus = "-"
	}
	unit := "lines"
	if r.Added+r.Removed == 1 {
		unit = "line"
	}
	return fmt.Sprintf("+%d %s%d %s", r.Added, minus, r.Removed, unit)
}

// Compute compares two snapshots of an artifact of kind: as JSON for json
// (as text, with a note, when either is not JSON), as text otherwise.
func Compute(kind model.ArtifactKind, old, new string, context int) Result {
	if kind == model.KindJSON {
		a, okA := JSONLines(jsontext.Value(old))
		b, okB := JSONLines(jsontext.Value(new))
		if okA && okB {
			r := Lines(a, b, context)
			r.JSON = true
			return r
		}
		r := Lines(textLines(old), textLines(new), context)
		switch {
		case !okA && !okB:
			r.Note = "neither version is JSON: compared as text"
		case !okA:
			r.Note = "the old version is not JSON: compared as text"
		default:
			r.Note = "the new version is not JSON: compared as text"
		}
		return r
	}
	return Lines(textLines(old), textLines(new), context)
}

// textLines sanitises s and splits it into lines, tabs expanded.
func textLines(s string) []string {
	s = text.Sanitize(s)
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = text.ExpandTabs(l)
	}
	return lines
}

// Lines compares two lists of lines (already safe to show), keeping context
// unchanged lines around each change (negative: DefaultContext).
func Lines(a, b []string, context int) Result {
	if context < 0 {
		context = DefaultContext
	}
	var full []Line
	i, j := 0, 0
	equal := func(n int) {
		for k := 0; k < n; k++ {
			full = append(full, Line{Op: Equal, Text: a[i], Old: i + 1, New: j + 1})
			i++
			j++
		}
	}
	var r Result
	for _, d := range lcs.DiffLines(a, b) {
		equal(d.Start - i)
		for ; i < d.End; i++ {
			full = append(full, Line{Op: Delete, Text: a[i], Old: i + 1})
			r.Removed++
		}
		for ; j < d.ReplEnd; j++ {
			full = append(full, Line{Op: Insert, Text: b[j], New: j + 1})
			r.Added++
		}
	}
	equal(len(a) - i)
	r.Lines = fold(full, context)
	return r
}

// fold replaces runs of unchanged lines longer than the context allows with
// a Gap.
func fold(full []Line, context int) []Line {
	var out []Line
	for k := 0; k < len(full); {
		if full[k].Op != Equal {
			out = append(out, full[k])
			k++
			continue
		}
		end := k
		for end < len(full) && full[end].Op == Equal {
			end++
		}
		keepHead, keepTail := context, context
		if k == 0 {
			keepHead = 0 // nothing before it to give context to
		}
		if end == len(full) {
			keepTail = 0
		}
		if n := end - k; n > keepHead+keepTail && !(k == 0 && end == len(full)) {
			out = append(out, full[k:k+keepHead]...)
			out = append(out, Line{Op: Gap, Skipped: n - keepHead - keepTail})
			out = append(out, full[end-keepTail:end]...)
		} else {
			out = append(out, full[k:end]...)
		}
		k = end
	}
	return out
}
