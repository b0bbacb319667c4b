package linediff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
)

func TestLinesAndFolding(t *testing.T) {
	a := strings.Split("a b c d e f g h i j k l m n o p", " ")
	b := strings.Split("a b c d e f g X h i j k l m n o p", " ")
	r := Lines(a, b, 2)
	var got []string
	for _, l := range r.Lines {
		switch l.Op {
		case Gap:
			got = append(got, fmt.Sprintf("…%d", l.Skipped))
		case Insert:
			got = append(got, fmt.Sprintf("+%s@%d", l.Text, l.New))
		case Delete:
			got = append(got, fmt.Sprintf("-%s@%d", l.Text, l.Old))
		default:
			got = append(got, fmt.Sprintf("%s@%d/%d", l.Text, l.Old, l.New))
		}
	}
	if strings.Join(got, " ") != "…5 f@6/6 g@7/7 +X@8 h@8/9 i@9/10 …7" {
		t.Fatal(strings.Join(got, " "))
	}
	if r.Added != 1 || r.Removed != 0 || r.Summary(false) != "+1 −0 line" {
		t.Fatalf("%+v %s", r, r.Summary(false))
	}

	// Same input: all lines, no changes.
	same := Lines(a, a, 2)
	if !same.Same() || len(same.Lines) != len(a) || same.Summary(false) != "no changes" {
		t.Fatalf("%+v", same)
	}
	// From nothing, and to nothing.
	if r := Lines(nil, b, 3); r.Added != len(b) || r.Removed != 0 {
		t.Fatalf("%+v", r)
	}
	if r := Compute(model.KindText, "x\ny\n", "", 3); r.Removed != 2 || r.Added != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestNotJSON(t *testing.T) {
	r := Compute(model.KindJSON, `{"a":1}`, "oops {", 3)
	if r.JSON || r.Note != "the new version is not JSON: compared as text" || r.Same() {
		t.Fatalf("%+v", r)
	}
	// Different formatting of the same JSON is no change.
	if r := Compute(model.KindJSON, `{"a": [1, 2]}`, "{\n \"a\":[1,2]\n}", 3); !r.Same() {
		t.Fatalf("%+v", r)
	}
}

func TestJSONLines(t *testing.T) {
	lines, ok := JSONLines(jsontext.Value(`{"b":[1,{"x":"\u001b"}],"a":{},"s":"` + strings.Repeat("y", 500) + `"}`))
	if !ok {
		t.Fatal("not ok")
	}
	want := []string{
		"{",
		`  "b": [`,
		"    1,",
		"    {",
		`      "x": "\u001b"`,
		"    }",
		"  ],",
		`  "a": {},`,
		`  "s": "` + strings.Repeat("y", 500) + `"`,
		"}",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s", strings.Join(lines, "\n"))
	}
	for _, bad := range []string{"a\tb\nc\x1b[0m", "", "1 2", `{"a":1,}`, `[1`} {
		if lines, ok := JSONLines(jsontext.Value(bad)); ok || lines != nil {
			t.Errorf("%q: %v %q", bad, ok, lines)
		}
	}
}
