package sim

import (
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
)

// page is the simulated web page a scrape fetched and a browser session
// shows: everything is derived from its URL, so the same URL always gives
// the same page.
type page struct {
	url         string
	host        string
	brand       string
	section     string
	title       string
	description string
	plans       []plan
	links       []string
	// targets are the selectors a click finds on the page, with the path
	// a click navigates to ("" stays on the page).
	targets []target
}

type plan struct {
	name     string
	price    int // dollars a month
	requests int // a month
}

type target struct {
	selector string
	label    string
	path     string
}

func hashOf(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// newPage builds the page at raw (an absolute http(s) URL).
func newPage(raw string) *page {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		u = &url.URL{Scheme: "https", Host: "example.com", Path: "/"}
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	label, _, _ := strings.Cut(host, ".")
	p := &page{url: u.String(), host: host, brand: titleWord(label)}
	seg := strings.Trim(u.Path, "/")
	if i := strings.LastIndex(seg, "/"); i >= 0 {
		seg = seg[i+1:]
	}
	p.section = "Home"
	if seg != "" {
		p.section = titleWord(strings.NewReplacer("-", " ", "_", " ").Replace(seg))
	}
	p.title = p.brand + " | " + p.section
	h := hashOf(host)
	p.plans = []plan{
		{"Free", 0, 500},
		{"Hobby", 9 + int(h%4)*5, 3000},
		{"Standard", 49 + int(h/7%5)*10, 100000},
		{"Growth", 299 + int(h/11%4)*50, 500000},
	}
	p.description = fmt.Sprintf("%s turns websites into clean data for AI: scrape a page, crawl a site or search the web, with plans from $0 to $%d a month.", p.brand, p.plans[3].price)
	base := u.Scheme + "://" + u.Host
	for _, path := range []string{"/", "/pricing", "/docs", "/blog", "/about", "/login", "/signup"} {
		p.links = append(p.links, base+path)
	}
	p.links = append(p.links, "https://github.com/"+label, "https://x.com/"+label)
	p.targets = []target{
		{"#pricing-tab", "Pricing", "/pricing"},
		{"text=Pricing", "Pricing", "/pricing"},
		{"a[href='/docs']", "Docs", "/docs"},
		{"text=Docs", "Docs", "/docs"},
		{"#signup", "Sign up", "/signup"},
		{"text=Blog", "Blog", "/blog"},
		{"button.accept-cookies", "Accept cookies", ""},
		{"#load-more", "Load more", ""},
	}
	return p
}

func titleWord(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	if len(words) == 0 {
		return "Example"
	}
	return strings.Join(words, " ")
}

// at is the page a click on path (absolute path on the same site) leads to.
func (p *page) at(path string) *page {
	u, _ := url.Parse(p.url)
	u.Path, u.RawQuery, u.Fragment = path, "", ""
	return newPage(u.String())
}

func (p *page) target(sel string) (target, bool) {
	sel = strings.TrimSpace(sel)
	for _, t := range p.targets {
		if t.selector == sel {
			return t, true
		}
	}
	return target{}, false
}

func (p *page) markdown(mainOnly bool) string {
	var b strings.Builder
	if !mainOnly {
		b.WriteString("[" + p.brand + "](" + p.links[0] + ") [Pricing](" + p.links[1] + ") [Docs](" + p.links[2] + ") [Blog](" + p.links[3] + ") [Log in](" + p.links[5] + ")\n\n")
	}
	fmt.Fprintf(&b, "# %s\n\n%s\n\n## Plans\n\n| Plan | Price | Requests a month |\n|---|---|---|\n", p.title, p.description)
	for _, pl := range p.plans {
		fmt.Fprintf(&b, "| %s | $%d/mo | %d |\n", pl.name, pl.price, pl.requests)
	}
	fmt.Fprintf(&b, "\n## Get started\n\n- [Read the docs](%s)\n- [Sign up free](%s)\n- [Latest posts](%s)\n", p.links[2], p.links[6], p.links[3])
	if !mainOnly {
		fmt.Fprintf(&b, "\n---\n\n© 2026 %s · [About](%s) · [GitHub](%s)\n", p.brand, p.links[4], p.links[7])
	}
	return b.String()
}

func (p *page) html(mainOnly bool) string {
	var b strings.Builder
	if !mainOnly {
		fmt.Fprintf(&b, "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><meta name=\"description\" content=\"%s\"></head><body>", p.title, p.description)
		b.WriteString(`<nav><a href="/">` + p.brand + `</a> <a id="pricing-tab" href="/pricing">Pricing</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a> <a href="/login">Log in</a></nav>`)
	}
	fmt.Fprintf(&b, "<main><h1>%s</h1><p>%s</p><h2>Plans</h2><table><tr><th>Plan</th><th>Price</th><th>Requests a month</th></tr>", p.title, p.description)
	for _, pl := range p.plans {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>$%d/mo</td><td>%d</td></tr>", pl.name, pl.price, pl.requests)
	}
	b.WriteString(`</table><button id="load-more">Load more</button> <a id="signup" href="/signup">Sign up free</a></main>`)
	if !mainOnly {
		fmt.Fprintf(&b, `<footer>© 2026 %s <a href="/about">About</a> <a href="%s">GitHub</a><button class="accept-cookies">Accept cookies</button></footer></body></html>`, p.brand, p.links[7])
	}
	return b.String()
}

func (p *page) summary() string {
	return fmt.Sprintf("%s's %s page: %s It lists %d plans, from %s ($0/mo) to %s ($%d/mo).",
		p.brand, strings.ToLower(p.section), p.description, len(p.plans), p.plans[0].name, p.plans[3].name, p.plans[3].price)
}

// snapshot is the page as agent-browser's `snapshot` prints it: an
// accessibility tree with element refs.
func (p *page) snapshot() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- document %q\n  - navigation\n", p.title)
	n := 1
	for _, l := range []string{p.brand, "Pricing", "Docs", "Blog", "Log in"} {
		fmt.Fprintf(&b, "    - link %q [ref=e%d]\n", l, n)
		n++
	}
	fmt.Fprintf(&b, "  - main\n    - heading %q [level=1, ref=e%d]\n", p.title, n)
	n++
	fmt.Fprintf(&b, "    - table \"Plans\" [ref=e%d]\n", n)
	n++
	for _, pl := range p.plans {
		fmt.Fprintf(&b, "      - row \"%s $%d/mo %d\"\n", pl.name, pl.price, pl.requests)
	}
	fmt.Fprintf(&b, "    - button \"Load more\" [ref=e%d]\n    - link \"Sign up free\" [ref=e%d]\n", n, n+1)
	return b.String()
}
