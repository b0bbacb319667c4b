package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/poller"
)

// commandTree is every command firewatch has, by path ("firewatch runs"),
// cobra's own help and completion commands included.
func commandTree() []string {
	a := &app{print: &outputs.WriteGuard{}, stderr: &scrubWriter{}}
	root := a.rootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var paths []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		paths = append(paths, c.CommandPath())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return paths
}

// TestEveryCommandOnAFullDisk runs every command of the tree with stdout
// on a full disk (/dev/full): each exits 8 and says which output failed.
// A command without a case here fails the test, so that the next command
// follows the rule too.
func TestEveryCommandOnAFullDisk(t *testing.T) {
	srv := fullDiskAndARun(t)
	if err := srv.WaitFinished(context.Background(), srv.Jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	sink := newOTLPSink(t)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	job, scrape := srv.Jobs[0].ID, srv.ScrapeIDs[0]
	// A recording of a run that succeeded: its replay's code is 0 but
	// for the output.
	recording := filepath.Join(t.TempDir(), "run.ndjson")
	if _, errOut, code := run(t, context.Background(), "watch", job, "-o", "json", "--interval", "100ms", "--record", recording); code != 0 {
		t.Fatalf("recording: exit %d\n%s", code, errOut)
	}
	cases := map[string][][]string{
		"firewatch":                       {{job, "-o", "plain"}, {}},
		"firewatch watch":                 {{"watch", job, "-o", "json"}, {"watch", job, "-o", "plain", "--result", "-"}},
		"firewatch demo":                  {{"demo", "-o", "json", "--speed", "1000"}},
		"firewatch replay":                {{"replay", recording, "-o", "plain"}, {"replay", recording, "-o", "plain", "--result", "/dev/full"}},
		"firewatch result":                {{"result", job}, {"result", recording}},
		"firewatch serve":                 {{"serve", "--addr", "127.0.0.1:0"}},
		"firewatch version":               {{"version"}},
		"firewatch interact":              {{"interact", scrape, "--code", "console.log(2)"}, {"interact", scrape, "--code", "1+1", "-o", "json"}, {"interact", scrape, "--stop", "-o", "json"}},
		"firewatch scrape":                {{"scrape", "https://example.com"}, {"scrape", "https://example.com", "-o", "json"}},
		"firewatch archive import":        {{"archive", "import", recording}},
		"firewatch archive prune":         {{"archive", "prune", "--before", "90d"}},
		"firewatch compare":               {{"compare", recording, recording}, {"compare", recording, recording, "-o", "json"}},
		"firewatch cost":                  {{"cost"}, {"cost", "-o", "json"}},
		"firewatch history":               {{"history", "-o", "plain"}, {"history", "-o", "json"}},
		"firewatch crawl":                 {{"crawl", "https://example.com", "--detach"}, {"crawl", srv.StartCrawl("https://example.com", 5), "-o", "json", "--poll"}},
		"firewatch crawl-preview":         {{"crawl-preview", "https://example.com", "the docs"}, {"crawl-preview", "https://example.com", "the docs", "-o", "json"}},
		"firewatch export":                {{"export", fixture, "--otlp-endpoint", sink.URL}},
		"firewatch report":                {{"report", job, "--format", "md"}, {"report", fixture, "--file", "/dev/full"}},
		"firewatch runs":                  {{"runs", "-o", "plain"}, {"runs", "-o", "json"}},
		"firewatch run":                   {{"run", "a prompt", "--detach"}, {"run", "a prompt", "-o", "json"}},
		"firewatch rerun":                 {{"rerun", job, "--max-credits", "100", "--effort", "low", "--detach"}, {"rerun", job, "--max-credits", "100", "--dry-run"}},
		"firewatch follow-up":             {{"follow-up", job, "and the free tiers?", "--detach"}},
		"firewatch team":                  {{"team"}, {"team", "-o", "json"}},
		"firewatch mcp":                   {{"mcp"}},
		"firewatch help":                  {{"help"}, {"help", "runs"}},
		"firewatch completion":            {{"completion"}},
		"firewatch completion bash":       {{"completion", "bash"}},
		"firewatch completion zsh":        {{"completion", "zsh"}},
		"firewatch completion fish":       {{"completion", "fish"}},
		"firewatch completion powershell": {{"completion", "powershell"}},
	}
	// Commands whose stdout is empty: their progress goes to stderr, so a
	// full stdout changes nothing and they exit 0.
	quiet := map[string][]string{
		"firewatch archive": {"archive", "--once"},
	}
	for path, args := range quiet {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		var errOut strings.Builder
		if code := execute(context.Background(), args, strings.NewReader(""), full, &errOut, poller.Retry{}); code != 0 || strings.Contains(errOut.String(), "cannot write") {
			t.Errorf("%s: exit %d with nothing for stdout, want 0\n%s", path, code, errOut.String())
		}
		full.Close()
	}
	// The hub writes nothing to stdout either, and serves until stopped.
	serving := map[string]bool{"firewatch hub": true}
	if code, errOut := fullDiskHub(t); code != 0 || strings.Contains(errOut, "cannot write") {
		t.Errorf("firewatch hub: exit %d with nothing for stdout, want 0\n%s", code, errOut)
	}
	for _, path := range commandTree() {
		if _, ok := cases[path]; !ok && quiet[path] == nil && !serving[path] {
			t.Errorf("%s has no case for an unwritable stdout: add one here", path)
		}
	}
	for path, list := range cases {
		for _, args := range list {
			t.Run(strings.Join(append([]string{path}, args...), " "), func(t *testing.T) {
				full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer full.Close()
				var errOut strings.Builder
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var in io.Reader = strings.NewReader("")
				if path == "firewatch mcp" {
					// A server writes once asked, and its client stays:
					// stdin open until the test ends (bounded by ctx).
					pr, pw := io.Pipe()
					defer pw.Close()
					go pw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
					in = pr
					var stop context.CancelFunc
					ctx, stop = context.WithTimeout(ctx, 20*time.Second)
					defer stop()
				}
				code := execute(ctx, args, in, full, &errOut, poller.Retry{})
				if code != ExitOutput {
					t.Errorf("exit %d, want %d\n%s", code, ExitOutput, errOut.String())
				}
				if !strings.Contains(errOut.String(), "cannot write") {
					t.Errorf("stderr does not say the output failed:\n%s", errOut.String())
				}
			})
		}
	}
}
