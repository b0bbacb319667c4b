package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// hostile strings: each tries to break out of the context it lands in
// (HTML text, an attribute, the style sheet, SVG, Markdown, mermaid) and
// to run a script or fetch something from evil.test.
var hostile = []string{
	`<script>fetch("http://evil.test/script")</script>`,
	`"><img src=http://evil.test/img onerror=fetch('http://evil.test/onerror')>`,
	`'><svg onload=fetch('http://evil.test/svg')>`,
	`</title><script>alert(1)</script>`,
	`</style><link rel=stylesheet href=http://evil.test/css>`,
	`</text><image href="http://evil.test/svgimage"/><text>`,
	`javascript:fetch('http://evil.test/js')`,
	`[click](javascript:alert(1)) ![x](http://evil.test/md.png) <http://evil.test/auto>`,
	"`code` | cell | **bold** <b>b</b> &amp; \n# heading\nclick t1 href \"javascript:alert(1)\"",
	`{{.CSS}} ${x} <!-- comment --> <![CDATA[ x ]]>`,
	`<iframe src="http://evil.test/frame"></iframe><object data=http://evil.test/o>`,
	`<meta http-equiv="refresh" content="0;url=http://evil.test/refresh">`,
}

// hostileTrace is a finished, failed run whose every service string is
// hostile.
func hostileTrace(t testing.TB) []byte {
	t.Helper()
	run := "11111111-2222-4333-8444-555555555555"
	orch, sub := "aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002"
	base := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	var events []map[string]any
	seq := map[string]int{}
	add := func(agent string, ms int, typ string, fields map[string]any) {
		a := map[string]any{"id": orch, "role": "orchestrator", "name": hostile[0]}
		if agent == sub {
			a = map[string]any{"id": sub, "role": hostile[2], "name": hostile[1], "parentId": orch}
		}
		seq[agent]++
		e := map[string]any{"schemaVersion": 1, "eventId": fmt.Sprintf("eeeeeeee-0000-4000-8000-%012d", len(events)+1), "runId": run,
			"occurredAt": base.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano), "producerSequence": seq[agent], "agent": a, "type": typ}
		for k, v := range fields {
			e[k] = v
		}
		events = append(events, e)
	}
	te := func(i int) map[string]any {
		return map[string]any{"code": hostile[i], "source": hostile[(i+1)%len(hostile)], "retryable": true, "message": strings.Join(hostile, " ")}
	}
	add(orch, 0, "run.started", nil)
	add(orch, 10, "agent.started", nil)
	add(orch, 20, "progress.reported", map[string]any{"phase": hostile[3], "message": hostile[4]})
	add(orch, 30, "reasoning.summary", map[string]any{"text": strings.Join(hostile, "\n")})
	add(sub, 100, "agent.started", nil)
	add(sub, 200, "tool_call.started", map[string]any{"toolCallId": hostile[5], "toolName": hostile[6], "parameters": map[string]any{"url": hostile[6], "q": hostile}})
	add(sub, 300, "browser.session.started", map[string]any{"sessionId": hostile[7]})
	add(sub, 400, "error.occurred", map[string]any{"error": te(8)})
	add(sub, 500, "tool_call.finished", map[string]any{"toolCallId": hostile[5], "toolName": hostile[6], "result": map[string]any{"error": hostile[9], "markdown": strings.Join(hostile, "\n")}})
	add(sub, 600, "artifact.updated", map[string]any{"artifact": map[string]any{"kind": hostile[10], "artifactId": hostile[11], "path": hostile[4], "snapshotId": hostile[5], "change": hostile[2], "changedFields": hostile}})
	add(sub, 650, "browser.session.finished", map[string]any{"sessionId": hostile[7], "durationMs": 350})
	add(sub, 700, "agent.finished", map[string]any{"outcome": hostile[1], "durationMs": 600, "error": te(3)})
	add(orch, 800, "tool_call.started", map[string]any{"toolCallId": "call-2", "toolName": hostile[8], "parameters": hostile[7]})
	add(orch, 900, "agent.finished", map[string]any{"outcome": "failed", "durationMs": 890, "error": te(0)})
	add(orch, 1000, "run.finished", map[string]any{"outcome": "failed", "error": te(1)})
	body, err := json.Marshal(map[string]any{"success": true, "id": run, "creditsUsed": 12, "events": events,
		"activeBrowserSessions": []map[string]any{{"id": hostile[7], "liveViewUrl": "https://liveview.evil.test/secret-token", "viewport": map[string]any{"width": 1, "height": 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func hostileStore(t testing.TB) *model.Store {
	s := model.NewStore()
	if _, err := s.Ingest(hostileTrace(t)); err != nil {
		t.Fatal(err)
	}
	if len(s.Agents()) != 2 || len(s.ToolCalls()) != 2 || len(s.Errors()) == 0 {
		t.Fatalf("the hostile trace did not decode as meant: %d agents, %d tool calls", len(s.Agents()), len(s.ToolCalls()))
	}
	return s
}

// TestReportHostileHTML: no service string becomes markup in the HTML
// report, whatever context it lands in.
func TestReportHostileHTML(t *testing.T) {
	t.Parallel()
	s := hostileStore(t)
	var b bytes.Buffer
	if err := Report(&b, s, FormatHTML, ReportOptions{Secrets: text.NewSecrets("fc-secretkey"), Result: &ResultContent{ArtifactID: "result", Kind: model.KindMarkdown, Content: strings.Join(hostile, "\n") + " fc-secretkey"}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "fc-secretkey") || strings.Contains(out, "liveview.evil.test") {
		t.Error("the key or the live-view URL is in the report")
	}
	// Parse it as a browser would: only the template's own elements and
	// attributes exist, and no attribute value comes from the service.
	tags := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true,
		"h1": true, "h2": true, "span": true, "div": true, "section": true, "strong": true, "p": true, "ul": true, "li": true,
		"svg": true, "line": true, "text": true, "g": true, "rect": true, "details": true, "summary": true, "pre": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "footer": true}
	attrs := map[string]bool{"lang": true, "id": true, "charset": true, "http-equiv": true, "content": true, "name": true, "class": true,
		"xmlns": true, "viewbox": true, "role": true, "aria-label": true, "x": true, "y": true, "x1": true, "y1": true,
		"x2": true, "y2": true, "width": true, "height": true, "rx": true}
	z := html.NewTokenizer(strings.NewReader(out))
	styles := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if !tags[tok.Data] {
				t.Errorf("element <%s> in the report", tok.Data)
			}
			if tok.Data == "style" {
				styles++
			}
			for _, a := range tok.Attr {
				if !attrs[strings.ToLower(a.Key)] {
					t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, tok.Data)
				}
				if strings.Contains(a.Val, "evil") || strings.Contains(strings.ToLower(a.Val), "javascript") {
					t.Errorf("a service string reached attribute %s of <%s>: %q", a.Key, tok.Data, a.Val)
				}
				if a.Key == "http-equiv" && a.Val != "Content-Security-Policy" {
					t.Errorf("meta http-equiv=%q", a.Val)
				}
			}
		case html.CommentToken, html.DoctypeToken:
			if tt == html.CommentToken {
				t.Errorf("a comment in the report: %q", tok.Data)
			}
		}
	}
	if styles != 1 {
		t.Errorf("%d style elements, want 1", styles)
	}
	if !strings.Contains(out, `content="default-src &#39;none&#39;; style-src &#39;sha256-`) {
		t.Errorf("no CSP forbidding everything but the hashed style sheet")
	}
}

// TestReportHostileMarkdown: service strings stay text in the Markdown
// report and cannot end or direct the mermaid block.
func TestReportHostileMarkdown(t *testing.T) {
	t.Parallel()
	s := hostileStore(t)
	var b bytes.Buffer
	if err := Report(&b, s, FormatMarkdown, ReportOptions{Secrets: text.NewSecrets("fc-secretkey")}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<script", "<img", "<b>", "<iframe", "<http", "fc-secretkey", "liveview.evil.test", "\n# heading"} {
		if strings.Contains(strings.ToLower(out), bad) {
			t.Errorf("the Markdown holds %q", bad)
		}
	}
	if m := regexp.MustCompile(`[^\\]\]\(`).FindString(out); m != "" {
		t.Errorf("an unescaped link in the Markdown: %q", m)
	}
	// Outside the mermaid block, every backtick, bracket and pipe from the
	// service is escaped; inside it, task lines are labels and times only.
	mer := regexp.MustCompile("(?s)```mermaid\n(.*?)```")
	m := mer.FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no mermaid block")
	}
	line := regexp.MustCompile(`^    (gantt|dateFormat x|axisFormat %M:%S|section [\p{L}\p{N} ._/-]+|[\p{L}\p{N} ._/-]+ :(done, |crit, |active, )?t\d+, \d+, \d+)$`)
	for _, l := range strings.Split(strings.TrimRight(m[1], "\n"), "\n")[1:] {
		if !line.MatchString(l) {
			t.Errorf("mermaid line %q is not a plain task or section", l)
		}
		if strings.HasPrefix(strings.TrimSpace(strings.ToLower(l)), "click") {
			t.Errorf("mermaid line %q is a click directive", l)
		}
	}
	rest := mer.ReplaceAllString(out, "")
	if n := strings.Count(rest, "```"); n != 0 {
		t.Errorf("%d code fences outside the mermaid block", n)
	}
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "|") && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") != 3 {
			t.Errorf("table row %q has extra cells", l)
		}
	}
}

// TestExportHostile: the spans of the hostile run carry the strings as
// attribute values, never the live-view URL or the key.
func TestExportHostile(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	exportTo(t, r, hostileStore(t), Options{Content: true, Secrets: text.NewSecrets("fc-secretkey")})
	if r.contains("liveview.evil.test") {
		t.Error("the live-view URL was exported")
	}
	spans := r.final()
	if len(spans) != 1+2+2+1 {
		t.Errorf("%d spans", len(spans))
	}
}
