package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/sim"
)

// passAnswers is what a fuzzed service answers to an archive pass: the
// list page, and for any run its status, its trace and any snapshot, each
// with a status code.
type passAnswers struct {
	list                            []byte
	statusCode, traceCode, snapCode int
	statusBody, traceBody, snapBody []byte
}

func (p *passAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	code, body := http.StatusOK, p.list
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "v2" && parts[1] == "agent":
		code, body = p.statusCode, p.statusBody
	case len(parts) == 4 && parts[3] == "trace":
		code, body = p.traceCode, p.traceBody
	case len(parts) == 5 && parts[3] == "snapshots":
		code, body = p.snapCode, p.snapBody
	}
	w.WriteHeader(code)
	w.Write(body)
}

// answerCode makes a fuzzed number one of the status codes a service
// answers with.
func answerCode(n uint8) int {
	codes := []int{200, 200, 200, 400, 401, 404, 429, 500, 502, 503}
	return codes[int(n)%len(codes)]
}

// FuzzArchivePass: whatever the service answers to a pass (its list, a
// run's status, trace and snapshots: any body, any status), the pass ends
// in bounded time with 0, 1 or 6, writes nothing raw to the terminal, never
// the key; the archive it leaves opens and history reads it.
func FuzzArchivePass(f *testing.F) {
	const key = "fc-fuzz0123456789abcdef0123456789ab"
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 200, RateLimit: -1, Key: key})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	id := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), id); err != nil {
		f.Fatal(err)
	}
	get := func(path string) []byte {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			f.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	list, status, trace := get("/v2/agent"), get("/v2/agent/"+id), get("/v2/agent/"+id+"/trace")
	var sid string
	if i := bytes.Index(trace, []byte(`"snapshotId":"`)); i >= 0 {
		sid = string(trace[i+14 : i+14+36])
	}
	snap := get("/v2/agent/" + id + "/snapshots/" + sid)
	f.Add(list, uint8(0), status, uint8(0), trace, uint8(0), snap)
	f.Add(list, uint8(0), status, uint8(3), []byte(`{"success":false,"error":"Trace is only available for Spark 2 agents"}`), uint8(3), []byte(`{}`))
	f.Add(list, uint8(7), []byte(`{"success":false,"error":"`+key+`"}`), uint8(0), trace, uint8(7), []byte(`<html>`))
	f.Add(list, uint8(0), bytes.ReplaceAll(status, []byte(`"completed"`), []byte(`"\u001b[2Jprocessing"`)), uint8(0), trace, uint8(6), snap)
	f.Add([]byte(`{"success":true,"data":[{"id":"`+id+`","prompt":"\u009b31m`+key+`","createdAt":"9999-12-31T23:59:59Z"}]}`), uint8(0), status, uint8(0), []byte(`{"success":true,"events":"x"}`), uint8(0), []byte(`{"success":true,"snapshot":1e999}`))
	f.Add([]byte(`{"success":true,"data":[],"next":"/v2/agent?before=1"}`), uint8(0), status, uint8(0), trace, uint8(0), snap)
	f.Add([]byte(`[[[[`), uint8(9), []byte(``), uint8(5), []byte(`null`), uint8(4), []byte(`"`))
	f.Fuzz(func(t *testing.T, list []byte, sc uint8, status []byte, tc uint8, trace []byte, nc uint8, snap []byte) {
		t.Parallel() // the seeds at once (fuzzing itself runs one input at a time)
		p := &passAnswers{list: list, statusCode: answerCode(sc), statusBody: status, traceCode: answerCode(tc), traceBody: trace,
			snapCode: answerCode(nc), snapBody: snap}
		hs := httptest.NewServer(p)
		defer hs.Close()
		db := filepath.Join(t.TempDir(), "a.db")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var out, errOut bytes.Buffer
		code := execute(ctx, []string{"archive", "--once", "--api-url", hs.URL, "--api-key", key, "--archive", db},
			strings.NewReader(""), &out, &errOut, instantRetry)
		if ctx.Err() != nil {
			t.Fatalf("the pass did not end: %s", errOut.String())
		}
		if code != 0 && code != ExitFailed && code != ExitRejected {
			t.Fatalf("exit %d\n%s", code, errOut.String())
		}
		said := out.String() + errOut.String()
		if !printable(said) || strings.Contains(said, key) {
			t.Fatalf("said: %q", said)
		}
		var hout, herr bytes.Buffer
		if code := execute(context.Background(), []string{"history", "-o", "json", "--all-services", "--archive", db},
			strings.NewReader(""), &hout, &herr, instantRetry); code != 0 {
			t.Fatalf("history of what the pass left: exit %d\n%s", code, herr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(hout.String()), "\n") {
			if line != "" && !jsontext.Value(line).IsValid() {
				t.Fatalf("history: %q", line)
			}
		}
		if !printable(hout.String()) || strings.Contains(hout.String(), key) {
			t.Fatalf("history: %q", hout.String())
		}
		if b, _ := os.ReadFile(db); bytes.Contains(b, []byte(key)) {
			t.Fatal("the key is in the archive")
		}
	})
}

// printable reports whether s holds no control character but newline and
// tab, and no C1 control: nothing that a terminal would act on.
func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return true
}
