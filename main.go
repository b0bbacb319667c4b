// Command firewatch watches a Firecrawl agent run live, from its first trace
// event to its final outcome.
package main

import (
	_ "charm.land/bubbles/v2/key"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/go-json-experiment/json"
	_ "github.com/google/uuid"
	_ "github.com/spf13/cobra"
)

func main() {}
