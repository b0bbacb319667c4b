package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/firewatch/firewatch/poller"
)

// The acting tools, added only with Config.AllowActions: cancel_run and
// start_run. Each try is logged and told to the backend (who asked:
// "mcp:<client>", and the person on a hub), which keeps who acted in the
// run's archive record.

// CancelIn is cancel_run's input.
type CancelIn struct {
	Run string `json:"run" jsonschema:"the run's id"`
}

// CancelOut is cancel_run's result.
type CancelOut struct {
	Run       string `json:"run"`
	Cancelled bool   `json:"cancel_requested" jsonschema:"the service took the request: the run stops soon (wait_for_run sees it end)"`
	By        string `json:"by"`
}

// StartIn is start_run's input.
type StartIn struct {
	Prompt     string   `json:"prompt" jsonschema:"what the agent is to do"`
	URLs       []string `json:"urls,omitempty" jsonschema:"http(s) URLs the agent starts from"`
	MaxCredits int      `json:"max_credits" jsonschema:"the run's credit cap: required, at most the budget firewatch mcp was given (--budget)"`
	Model      string   `json:"model,omitempty"`
	Effort     string   `json:"effort,omitempty" jsonschema:"low, medium or high"`
}

// StartOut is start_run's result.
type StartOut struct {
	Run        string `json:"run" jsonschema:"the new run's id: wait_for_run follows it"`
	MaxCredits int    `json:"max_credits"`
	By         string `json:"by"`
}

func (s *Server) addActionTools() {
	addTool(s, &mcp.Tool{Name: "cancel_run",
		Annotations: &mcp.ToolAnnotations{Title: "Cancel a run", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &yes},
		Description: "Asks the service to cancel a running agent run (it stops what it is doing; what it spent is billed). " +
			"Logged and kept in the run's record with who asked. A finished or already cancelled run is refused (409)."},
		s.cancelRun)
	addTool(s, &mcp.Tool{Name: "start_run",
		Annotations: &mcp.ToolAnnotations{Title: "Start a run (spends credits)", DestructiveHint: &no, OpenWorldHint: &yes},
		Description: fmt.Sprintf("Starts a Firecrawl agent run, which spends the team's credits. max_credits is required and may be at most %g "+
			"(firewatch mcp's --budget). Logged and kept in the run's record with who asked. Returns the run's id: wait_for_run follows it.", s.cfg.Budget)},
		s.startRun)
}

func (s *Server) cancelRun(ctx context.Context, req *mcp.CallToolRequest, in CancelIn) (*mcp.CallToolResult, CancelOut, error) {
	id := strings.TrimSpace(in.Run)
	if !validID(id) {
		return nil, CancelOut{}, errors.New("run: give a run id (a UUID, as list_runs shows it)")
	}
	who := s.who(req)
	err := s.cfg.Backend.Act().Cancel(withClient(ctx, req), id)
	s.cfg.Backend.Acted(ctx, who, "cancel", id, err)
	if err != nil {
		s.logf("%s: cancelling run %s failed: %v", who, id, err)
		return nil, CancelOut{}, s.toolError(err)
	}
	s.logf("%s cancelled run %s", who, id)
	return nil, CancelOut{Run: id, Cancelled: true, By: who}, nil
}

func (s *Server) startRun(ctx context.Context, req *mcp.CallToolRequest, in StartIn) (*mcp.CallToolResult, StartOut, error) {
	who := s.who(req)
	switch {
	case in.MaxCredits <= 0:
		return nil, StartOut{}, errors.New("max_credits: required, a positive number of credits no larger than the budget")
	case float64(in.MaxCredits) > s.cfg.Budget:
		s.logf("%s: a start asking max_credits %d was refused: over the budget %g", who, in.MaxCredits, s.cfg.Budget)
		return nil, StartOut{}, fmt.Errorf("max_credits %d is over this server's budget of %g credits: ask for at most %g, or ask the person to raise firewatch mcp's --budget",
			in.MaxCredits, s.cfg.Budget, s.cfg.Budget)
	}
	ar := poller.AgentRequest{Prompt: in.Prompt, URLs: in.URLs, MaxCredits: in.MaxCredits, Model: in.Model, Effort: in.Effort}
	if err := ar.Validate(); err != nil {
		return nil, StartOut{}, errors.New(s.sec.Sanitize(err.Error()))
	}
	id, err := s.cfg.Backend.Act().StartAgent(withClient(ctx, req), ar)
	s.cfg.Backend.Acted(ctx, who, "start", id, err)
	if err != nil {
		s.logf("%s: starting a run failed: %v", who, err)
		return nil, StartOut{}, s.toolError(err)
	}
	s.logf("%s started run %s (max_credits %d)", who, id, in.MaxCredits)
	return nil, StartOut{Run: s.sec.Sanitize(id), MaxCredits: in.MaxCredits, By: who}, nil
}
