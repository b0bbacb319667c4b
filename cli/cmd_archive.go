package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// firewatch archive: keep the team's runs past the service's 24 hours.

type archiveOptions struct {
	Every time.Duration
	Once  bool
}

func (a *app) archiveCommand() *cobra.Command {
	o := &watchOptions{}
	ao := &archiveOptions{}
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Keep the team's runs past the service's 24 hours, in the archive",
		Long: `Page through the team's runs (GET /v2/agent) and fetch every run the archive
does not hold, or held while it was still processing: its status, trace and
artifact snapshots. Then sleep (--every) and do it again; --once does one
pass and exits (for cron or a systemd timer).

One request at a time; a 429 is waited out as everywhere else. A second
pass fetches nothing new; a pass killed halfway is completed by the next.
Each run is written in one transaction: nothing half-written.

The archive is --archive, else $FIREWATCH_ARCHIVE, else
$XDG_DATA_HOME/firewatch/archive.db (see docs/archive.md).`,
		Example: `  firewatch archive --once
  firewatch archive --every 30m
  firewatch archive import run.ndjson
  firewatch archive prune --before 90d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.archiveRun(cmd, o, ao)) },
	}
	f := cmd.Flags()
	f.DurationVar(&ao.Every, "every", 10*time.Minute, "time between passes")
	f.BoolVar(&ao.Once, "once", false, "one pass, then exit")
	o.register(cmd, flagsConnection)
	cmd.AddCommand(a.archiveImportCommand(), a.archivePruneCommand())
	return cmd
}

func (a *app) archiveRun(cmd *cobra.Command, o *watchOptions, ao *archiveOptions) error {
	if ao.Every < time.Second {
		return badUsage("--every %s: it must be at least 1s", ao.Every)
	}
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	term, _ := isTerminal(a.stderr.w)
	// The client waits out a 429 or a 5xx as poller.Retry says, each wait
	// said on stderr (on a terminal, over the progress line).
	say := func(line string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", line) }
	if term {
		say = func(line string) { fmt.Fprintf(a.stderr, "\r\x1b[Kfirewatch: %s\n", line) }
	}
	c, err := a.client(svc, nil, say)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	service := svc.baseURL
	for {
		p := &archivePass{a: a, c: c, st: st, service: service, term: term}
		err := p.run(ctx)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			if ao.Once {
				return err
			}
			fmt.Fprintf(a.stderr, "firewatch: archive: pass failed: %s; next pass in %s\n", a.secrets.Redact(err.Error()), text.Duration(ao.Every))
		}
		if ao.Once {
			return nil
		}
		t := time.NewTimer(ao.Every)
		select {
		case <-ctx.Done():
			t.Stop()
			return errInterrupted
		case <-t.C:
		}
	}
}

// archivePass is one pass of firewatch archive.
type archivePass struct {
	a       *app
	c       *poller.Client
	st      archive.Store
	service string
	term    bool

	seen, fetched, expired, requests int
	forgotten                        int // archived runs the service no longer lists
	bytes                            int64
	started                          time.Time
}

// progress says where the pass is: a line rewritten in place on a
// terminal, one line at the end otherwise.
func (p *archivePass) progress(final bool) {
	line := fmt.Sprintf("archive: %d runs seen, %d fetched, %s", p.seen, p.fetched, text.Size(int(p.bytes)))
	if p.expired > 0 {
		line += fmt.Sprintf(", %d gone before they could be fetched", p.expired)
	}
	if p.forgotten > 0 {
		line += fmt.Sprintf(", %d no longer kept by the service", p.forgotten)
	}
	switch {
	case p.term && !final:
		fmt.Fprintf(p.a.stderr, "\r\x1b[K%s", line)
	case p.term:
		fmt.Fprintf(p.a.stderr, "\r\x1b[K%s (%s)\n", line, text.Duration(time.Since(p.started)))
	case final:
		fmt.Fprintf(p.a.stderr, "firewatch: %s, %d requests, %s\n", line, p.requests, text.Duration(time.Since(p.started)))
	}
}

func (p *archivePass) run(ctx context.Context) error {
	p.started = time.Now()
	pager := p.c.RunPages()
	defer p.progress(true)
	listed := map[string]bool{}
	for !pager.Done() {
		p.requests++
		l, err := pager.Next(ctx)
		if err != nil {
			if errors.Is(err, poller.ErrCursorLoop) {
				return nil // the list did not end: nothing can be said gone
			}
			return err
		}
		ids := make([]string, 0, len(l.Runs))
		for _, r := range l.Runs {
			ids = append(ids, r.ID)
			listed[r.ID] = true
		}
		held, err := p.st.Held(ctx, p.service, ids)
		if err != nil {
			return asUsage(err)
		}
		cp := &completer{c: p.c, st: p.st, secrets: p.a.secrets, service: p.service}
		for i := range l.Runs {
			ri := &l.Runs[i]
			p.seen++
			var hp *archive.Held
			if h, ok := held[ri.ID]; ok {
				hp = &h
			}
			done, err := cp.complete(ctx, ri, hp)
			p.requests += done.requests
			p.bytes += done.bytes
			if done.fetched {
				p.fetched++
			}
			if done.gone {
				p.expired++
			}
			if err != nil {
				return err
			}
			if done.requests > 0 {
				p.progress(false)
			}
		}
		p.progress(false)
	}
	return p.markGone(ctx, listed)
}

// markGone records that the service no longer has the archived runs its
// whole list left out (it lists every run it keeps), so that history says
// "expired" and a run archived while processing is not waited for.
func (p *archivePass) markGone(ctx context.Context, listed map[string]bool) error {
	held, err := p.st.List(ctx, archive.Query{Service: p.service})
	if err != nil {
		return asUsage(err)
	}
	for i := range held {
		r := &held[i]
		if r.Expired || listed[r.ID] || !r.SortTime().Before(p.started) {
			continue
		}
		if err := p.st.MarkExpired(ctx, p.service, r.ID); err != nil {
			return asUsage(err)
		}
		p.forgotten++
	}
	return nil
}

// runFromInfo is a list item as the archive holds it.
func runFromInfo(sec *text.Secrets, service string, ri *poller.RunInfo) *archive.Run {
	r := &archive.Run{Service: service, ID: ri.ID, Prompt: ri.Prompt, Model: ri.Model, Effort: ri.Effort, URLs: ri.URLs,
		Label: ri.Label, Status: ri.Status, CreditsUsed: ri.CreditsUsed}
	if !ri.CreatedAt.IsZero() {
		t := ri.CreatedAt.UTC()
		r.CreatedAt = &t
	}
	if ri.Raw != nil {
		item, _ := sec.RedactJSON(ri.Raw)
		r.Item = bytes.Clone(item)
		var it struct {
			Options struct {
				Schema     jsontext.Value `json:"schema"`
				MaxCredits *float64       `json:"maxCredits"`
			} `json:"options"`
		}
		if json.Unmarshal(r.Item, &it) == nil {
			if it.Options.Schema.Kind() == '{' {
				r.Schema = bytes.Clone(it.Options.Schema)
			}
			r.MaxCredits = it.Options.MaxCredits
		}
	}
	return r
}

// applyStatus adds GET /v2/agent/{id}'s fields.
func applyStatus(sec *text.Secrets, r *archive.Run, s *poller.Status) {
	if s.Status != "" {
		r.Status = s.Status
	}
	if s.Model != "" {
		r.Model = s.Model
	}
	if s.Effort != "" {
		r.Effort = s.Effort
	}
	if s.CreditsUsed != nil {
		r.CreditsUsed = s.CreditsUsed
	}
	if s.ExpiresAt != nil {
		t := s.ExpiresAt.UTC()
		r.ExpiresAt = &t
	}
	if s.Data != nil {
		res, _ := sec.RedactJSON(s.Data)
		r.Result = bytes.Clone(res)
	}
}

// firewatch archive import FILE...

func (a *app) archiveImportCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "import FILE...",
		Short:   "Add --record recordings to the archive",
		Example: `  firewatch archive import runs/*.ndjson`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badUsage("archive import needs one or more recording files")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.archiveImport(cmd, args)) },
	}
}

func (a *app) archiveImport(cmd *cobra.Command, files []string) error {
	ctx := cmd.Context()
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, f := range files {
		r, polls, err := readRecording(ctx, a.secrets, f)
		if err != nil {
			return asUsage(err)
		}
		if err := st.ReplaceRun(ctx, r, polls, nil); err != nil {
			return asUsage(err)
		}
		fmt.Fprintf(a.print, "imported %s (%d polls, %d events) from %s\n", r.ID, len(polls), r.Events, text.Sanitize(f))
	}
	return nil
}

// readRecording reads a --record file into the archive's form, each poll
// redacted with sec.
func readRecording(ctx context.Context, sec *text.Secrets, file string) (*archive.Run, []archive.Poll, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", text.Sanitize(file), err)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	head, err := dec.ReadValue()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a recording: %v", text.Sanitize(file), err)
	}
	var h struct {
		Firewatch string    `json:"firewatch"`
		Version   int       `json:"version"`
		JobID     string    `json:"jobId"`
		BaseURL   string    `json:"baseUrl"`
		StartedAt time.Time `json:"startedAt"`
	}
	if json.Unmarshal(head, &h) != nil || h.Firewatch != "recording" {
		return nil, nil, fmt.Errorf("%s: not a --record recording (its first line is not a recording header)", text.Sanitize(file))
	}
	if h.Version != poller.RecordingVersion {
		return nil, nil, fmt.Errorf("%s: recording version %d is not supported", text.Sanitize(file), h.Version)
	}
	if poller.ValidateJobID(h.JobID) != nil {
		return nil, nil, fmt.Errorf("%s: the recording names no valid job id", text.Sanitize(file))
	}
	var polls []archive.Poll
	for {
		v, err := dec.ReadValue()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", text.Sanitize(file), err)
		}
		var pl struct {
			ReceivedAt time.Time `json:"receivedAt"`
		}
		_ = json.Unmarshal(v, &pl)
		line := bytes.Clone(v)
		line, _ = sec.RedactJSON(line)
		polls = append(polls, archive.Poll{ReceivedAt: pl.ReceivedAt, Line: bytes.Clone(line)})
	}
	service := h.BaseURL
	if service == "" {
		service = poller.ResolveBaseURL("")
	}
	r := &archive.Run{Service: strings.TrimRight(service, "/"), ID: strings.ToLower(h.JobID)}
	if !h.StartedAt.IsZero() {
		t := h.StartedAt.UTC()
		r.StartedAt = &t
	}
	d, store, err := deriveFromRecording(ctx, data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", text.Sanitize(file), err)
	}
	// The header's request (what the run was asked, its cap) joins it.
	r = archive.Merge(archive.Merge(r, runOfRequest(store.Request())), d)
	return r, polls, nil
}

// firewatch archive prune

type pruneOptions struct {
	Before string
	Run    string
}

func (a *app) archivePruneCommand() *cobra.Command {
	po := &pruneOptions{}
	cmd := &cobra.Command{
		Use:   "prune (--before AGE | --run ID)",
		Short: "Delete archived runs, and say how much",
		Example: `  firewatch archive prune --before 90d
  firewatch archive prune --run 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.archivePrune(cmd, po)) },
	}
	cmd.Flags().StringVar(&po.Before, "before", "", "delete runs created before this age (90d, 12w, 36h, or an RFC 3339 date)")
	cmd.Flags().StringVar(&po.Run, "run", "", "delete this run")
	return cmd
}

func (a *app) archivePrune(cmd *cobra.Command, po *pruneOptions) error {
	if (po.Before == "") == (po.Run == "") {
		return badUsage("archive prune needs one of --before AGE or --run ID")
	}
	var before time.Time
	if po.Before != "" {
		t, err := parseAge(po.Before, time.Now())
		if err != nil {
			return badUsage("--before %q: %v", po.Before, err)
		}
		before = t
	}
	if po.Run != "" && poller.ValidateJobID(po.Run) != nil {
		return badUsage("--run %q: a job id is a UUID", text.Sanitize(po.Run))
	}
	ctx := cmd.Context()
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := st.Prune(ctx, "", before, strings.ToLower(po.Run))
	if err != nil {
		return asUsage(err)
	}
	_, err = fmt.Fprintf(a.print, "pruned %d runs (%d polls, %s)\n", p.Runs, p.Polls, text.Size(int(p.Bytes)))
	return err
}
