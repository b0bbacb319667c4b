package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// tidyFlagHelp makes every command's flag help say what it must: a bool
// flag on by default says how to turn it off.
func tidyFlagHelp(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Value.Type() == "bool" && fl.DefValue == "true" && !strings.Contains(fl.Usage, "=false") {
				fl.Usage += " (--" + fl.Name + "=false turns it off)"
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// consoleFlags marks the interact console's flags on a command where
// they only apply with another flag (scrape --interact), so that help
// does not offer them as the command's own.
func consoleFlags(cmd *cobra.Command, with string) {
	for _, name := range []string{"language", "timeout", "save-dir"} {
		if fl := cmd.Flags().Lookup(name); fl != nil {
			fl.Usage = "with " + with + ", the console's: " + strings.TrimPrefix(fl.Usage, "console: ")
		}
	}
}

// wholeNumber shows a float flag that takes whole numbers as an int in
// help ("--max-credits int").
type wholeNumber struct{ pflag.Value }

func (wholeNumber) Type() string { return "int" }
