package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDocsUpToDate: the committed reference pages are what the commands
// say now (run `go run ./internal/gendocs` after changing a command).
func TestDocsUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "docs", "cli")
	want, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	have, _ := filepath.Glob(filepath.Join(committed, "firewatch*.md"))
	if len(want) == 0 {
		t.Fatal("no pages generated")
	}
	if len(have) != len(want) {
		t.Errorf("docs/cli has %d pages, the commands make %d: run go run ./internal/gendocs", len(have), len(want))
	}
	for _, f := range want {
		name := filepath.Base(f)
		gen, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Errorf("docs/cli/%s is missing: run go run ./internal/gendocs", name)
			continue
		}
		if string(got) != string(gen) {
			t.Errorf("docs/cli/%s differs from what the commands say: run go run ./internal/gendocs", name)
		}
	}
}
