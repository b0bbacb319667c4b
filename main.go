// Command firewatch watches a Firecrawl agent run live, from its first trace
// event to its final outcome. The commands live in package cli.
package main

import (
	"os"

	"github.com/firewatch/firewatch/cli"
)

func main() { os.Exit(cli.Main()) }
