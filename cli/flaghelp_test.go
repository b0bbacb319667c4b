package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flag help says what a user needs: a bool flag on by default says how to
// turn it off; scrape's console flags say they are the console's; run's
// --max-credits is shown as the whole number it takes; the root's examples
// are for an installed binary.
func TestFlagHelp(t *testing.T) {
	root := (&app{}).rootCommand()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Value.Type() == "bool" && fl.DefValue == "true" && !strings.Contains(fl.Usage, "--"+fl.Name+"=false") {
				t.Errorf("%s --%s is on by default and does not say how to turn it off: %q", c.CommandPath(), fl.Name, fl.Usage)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)

	ctx := context.Background()
	out, _, _ := run(t, ctx, "scrape", "--help")
	for _, name := range []string{"--language", "--timeout", "--save-dir"} {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, name+" ") && !strings.Contains(l, "with --interact") {
				t.Errorf("scrape --help offers %s as the scrape's: %q", name, l)
			}
		}
	}
	if out, _, _ := run(t, ctx, "run", "--help"); !strings.Contains(out, "--max-credits int") {
		t.Error("run --help does not show --max-credits as an int")
	}
	if out, _, _ := run(t, ctx, "--help"); strings.Contains(out, "go run") {
		t.Error("the root's help tells an installed binary to go run")
	}
}
