package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/text"
)

// Command is firewatch's command tree, for the reference pages in docs/cli
// (internal/gendocs); it runs nothing.
func Command() *cobra.Command {
	secrets := text.NewSecrets()
	a := &app{stdout: io.Discard, stderr: &scrubWriter{w: io.Discard, secrets: secrets}, secrets: secrets}
	root := a.rootCommand()
	root.DisableAutoGenTag = true
	return root
}
