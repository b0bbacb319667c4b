// Command firewatch watches a Firecrawl agent run live, from its first trace
// event to its final outcome. The commands live in package cli.
package main

import (
	"os"

	// The pinned stack, kept in go.mod for the packages that use it.
	_ "charm.land/bubbles/v2/key"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"

	"github.com/firewatch/firewatch/cli"
	// Maps the executable's code in at once, early in start-up.
	_ "github.com/firewatch/firewatch/internal/prefault"
)

func main() { os.Exit(cli.Main()) }
