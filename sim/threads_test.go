package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestThreads: a start is turn 1 of a new thread; a follow-up (threadId)
// is a new job, turn 2, with the schema inherited; the status and GET
// /v2/agent/threads/{id} say so; the four refusals; every body is logged.
func TestThreads(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Held: true})
	c := newClient(s)
	schema := `{"type":"object","properties":{"a":{"type":"string"}}}`
	st, b := c.post(t, "POST", "/v2/agent", `{"prompt":"Compare prices","schema":`+schema+`}`)
	tid, _ := b["threadId"].(string)
	id1, _ := b["id"].(string)
	if st != 200 || !validUUID(tid) || b["threadTurn"] != 1.0 {
		t.Fatalf("start: %d %v", st, b)
	}
	// The first turn is running: a follow-up is busy, naming it.
	st, b = c.post(t, "POST", "/v2/agent", `{"prompt":"And the free tiers?","threadId":"`+tid+`"}`)
	if st != 409 || b["code"] != "thread_busy" || b["runId"] != id1 {
		t.Fatalf("busy: %d %v", st, b)
	}
	s.Release()
	waitFinished(t, s, id1)
	st, b = c.post(t, "POST", "/v2/agent", `{"prompt":"And the free tiers?","threadId":"`+strings.ToUpper(tid)+`"}`)
	id2, _ := b["id"].(string)
	if st != 200 || b["threadId"] != tid || b["threadTurn"] != 2.0 || id2 == id1 || !validUUID(id2) {
		t.Fatalf("follow-up: %d %v", st, b)
	}
	var status struct {
		ThreadID   string `json:"threadId"`
		ThreadTurn int    `json:"threadTurn"`
	}
	_ = json.Unmarshal(c.must(t, "GET", "/v2/agent/"+id2).body, &status)
	if status.ThreadID != tid || status.ThreadTurn != 2 {
		t.Fatalf("status: %+v", status)
	}
	// The inherited schema is the list item's.
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			Options struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"options"`
		} `json:"data"`
	}
	_ = json.Unmarshal(c.must(t, "GET", "/v2/agent").body, &list)
	found := false
	for _, it := range list.Data {
		if it.ID == id2 {
			found = string(it.Options.Schema) == schema
		}
	}
	if !found {
		t.Fatalf("the follow-up's schema is not inherited: %s", c.must(t, "GET", "/v2/agent").body)
	}
	waitFinished(t, s, id2)
	var th struct {
		ThreadID string `json:"threadId"`
		Turns    []struct {
			ID         string          `json:"id"`
			ThreadTurn int             `json:"threadTurn"`
			Prompt     string          `json:"prompt"`
			Status     string          `json:"status"`
			Data       json.RawMessage `json:"data"`
		} `json:"turns"`
	}
	_ = json.Unmarshal(c.must(t, "GET", "/v2/agent/threads/"+tid+"?includeData=true").body, &th)
	if th.ThreadID != tid || len(th.Turns) != 2 || th.Turns[0].ID != id1 || th.Turns[1].ThreadTurn != 2 ||
		th.Turns[1].Prompt != "And the free tiers?" || th.Turns[1].Status != "completed" || len(th.Turns[1].Data) == 0 {
		t.Fatalf("thread: %+v", th)
	}
	if r, _ := c.do("GET", "/v2/agent/threads/"+id1); r.status != 404 {
		t.Fatalf("an unknown thread: %d", r.status)
	}
	st, b = c.post(t, "POST", "/v2/agent", `{"prompt":"p","threadId":"`+id1+`"}`)
	if st != 404 || b["code"] != "thread_not_found" {
		t.Fatalf("not found: %d %v", st, b)
	}
	s.ExpireThread(tid)
	st, b = c.post(t, "POST", "/v2/agent", `{"prompt":"p","threadId":"`+tid+`"}`)
	if st != 410 || b["code"] != "thread_expired" {
		t.Fatalf("expired: %d %v", st, b)
	}
	off := startSim(t, Options{NoThreads: true})
	st, b = newClient(off).post(t, "POST", "/v2/agent", `{"prompt":"p","threadId":"`+tid+`"}`)
	if st != 503 || b["code"] != "threads_disabled" {
		t.Fatalf("disabled: %d %v", st, b)
	}
	starts := s.Starts()
	if len(starts) != 5 || starts[0].Status != 200 || starts[0].ID != id1 || starts[1].Status != 409 ||
		!strings.Contains(string(starts[2].Body), `"threadId"`) || starts[4].Status != 410 {
		t.Fatalf("starts: %+v", starts)
	}
}

// TestLowEffort: the research run with effort low costs fewer credits and
// finds fewer vendors than with high.
func TestLowEffort(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	c := newClient(s)
	result := func(body string) (int, int) {
		_, b := c.post(t, "POST", "/v2/agent", body)
		id, _ := b["id"].(string)
		waitFinished(t, s, id)
		var st struct {
			CreditsUsed int `json:"creditsUsed"`
			Data        struct {
				Vendors []any `json:"vendors"`
			} `json:"data"`
		}
		_ = json.Unmarshal(c.must(t, "GET", "/v2/agent/"+id).body, &st)
		return st.CreditsUsed, len(st.Data.Vendors)
	}
	hc, hv := result(`{"prompt":"Compare prices","effort":"high","maxCredits":300}`)
	lc, lv := result(`{"prompt":"Compare prices","effort":"low","maxCredits":300}`)
	if !(lc < hc) || !(lv < hv) || lv == 0 {
		t.Fatalf("high: %d credits, %d vendors; low: %d credits, %d vendors", hc, hv, lc, lv)
	}
	t.Logf("high: %d credits, %d vendors; low: %d credits, %d vendors", hc, hv, lc, lv)
}
