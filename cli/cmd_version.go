package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print firewatch's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			printVersion(a.print)
			return nil
		},
	}
}

// versionOnly reports whether args are just "version". Scripts and shell
// prompts run it often, so it is answered before the command tree is built
// (and, in Main, before the signal handlers are set up); "version --help"
// and the like still go through cobra.
func versionOnly(args []string) bool { return len(args) == 1 && args[0] == "version" }

// printVersion writes the line `firewatch version` prints.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "firewatch %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
