package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/firewatch/firewatch/poller"
)

// service is where a command talks to: the base URL and the API key,
// resolved and checked once, before any request and any file.
type service struct {
	baseURL string
	key     string
}

// noKey is the usage error when no key was given.
const noKey = "no API key: set FIRECRAWL_API_KEY (export FIRECRAWL_API_KEY=fc-...; keys are on https://www.firecrawl.dev/app/api-keys)"

// resolveKey is the one place the API key is read: --api-key if given,
// else $FIRECRAWL_API_KEY, without surrounding white space (a key read
// with $(cat file) keeps its newline).
func resolveKey(flag string) string {
	if s := strings.TrimSpace(flag); s != "" {
		return s
	}
	return strings.TrimSpace(os.Getenv(poller.EnvAPIKey))
}

// haveKey reports whether a key was given, without using it.
func haveKey(flag string) bool { return resolveKey(flag) != "" }

// service resolves the address and the key of a command's flags and checks
// them (poller.Config.Check, no client made). The key joins a.secrets at
// once, so every output path redacts it from then on. No key is bad usage.
func (a *app) service(apiURL, apiKey string) (service, error) {
	s := service{baseURL: a.baseURLOf(apiURL), key: a.keyOf(apiKey)}
	if s.key == "" {
		return s, badUsage(noKey)
	}
	return s, a.use(s)
}

// use checks s and adds its key to the secrets: service's second half, for
// a key firewatch made itself (the demo's simulator).
func (a *app) use(s service) error {
	a.secrets.Add(s.key)
	if err := (poller.Config{BaseURL: s.baseURL, APIKey: s.key}).Check(); err != nil {
		return asUsage(err)
	}
	return nil
}

// client makes the client for s, redacting with a.secrets and asking again
// as a.retry says; each wait is said on stderr, or by say when it is set
// (the terminal UI's footer). d (may be nil) gets its debug lines.
func (a *app) client(s service, d *debugLog, say func(string)) (*poller.Client, error) {
	if say == nil {
		say = func(line string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", line) }
	}
	r := a.retry
	r.Notify = func(w poller.Wait) { say(w.Err.Op + ": " + w.String()) }
	cfg := poller.Config{BaseURL: s.baseURL, APIKey: s.key, Secrets: a.secrets, Retry: &r, HTTPClient: a.httpClient}
	if d != nil {
		cfg.Logf = d.Printf
	}
	c, err := poller.New(cfg)
	if err != nil {
		return nil, asUsage(err)
	}
	return c, nil
}
