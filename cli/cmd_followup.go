package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/rerun"
	"github.com/firewatch/firewatch/poller"
)

// firewatch follow-up JOB_ID PROMPT: the next turn of the run's thread.

type followUpOptions struct {
	Schema string
	Detach bool
}

func (a *app) followUpCommand() *cobra.Command {
	o := &watchOptions{}
	fo := &followUpOptions{}
	cmd := &cobra.Command{
		Use:   "follow-up JOB_ID PROMPT",
		Short: "Continue a run's thread with a follow-up prompt, and watch the new turn",
		Long: `Start the next turn of the thread JOB_ID is in (POST /v2/agent with its
threadId) and watch it as run does. The new turn is a run of its own (a new
id); without --schema it keeps the thread's schema (the service inherits the
previous turn's). The thread is the archive's record of the run, else the
service's status.

The service refuses a follow-up, exit 6, when a turn of the thread is still
running (it names that run: watch it, then follow up), when the thread has
expired, is not known, or threads are turned off for the team.`,
		Example: `  firewatch follow-up $JOB "Now add the enterprise plans"
  firewatch follow-up $JOB "Only the free tiers, as a table" --max-credits 200 --detach`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badUsage("follow-up takes a JOB_ID and a PROMPT (quote it), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.followUp(cmd, o, fo, args[0], args[1])) },
	}
	f := cmd.Flags()
	f.StringVar(&fo.Schema, "schema", "", "JSON Schema of the new turn's result: a `FILE`, or the JSON itself (default: the thread's)")
	f.BoolVar(&fo.Detach, "detach", false, "print the new run's id on stdout and exit without watching")
	o.register(cmd, flagsConnection|flagsPolling|flagsOutput|flagsOTLP|flagsNotify)
	o.registerResult(f)
	if mc := f.Lookup("max-credits"); mc != nil {
		mc.Usage = "the new turn's credit cap, a whole number sent as maxCredits (the service's default: 2500)"
		mc.Value = wholeNumber{mc.Value}
	} else {
		f.String("max-credits", "", "the new turn's credit cap (maxCredits; the service's default: 2500)")
	}
	return cmd
}

func (a *app) followUp(cmd *cobra.Command, o *watchOptions, fo *followUpOptions, id, prompt string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	id = strings.ToLower(strings.TrimSpace(id))
	if err := poller.ValidateJobID(id); err != nil {
		return asUsage(err)
	}
	req := poller.AgentRequest{Prompt: prompt}
	f := cmd.Flags()
	if mc := f.Lookup("max-credits"); mc != nil && mc.Changed {
		n, err := rerun.WholeCredits(mc.Value.String())
		if err != nil {
			return err
		}
		req.MaxCredits = n
	}
	if f.Changed("schema") {
		s, err := readJSONSchema(fo.Schema)
		if err != nil {
			return err
		}
		req.Schema = s
	}
	if err := req.Validate(); err != nil {
		return asUsage(err)
	}
	ctx := cmd.Context()
	c, svc, err := a.connect(o)
	if err != nil {
		return err
	}
	tid, err := a.threadOf(ctx, c, svc.baseURL, id)
	if err != nil {
		return err
	}
	req.ThreadID = tid
	_, err = a.startAndWatch(cmd, o, startSpec{what: "follow-up", req: req, maxCredits: req.MaxCredits, detach: fo.Detach})
	return err
}

// threadOf is the thread run id is in: the archive's record, else the
// service's status.
func (a *app) threadOf(ctx context.Context, c *poller.Client, service, id string) (string, error) {
	if st, err := a.openArchive(ctx, readArchive, nil); err == nil && st != nil {
		r, gerr := st.Get(ctx, service, id)
		st.Close()
		if gerr == nil && r.ThreadID != "" {
			return r.ThreadID, nil
		}
	} else if err != nil {
		return "", err
	}
	s, err := c.Status(ctx, id)
	if err != nil {
		return "", err
	}
	if s.ThreadID == "" {
		return "", &threadError{Msg: "the service does not say which thread run " + id + " is in (a run from before threads, or a service without them): start a new run with firewatch run or firewatch rerun"}
	}
	return s.ThreadID, nil
}
