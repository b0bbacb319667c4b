package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// The plain watcher: what a program written with the standard library
// alone does. Every interval it GETs the trace, decodes the whole body with
// encoding/json into structs shaped like the SDK's types, keeps each event
// it has not seen by eventId and prints it as a JSON line, until
// run.finished.

type plainAgent struct {
	ID       string `json:"id"`
	Role     string `json:"role"`
	Name     string `json:"name,omitempty"`
	ParentID string `json:"parentId,omitempty"`
}

type plainError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty"`
	Retryable bool   `json:"retryable"`
}

type plainEvent struct {
	SchemaVersion    int             `json:"schemaVersion"`
	EventID          string          `json:"eventId"`
	RunID            string          `json:"runId"`
	OccurredAt       string          `json:"occurredAt"`
	ProducerSequence int64           `json:"producerSequence"`
	Agent            plainAgent      `json:"agent"`
	Type             string          `json:"type"`
	Text             string          `json:"text,omitempty"`
	Phase            string          `json:"phase,omitempty"`
	Message          string          `json:"message,omitempty"`
	Outcome          string          `json:"outcome,omitempty"`
	ToolCallID       string          `json:"toolCallId,omitempty"`
	ToolName         string          `json:"toolName,omitempty"`
	Parameters       json.RawMessage `json:"parameters,omitempty"`
	Result           json.RawMessage `json:"result,omitempty"`
	DurationMs       int64           `json:"durationMs,omitempty"`
	Error            *plainError     `json:"error,omitempty"`
}

type plainTrace struct {
	Success     bool         `json:"success"`
	ID          string       `json:"id"`
	Events      []plainEvent `json:"events"`
	CreditsUsed float64      `json:"creditsUsed"`
	Error       string       `json:"error,omitempty"`
}

func plainMain(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pollbench plain URL JOB INTERVAL_MS")
		return 2
	}
	ms, _ := strconv.Atoi(args[2])
	url := args[0] + "/v2/agent/" + args[1] + "/trace"
	seen := map[string]bool{}
	enc := json.NewEncoder(os.Stdout)
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer fc-bench")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var t plainTrace
		if err := json.Unmarshal(body, &t); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		done := false
		for _, e := range t.Events {
			if seen[e.EventID] {
				continue
			}
			seen[e.EventID] = true
			enc.Encode(e)
			done = done || e.Type == "run.finished"
		}
		if done {
			return 0
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
}
