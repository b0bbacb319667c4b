package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// A FILE or JOB_ID argument (export, report, replay) is read by one rule:
// an existing file, or -, is a file (a --record recording or a saved trace
// body); otherwise a UUID is a job id, whose trace is fetched from the
// service (FIRECRAWL_API_KEY); anything else is a file that cannot be
// opened.

// sourceArgs is what the argument is called in help and errors.
const sourceArgs = "a FILE (a --record file or a saved trace body; - for stdin) or a JOB_ID"

// isJobSource reports whether arg names a job rather than a file.
func isJobSource(arg string) bool {
	if arg == "-" {
		return false
	}
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	return poller.ValidateJobID(arg) == nil
}

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

// runSource is an opened FILE or JOB_ID.
type runSource struct {
	In   io.Reader
	Name string        // what messages call it
	Req  model.Request // what the run was asked (a JOB_ID's, from the archive or the service)
	// Rec is what is known of a JOB_ID besides its events: the archive's
	// record (Archived), else the service's status and list item; nil for
	// a file.
	Rec      *archive.Run
	Archived bool
	close    func()
}

func (s *runSource) Close() {
	if s != nil && s.close != nil {
		s.close()
	}
}

// openSource opens arg by the rule above. A file that cannot be read is a
// usage error. A JOB_ID is read from the archive (its record and its polls)
// when the archive holds its events, else from the service (its trace,
// status and list item, joined to what the archive holds of it: a run
// started with --detach is held with its request only). The service is
// asked with the key and address the way every command does (a.service: no
// key is a usage error, and the key joins a.secrets); its answers, a
// refusal included, are the client's typed errors.
func (a *app) openSource(ctx context.Context, arg, apiURL, apiKey string) (*runSource, error) {
	if !isJobSource(arg) {
		in, name, closeIn, err := a.openRecording(arg)
		if err != nil {
			return nil, err
		}
		return &runSource{In: in, Name: name, close: closeIn}, nil
	}
	service, id := poller.ResolveBaseURL(apiURL), strings.ToLower(arg)
	held, polls, err := a.jobFromArchive(ctx, service, id)
	switch {
	case err == nil && len(polls) > 0:
		return &runSource{In: bytes.NewReader(recordingOf(held, polls)), Name: "archived run " + id, Req: requestOfRun(held), Rec: held, Archived: true}, nil
	case err != nil && !isArchiveNotFound(err):
		return nil, err
	}
	svc, err := a.service(apiURL, apiKey)
	if err != nil {
		return nil, err
	}
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	body, err := c.Trace(ctx, id, false)
	if err != nil {
		return nil, err
	}
	at := time.Now()
	rec := &archive.Run{}
	if held != nil {
		rec = held
	}
	if l, err := c.RunLookup(ctx, id); err == nil {
		rec = archive.Merge(rec, a.serviceRecord(service, id, l))
	}
	rec = withID(rec, service, id)
	// The client redacts every answer but the trace, which the watch's
	// decoder redacts; this one is replayed, so it is redacted here.
	return &runSource{In: bytes.NewReader(a.pollRecording(rec, at, body)), Name: "run " + id, Req: requestOfRun(rec), Rec: rec}, nil
}

// serviceRecord is what the service's look-up says of a run, as a record.
func (a *app) serviceRecord(service, id string, l poller.Lookup) *archive.Run {
	r := withID(runOfRequest(l.Request), service, id)
	if l.Item != nil {
		r = archive.Merge(r, runFromInfo(a.secrets, service, l.Item))
	}
	if l.Status != nil {
		applyStatus(a.secrets, r, l.Status)
	}
	return r
}
