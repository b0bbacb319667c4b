package sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func (c *tclient) post(t testing.TB, path, body string) tresp {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return tresp{status: resp.StatusCode, header: resp.Header, body: b.Bytes()}
}

func TestStartValidation(t *testing.T) {
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
			r := c.post(t, "/v2/agent", tc.body)
			var b struct {
				Success bool   `json:"success"`
				ID      string `json:"id"`
				Error   string `json:"error"`
			}
			if err := json.Unmarshal(r.body, &b); err != nil {
				t.Fatalf("%d %s: %v", r.status, r.body, err)
			}
			if r.status != tc.status || b.Success != (tc.status == 200) || !strings.Contains(b.Error, tc.err) {
				t.Fatalf("%d %s, want %d %q", r.status, r.body, tc.status, tc.err)
			}
			if tc.status == 200 && !validUUID(b.ID) {
				t.Fatalf("id %q", b.ID)
			}
		})
	}
	for _, code := range []int{402, 403, 500} {
		s := startSim(t, Options{RefuseStart: code})
		r := newClient(s).post(t, "/v2/agent", `{"prompt":"p"}`)
		if r.status != code || !bytes.Contains(r.body, []byte(`"success":false`)) {
			t.Errorf("RefuseStart %d: %d %s", code, r.status, r.body)
		}
	}
}

// TestStartedRuns: a started run plays the scenario its prompt picks, a
// low maxCredits ends it at the credit limit, it leads the list, and the
// team's tokens go down by 15 per credit it used.
func TestStartedRuns(t *testing.T) {
	s := startSim(t, Options{})
	c := newClient(s)
	waitFinished(t, s, s.Jobs[0].ID)
	tokens := func() int {
		var b struct {
			Data struct{ RemainingTokens int } `json:"data"`
		}
		_ = json.Unmarshal(c.must(t, "GET", "/v2/team/token-usage").body, &b)
		return b.Data.RemainingTokens
	}
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
		r := c.post(t, "/v2/agent", tc.body)
		var b struct{ ID string }
		_ = json.Unmarshal(r.body, &b)
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
		if want := before - 15*(*tr.CreditsUsed); after != want {
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
