package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// Command is firewatch's command tree, for the reference pages in docs/cli
// (internal/gendocs); it runs nothing.
func Command() *cobra.Command {
	a := &app{stdin: nil, stdout: io.Discard, stderr: &scrubWriter{w: io.Discard}}
	root := a.rootCommand()
	a.addRunsCommands(root)
	root.DisableAutoGenTag = true
	return root
}
