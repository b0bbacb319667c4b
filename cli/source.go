package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/poller"
)

// A FILE or JOB_ID argument (export, report, replay, compare, result) is
// read by one rule, archiving.Reader's, with the command's archive
// (openArchive, readArchive), key and client (service, client) and files
// (openRecording).

// sourceArgs is what the argument is called in help and errors.
const sourceArgs = "a FILE (a --record file or a saved trace body; - for stdin) or a JOB_ID"

// sourceFlags registers --api-url and --api-key, for a JOB_ID, unless the
// command has them.
func sourceFlags(f *pflag.FlagSet, apiURL, apiKey *string) {
	if f.Lookup("api-url") == nil {
		f.StringVar(apiURL, "api-url", "", "service base URL for a JOB_ID (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
	}
	if f.Lookup("api-key") == nil {
		f.StringVar(apiKey, "api-key", "", "API key for a JOB_ID; prefer $FIRECRAWL_API_KEY")
	}
}

// reader reads a FILE or JOB_ID as every command does: the archive opened
// for reading, the service asked with the key and address the way every
// command asks it (no key is a usage error, and the key joins a.secrets),
// a file that cannot be read a usage error.
func (a *app) reader() *archiving.Reader {
	return &archiving.Reader{Secrets: a.secrets, Archive: a.readArchiveStore, File: a.openRecording, JobsOnly: a.hub != nil,
		BaseURL: a.baseURLOf,
		Client: func(apiURL, apiKey string) (*poller.Client, error) {
			svc, err := a.service(apiURL, apiKey)
			if err != nil {
				return nil, err
			}
			return a.client(svc, nil, nil)
		}}
}

// readRun opens arg, replays it and makes its record (archiving.Reader);
// a file it cannot replay is bad usage.
func (a *app) readRun(ctx context.Context, arg, apiURL, apiKey string) (*archiving.RunRead, error) {
	return a.readRunCapped(ctx, arg, apiURL, apiKey, 0)
}

// readRunCapped is readRun with the run's cap given (report's
// --max-credits; 0: none): the figures are then derived with it.
func (a *app) readRunCapped(ctx context.Context, arg, apiURL, apiKey string, maxCredits float64) (*archiving.RunRead, error) {
	rr, err := a.reader().ReadRun(ctx, arg, apiURL, apiKey, maxCredits)
	if errors.As(err, new(*archiving.UnreadableError)) {
		return nil, asUsage(err)
	}
	return rr, err
}
