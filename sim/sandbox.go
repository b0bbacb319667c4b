package sim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The sandbox of a scrape's browser session: no browser and no interpreter,
// a few recognised statements per language, answered from the session's
// page (see doc.go for the list). It is deterministic: the same code on the
// same page gives the same answer and the same simulated duration.

// execResult is the outcome of one interaction.
type execResult struct {
	stdout, stderr strings.Builder
	exitCode       int
	killed         bool
	errMsg         string // the exception, "" when none
	output         string // prompt mode's answer
	dur            time.Duration
	page           *page // the page afterwards
}

// maxSimOutput caps the output a snippet can ask for (50 MB).
const maxSimOutput = 50 << 20

var (
	reBusy     = regexp.MustCompile(`while\s*\(\s*(true|1)\s*\)|for\s*\(\s*;\s*;\s*\)|while\s+(True|1)\s*:|while\s+true|while\s+:|^\s*yes\s*$`)
	reThrow    = regexp.MustCompile(`^throw\s+new\s+(\w+)\s*\(\s*(.*?)\s*\)$`)
	reRaise    = regexp.MustCompile(`^raise\s+(\w+)\s*\(\s*(.*?)\s*\)$`)
	reExit     = regexp.MustCompile(`^(?:process\.exit|sys\.exit|exit|os\._exit)\s*\(?\s*(\d+)\s*\)?$`)
	reCall     = regexp.MustCompile(`^(console\.log|console\.error|console\.warn|print)\s*\((.*)\)$`)
	reClick    = regexp.MustCompile(`^(?:await\s+)?page\.(?:click\s*\(\s*(.+?)\s*\)|locator\s*\(\s*(.+?)\s*\)\.click\s*\(\s*\))$`)
	reGoto     = regexp.MustCompile(`^(?:await\s+)?page\.goto\s*\(\s*(.+?)\s*(?:,.*)?\)$`)
	reRepeat   = regexp.MustCompile(`^(.+?)\.repeat\s*\(\s*([\d_]+)\s*\)$`)
	rePyRepeat = regexp.MustCompile(`^(.+?)\s*\*\s*([\d_]+)$`)
	reSleep    = regexp.MustCompile(`^(?:sleep|wait)\s+(\d+(?:\.\d+)?)$`)
	reYesHead  = regexp.MustCompile(`^yes\s*\|\s*head\s+-c\s+(\d+)$`)
	reIdent    = regexp.MustCompile(`^[A-Za-z_$][\w$]*$`)
)

