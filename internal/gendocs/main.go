// Command gendocs writes the per-command reference pages in docs/cli from
// firewatch's cobra commands (cobra's doc package):
//
//	go run ./internal/gendocs            # from the repository's root
//
// TestDocsUpToDate fails when the committed pages differ from what it
// writes.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra/doc"

	"github.com/firewatch/firewatch/cli"
)

//go:generate go run . -dir ../../docs/cli

func main() {
	dir := filepath.Join("docs", "cli")
	if len(os.Args) == 3 && os.Args[1] == "-dir" {
		dir = os.Args[2]
	}
	if err := generate(dir); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// generate writes one Markdown page per command into dir, and removes
// pages of commands that no longer exist.
func generate(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "firewatch*.md"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	root := cli.Command()
	// Pages link to each other by file name, from the same directory.
	link := func(name string) string { return strings.ToLower(name) }
	return doc.GenMarkdownTreeCustom(root, dir, func(string) string { return "" }, link)
}
