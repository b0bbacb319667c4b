package sim

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStartValidation(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	c := newClient(s)
	long := strings.Repeat("é", MaxPromptLen+1)
	for _, tc := range []struct {
		name, body string
		status     int
		err        string
	}{
		{"ok", `{"prompt":"Compare prices"}`, 200, ""},
		{"all fields", `{"prompt":"p","urls":["https://a.example"],"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},"maxCredits":300,"strictConstrainToURLs":true,"model":"spark-1-pro","effort":"low","webhook":"https://hook.example"}`, 200, ""},
		{"not json", `{"prompt":`, 400, "Bad Request: the body must be a JSON object"},
		{"missing prompt", `{}`, 400, "Bad Request: prompt: Required"},
		{"null prompt", `{"prompt":null}`, 400, "Bad Request: prompt: Required"},
		{"prompt not a string", `{"prompt":5}`, 400, "Bad Request: prompt: Expected string"},
		{"prompt too long", `{"prompt":"` + long + `"}`, 400, "Bad Request: prompt: String must contain at most 10000 character(s)"},
		{"schema not an object", `{"prompt":"p","schema":[1]}`, 400, "Invalid JSON schema: schema at the root must be an object"},
		{"schema bad type", `{"prompt":"p","schema":{"type":"object","properties":{"a":{"type":"strin"}}}}`, 400, `Invalid JSON schema: /properties/a/type: unknown type "strin"`},
		{"schema bad properties", `{"prompt":"p","schema":{"properties":[]}}`, 400, "Invalid JSON schema: /properties must be an object"},
		{"maxCredits zero", `{"prompt":"p","maxCredits":0}`, 400, "Bad Request: maxCredits: Number must be a positive integer"},
		{"effort", `{"prompt":"p","effort":"max"}`, 400, "Bad Request: effort: Invalid enum value"},
		{"model", `{"prompt":"p","model":"gpt"}`, 400, "Bad Request: model: Invalid enum value"},
		{"url", `{"prompt":"p","urls":["example.com"]}`, 400, "Bad Request: urls: Invalid url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, b := c.post(t, "POST", "/v2/agent", tc.body)
			errMsg, _ := b["error"].(string)
			if status != tc.status || b["success"] != (tc.status == 200) || !strings.Contains(errMsg, tc.err) {
				t.Fatalf("%d %v, want %d %q", status, b, tc.status, tc.err)
			}
			if id, _ := b["id"].(string); tc.status == 200 && !validUUID(id) {
				t.Fatalf("id %q", id)
			}
		})
	}
	for _, code := range []int{402, 403, 500} {
		s := startSim(t, Options{RefuseStart: code})
		status, b := newClient(s).post(t, "POST", "/v2/agent", `{"prompt":"p"}`)
		if status != code || b["success"] != false {
			t.Errorf("RefuseStart %d: %d %v", code, status, b)
		}
	}
}

// TestStartedRuns: a started run plays the scenario its prompt picks, a
// low maxCredits ends it at the credit limit, it leads the list, and the
// team's tokens go down by 15 per credit it used.
func TestStartedRuns(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	c := newClient(s)
	waitFinished(t, s, s.Jobs[0].ID)
	// The agent runs' part of the team's ledger (the team's active crawls
	// move the token usage too, on the real clock).
	tokens := func() int { return planTokens - 15*s.UsageBetween(s.Period()).Agent }
	before := tokens()
	for _, tc := range []struct {
		body, outcome, status string
		maxCredits            int
	}{
		{`{"prompt":"Compare the pricing","maxCredits":40}`, "credit_limit_reached", "failed", 40},
		{`{"prompt":"Compare the pricing","effort":"low"}`, "succeeded", "completed", 0},
		{`{"prompt":"This will FAIL"}`, "failed", "failed", 0},
		{`{"prompt":"Get personal phone numbers"}`, "refused", "failed", 0},
	} {
		_, resp := c.post(t, "POST", "/v2/agent", tc.body)
		var b struct{ ID string }
		b.ID, _ = resp["id"].(string)
		waitFinished(t, s, b.ID)
		tr := finalTrace(t, s, b.ID)
		fin := findType(tr.events, "run.finished")
		if len(fin) != 1 || fin[0].Outcome != tc.outcome {
			t.Fatalf("%s: run.finished %+v, want %s", tc.body, fin, tc.outcome)
		}
		if tc.maxCredits > 0 && (tr.CreditsUsed == nil || *tr.CreditsUsed > tc.maxCredits) {
			t.Errorf("%s: creditsUsed %v over maxCredits %d", tc.body, tr.CreditsUsed, tc.maxCredits)
		}
		st := jsonBody(t, c.must(t, "GET", "/v2/agent/"+b.ID).body)
		if st["status"] != tc.status {
			t.Errorf("%s: status %v, want %s", tc.body, st["status"], tc.status)
		}
		after := tokens()
		want := before - 15*(*tr.CreditsUsed)
		if tc.outcome == "failed" {
			want = before // failed runs are not billed
		}
		if after != want {
			t.Errorf("%s: tokens %d → %d, want %d (15 a credit)", tc.body, before, after, want)
		}
		before = after
		list := jsonBody(t, c.must(t, "GET", "/v2/agent").body)
		first := list["data"].([]any)[0].(map[string]any)
		if first["id"] != b.ID {
			t.Errorf("the list starts with %v, want the new run %s", first["id"], b.ID)
		}
	}
}

// TestListPages: 45 history runs and the scenario's job make three pages
// of 20, 20 and 6, newest first, each next URL's before the createdAt of
// the page's last item, no run twice.
func TestListPages(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{History: 45})
	c := newClient(s)
	path := "/v2/agent"
	seen := map[string]bool{}
	var sizes []int
	var last time.Time
	for path != "" {
		var b struct {
			Data []struct {
				ID        string
				CreatedAt time.Time
				Status    string
				Origin    string
				Settings  *struct{ Hidden, Starred bool }
				Options   *struct{ Prompt, Model string }
			} `json:"data"`
			Next *string `json:"next"`
		}
		if err := json.Unmarshal(c.must(t, "GET", path).body, &b); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(b.Data))
		for _, it := range b.Data {
			if seen[it.ID] {
				t.Fatalf("run %s on two pages", it.ID)
			}
			seen[it.ID] = true
			if !last.IsZero() && !it.CreatedAt.Before(last) {
				t.Fatalf("not newest first at %s", it.ID)
			}
			last = it.CreatedAt
			if it.Settings == nil || it.Options == nil || it.Options.Prompt == "" || it.Origin == "" || it.Status == "processing" && it.ID != s.Jobs[0].ID {
				t.Fatalf("item %+v", it)
			}
		}
		path = ""
		if b.Next != nil {
			if !strings.HasPrefix(*b.Next, s.URL+"/v2/agent?before=") {
				t.Fatalf("next %q is not an absolute URL of the list", *b.Next)
			}
			if want := strconv.FormatInt(last.UnixMilli(), 10); !strings.HasSuffix(*b.Next, "="+want) {
				t.Fatalf("next %q, want before=%s (the page's last item)", *b.Next, want)
			}
			path = strings.TrimPrefix(*b.Next, s.URL)
		}
	}
	if len(sizes) != 3 || sizes[0] != 20 || sizes[1] != 20 || sizes[2] != 6 {
		t.Fatalf("pages %v, want [20 20 6]", sizes)
	}
}