// statements splits code into statements: at newlines, and at semicolons
// outside quotes.
func statements(code string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	flush := func() {
		if s := strings.TrimSpace(b.String()); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	for _, r := range code {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
			b.WriteRune(r)
		case r == '\'' || r == '"' || r == '`':
			quote = r
			b.WriteRune(r)
		case r == '\n' || r == ';':
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

var unescape = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\'`, "'", `\"`, `"`,
	`\x1b`, "\x1b", `\u001b`, "\x1b", `\x07`, "\a", `\u202e`, "\u202e")

// literal reads a quoted string literal, with the escapes \n \t \r \\ \'
// \" and, so that hostile output can be produced, \x1b (\u001b), \x07 and
// \u202e.
func literal(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		return unescape.Replace(s[1 : len(s)-1]), true
	}
	return "", false
}

// runCode runs code in language on p with the timeout. speedUp is the
// simulator's pace: the durations it reports are simulated.
func runCode(lang, code string, timeout time.Duration, p *page) *execResult {
	r := &execResult{page: p, dur: 60 * time.Millisecond}
	if reBusy.MatchString(code) {
		r.killed, r.dur = true, timeout
		r.exitCode = -1
		if lang == "bash" {
			r.stderr.WriteString("agent-browser: killed after " + strconv.Itoa(int(timeout/time.Second)) + "s (timeout)\n")
		}
		return r
	}
	for i, st := range statements(code) {
		r.dur += 15 * time.Millisecond
		var stop bool
		switch lang {
		case "bash":
			stop = r.bash(st, timeout)
		default:
			stop = r.script(lang, st, i+1, timeout)
		}
		if stop || r.killed {
			break
		}
	}
	return r
}

func (r *execResult) fail(lang, class, msg string, line int) {
	if class == "" {
		class = "Error"
	}
	r.exitCode = 1
	if lang == "python" {
		r.errMsg = class + ": " + msg
		fmt.Fprintf(&r.stderr, "Traceback (most recent call last):\n  File \"<sandbox>\", line %d, in <module>\n%s: %s\n", line, class, msg)
		return
	}
	r.errMsg = class + ": " + msg
	fmt.Fprintf(&r.stderr, "%s: %s\n    at <anonymous> (sandbox.js:%d:7)\n    at async run (sandbox.js:1:1)\n", class, msg, line)
}

// script runs one node or python statement; true stops the run.
func (r *execResult) script(lang, st string, line int, timeout time.Duration) bool {
	st = strings.TrimSuffix(strings.TrimSpace(st), ";")
	if strings.HasPrefix(st, "import ") || strings.HasPrefix(st, "from ") || strings.HasPrefix(st, "//") || strings.HasPrefix(st, "#") ||
		strings.HasPrefix(st, "const ") && strings.Contains(st, "require(") {
		return false
	}
	if m := reThrow.FindStringSubmatch(st); m != nil && lang != "python" {
		msg, _ := literal(m[2])
		r.fail(lang, m[1], msg, line)
		return true
	}
	if m := reRaise.FindStringSubmatch(st); m != nil && lang == "python" {
		msg, _ := literal(m[2])
		r.fail(lang, m[1], msg, line)
		return true
	}
	if m := reExit.FindStringSubmatch(st); m != nil {
		r.exitCode, _ = strconv.Atoi(m[1])
		return true
	}
	if m := reClick.FindStringSubmatch(st); m != nil {
		sel, _ := literal(m[1] + m[2])
		return r.click(lang, sel, line, timeout)
	}
	if m := reGoto.FindStringSubmatch(st); m != nil {
		u, _ := literal(m[1])
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			r.fail(lang, "Error", "page.goto: Protocol error (Page.navigate): Cannot navigate to invalid URL", line)
			return true
		}
		r.page = newPage(u)
		r.dur += 700 * time.Millisecond
		return false
	}
	if m := reCall.FindStringSubmatch(st); m != nil {
		arg := m[2]
		toErr := m[1] != "console.log" && m[1] != "print"
		if m[1] == "print" && strings.Contains(arg, "file=sys.stderr") {
			toErr = true
			arg = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.Replace(arg, "file=sys.stderr", "", 1)), ","))
		}
		v, ok, err := r.eval(lang, arg)
		if err != "" {
			r.fail(lang, "ReferenceError", err, line)
			if lang == "python" {
				r.errMsg = "NameError: " + err
			}
			return true
		}
		if !ok {
			v = "undefined"
			if lang == "python" {
				v = "None"
			}
		}
		w := &r.stdout
		if toErr {
			w = &r.stderr
		}
		w.WriteString(v)
		w.WriteByte('\n')
		return false
	}
	v, ok, err := r.eval(lang, st)
	if err != "" {
		if lang == "python" {
			r.fail(lang, "NameError", err, line)
		} else {
			r.fail(lang, "ReferenceError", err, line)
		}
		return true
	}
	if ok && lang == "node" {
		// The value of a bare expression is the result, as in a REPL.
		r.stdout.WriteString(v)
		r.stdout.WriteByte('\n')
	}
	return false
}

// eval is the value of a recognised expression; ok false for an
// expression without a value; err for an unknown name.
func (r *execResult) eval(lang, expr string) (v string, ok bool, err string) {
	e := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(expr), "await "))
	if s, isLit := literal(e); isLit {
		return s, true, ""
	}
	if m := reRepeat.FindStringSubmatch(e); m != nil && lang != "python" {
		return repeatLit(m[1], m[2])
	}
	if m := rePyRepeat.FindStringSubmatch(e); m != nil && lang == "python" {
		return repeatLit(m[1], m[2])
	}
	switch strings.ReplaceAll(e, " ", "") {
	case "page.title()", "page.evaluate(()=>document.title)", "document.title":
		return r.page.title, true, ""
	case "page.url()", "page.url", "location.href", "page.evaluate(()=>location.href)":
		return r.page.url, true, ""
	case "page.content()":
		return r.page.html(false), true, ""
	case "page.innerText('main')", "page.innerText(\"main\")", "page.inner_text('main')", "page.inner_text(\"main\")":
		return r.page.markdown(true), true, ""
	}
	if _, err := strconv.ParseFloat(e, 64); err == nil {
		return e, true, ""
	}
	if reIdent.MatchString(e) {
		if lang == "python" {
			return "", false, "name '" + e + "' is not defined"
		}
		return "", false, e + " is not defined"
	}
	return "", false, ""
}

func repeatLit(lit, n string) (string, bool, string) {
	s, ok := literal(lit)
	if !ok {
		return "", false, ""
	}
	k, _ := strconv.Atoi(strings.ReplaceAll(n, "_", ""))
	if len(s) > 0 && k > maxSimOutput/len(s) {
		k = maxSimOutput / len(s)
	}
	return strings.Repeat(s, k), true, ""
}

// click clicks sel: a selector the page has navigates (or not); another
// waits Playwright's 5 s and fails, or is killed when the timeout is
// shorter.
func (r *execResult) click(lang, sel string, line int, timeout time.Duration) bool {
	if t, ok := r.page.target(sel); ok {
		r.dur += 250 * time.Millisecond
		if t.path != "" {
			r.page = r.page.at(t.path)
			r.dur += 600 * time.Millisecond
		}
		return false
	}
	if r.dur+5*time.Second > timeout {
		r.killed, r.dur, r.exitCode = true, timeout, -1
		return true
	}
	r.dur += 5 * time.Second
	call := "page.click"
	if lang == "python" {
		r.fail(lang, "TimeoutError", fmt.Sprintf("Page.click: Timeout 5000ms exceeded. Call log: waiting for locator(%q)", sel), line)
		return true
	}
	r.fail(lang, "TimeoutError", fmt.Sprintf("%s: Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator('%s')", call, sel), line)
	r.errMsg = fmt.Sprintf("TimeoutError: %s: Timeout 5000ms exceeded. Waiting for locator('%s')", call, sel)
	return true
}

// bash runs one agent-browser command.
func (r *execResult) bash(st string, timeout time.Duration) bool {
	toErr := false
	if s, ok := strings.CutSuffix(st, ">&2"); ok {
		st, toErr = strings.TrimSpace(s), true
	}
	w := &r.stdout
	if toErr {
		w = &r.stderr
	}
	fields := strings.Fields(st)
	arg := strings.TrimSpace(strings.TrimPrefix(st, fields[0]))
	if s, ok := literal(arg); ok {
		arg = s
	}
	if m := reYesHead.FindStringSubmatch(st); m != nil {
		n, _ := strconv.Atoi(m[1])
		n = min(n, maxSimOutput)
		w.WriteString(strings.Repeat("y\n", n/2+1)[:n])
		return false
	}
	if m := reSleep.FindStringSubmatch(st); m != nil {
		f, _ := strconv.ParseFloat(m[1], 64)
		d := time.Duration(f * float64(time.Second))
		if r.dur+d > timeout {
			r.killed, r.dur, r.exitCode = true, timeout, -1
			return true
		}
		r.dur += d
		return false
	}
	if m := reExit.FindStringSubmatch(st); m != nil {
		r.exitCode, _ = strconv.Atoi(m[1])
		return true
	}
	switch fields[0] {
	case "echo":
		w.WriteString(arg + "\n")
	case "snapshot":
		w.WriteString(r.page.snapshot())
	case "get":
		switch arg {
		case "title":
			w.WriteString(r.page.title + "\n")
		case "url":
			w.WriteString(r.page.url + "\n")
		case "text":
			w.WriteString(r.page.markdown(true))
		default:
			fmt.Fprintf(&r.stderr, "agent-browser: get: unknown property %q (title, url, text)\n", arg)
			r.exitCode = 2
			return true
		}
	case "click":
		t, ok := r.page.target(arg)
		if !ok {
			fmt.Fprintf(&r.stderr, "agent-browser: click: no element matches %q\n", arg)
			r.exitCode = 1
			return true
		}
		r.dur += 250 * time.Millisecond
		if t.path != "" {
			r.page = r.page.at(t.path)
		}
		fmt.Fprintf(w, "clicked %q\n", t.label)
	case "open":
		if !strings.HasPrefix(arg, "http://") && !strings.HasPrefix(arg, "https://") {
			fmt.Fprintf(&r.stderr, "agent-browser: open: %q is not an http(s) URL\n", arg)
			r.exitCode = 1
			return true
		}
		r.page = newPage(arg)
		r.dur += 700 * time.Millisecond
		fmt.Fprintf(w, "opened %s\n", r.page.url)
	default:
		fmt.Fprintf(&r.stderr, "agent-browser: unknown command: %s\n", fields[0])
		r.exitCode = 127
		return true
	}
	return false
}

// runPrompt has the "AI agent" carry out a natural-language task: it
// answers from the page and follows a request to click or open a section.
func runPrompt(prompt string, p *page) *execResult {
	r := &execResult{page: p, dur: 2400 * time.Millisecond}
	low := strings.ToLower(prompt)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	if has("click", "open", "go to", "navigate", "visit") {
		for _, t := range p.targets {
			if t.path != "" && strings.Contains(low, strings.ToLower(t.label)) {
				r.page = p.at(t.path)
				r.dur += 1500 * time.Millisecond
				r.output = fmt.Sprintf("I clicked %q. The browser is now on %s (%q).", t.label, r.page.url, r.page.title)
				return r
			}
		}
		r.output = fmt.Sprintf("I could not find that on %s. The page has links to: Pricing, Docs, Blog, Sign up.", p.url)
		return r
	}
	switch {
	case has("price", "pricing", "plan", "cost", "cheap"):
		parts := make([]string, len(p.plans))
		for i, pl := range p.plans {
			parts[i] = fmt.Sprintf("%s ($%d/mo, %d requests)", pl.name, pl.price, pl.requests)
		}
		r.output = fmt.Sprintf("The page lists %d plans: %s. The cheapest paid plan is %s at $%d a month.", len(p.plans), strings.Join(parts, ", "), p.plans[1].name, p.plans[1].price)
	case has("title", "heading"):
		r.output = fmt.Sprintf("The page title is %q.", p.title)
	case has("link"):
		r.output = fmt.Sprintf("The page has %d links: %s.", len(p.links), strings.Join(p.links, ", "))
	case has("url", "where", "address"):
		r.output = "The browser is on " + p.url + "."
	default:
		r.output = p.summary()
	}
	return r
}
