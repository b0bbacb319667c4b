// Package golden holds what the tests of the terminal UI's packages share:
// golden files under testdata, rewritten when the test binary runs with
// -update, and the checks every rendered view must pass (safe text that fits
// its box). Only tests import it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/text"
)

// Updating reports whether the test binary runs with -update. The test
// package defines that flag (ui's comes from teatest's golden package);
// where none is defined it is false.
func Updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// Check compares got with the file testdata/name, or, with -update, writes
// got there (making its folder).
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

// Read is the file testdata/name.
func Read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// Safe fails the test when s holds a tab or anything but newlines, SGR
// sequences and text that text.Sanitize leaves as it is.
func Safe(t testing.TB, s string) {
	t.Helper()
	plain := sgr.ReplaceAllString(s, "")
	if text.Sanitize(plain) != plain || strings.ContainsRune(plain, '\t') {
		t.Fatalf("unsafe output: %q", plain)
	}
}

// Fits fails the test when s has more than h lines or a line wider than w
// cells.
func Fits(t testing.TB, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		t.Fatalf("%d lines for height %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Fatalf("line %d is %d wide (> %d): %q", i, lw, w, l)
		}
	}
}

// View checks a rendered view with Safe and Fits and returns it without
// its escape sequences: for goldens of the text alone.
func View(t testing.TB, v string, w, h int) string {
	t.Helper()
	Safe(t, v)
	Fits(t, v, w, h)
	return ansi.Strip(v)
}

// Colour checks a view rendered with colour like View and returns it as it
// is: a colour golden keeps its SGR sequences, so a change of style shows.
func Colour(t testing.TB, v string, w, h int) string {
	t.Helper()
	Safe(t, v)
	Fits(t, v, w, h)
	if !sgrColour.MatchString(v) {
		t.Fatalf("no colour in a view rendered with colour")
	}
	return v
}

// NoColour checks a view rendered without colour (NO_COLOR, --no-color)
// like View, fails when one of its SGR sequences sets a colour (bold,
// faint, underline and reverse are not colours), and returns its text: a
// NO_COLOR golden holds no ESC byte.
func NoColour(t testing.TB, v string, w, h int) string {
	t.Helper()
	Safe(t, v)
	Fits(t, v, w, h)
	if m := sgrColour.FindString(v); m != "" {
		t.Fatalf("colour %q in a view rendered without colour", m)
	}
	return ansi.Strip(v)
}

// sgrColour matches an SGR sequence with a parameter that sets a
// foreground or background colour (30-38, 40-48, 90-97, 100-107).
var sgrColour = regexp.MustCompile(`\x1b\[(?:[0-9:]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:[;:][0-9:;]*)?m`)
