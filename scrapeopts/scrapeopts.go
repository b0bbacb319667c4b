// Package scrapeopts renders a crawl's scrapeOptions the v2 way, for the
// team view (firewatch team and the runs screen's team pane): only the
// options that differ from the v2 defaults (the formats always, with their
// JSON-extraction and screenshot objects; see isDefault), and the v1 leftovers
// (parsePDF, an "extract" format) flagged as renamed. Pure functions: no
// I/O, no styles. Every string from the service is sanitised here.
package scrapeopts

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// DefaultMaxAge is v2's default cache age: 2 days, in milliseconds.
const DefaultMaxAge = 2 * 24 * 60 * 60 * 1000

// Option is one rendered option.
type Option struct {
	Name  string // "formats", "maxAge", "parsePDF", ...
	Value string // one line, sanitised
	// Renamed says what v2 calls a v1 leftover ("" for a v2 option).
	Renamed string
}

// isDefault reports whether v is the v2 default of the option name: an
// option with its default is not shown. The v2 defaults: onlyMainContent,
// skipTlsVerification, removeBase64Images, blockAds and storeInCache on;
// mobile off; maxAge 2 days; waitFor 0; timeout 30 s; proxy "auto". A
// switch rather than a package-level map, which would be built before main
// in every command.
func isDefault(name string, v jsontext.Value) bool {
	switch c := compact(v); name {
	case "maxAge":
		return c == strconv.Itoa(DefaultMaxAge)
	case "onlyMainContent", "skipTlsVerification", "removeBase64Images", "blockAds", "storeInCache":
		return c == "true"
	case "mobile":
		return c == "false"
	case "waitFor":
		return c == "0"
	case "timeout":
		return c == "30000"
	case "proxy":
		return c == `"auto"`
	}
	return false
}

// order is the spec's order of the scrape options; others follow by name.
var order = []string{"formats", "onlyMainContent", "includeTags", "excludeTags", "maxAge", "headers", "waitFor",
	"mobile", "skipTlsVerification", "timeout", "parsers", "actions", "location", "removeBase64Images", "blockAds",
	"proxy", "storeInCache"}

// ScrapeOptions returns the crawl options' scrapeOptions (crawlOptions is
// the crawl's whole "options" object; a bare scrapeOptions object works
// too), or nil.
func ScrapeOptions(crawlOptions jsontext.Value) jsontext.Value {
	var top map[string]jsontext.Value
	if json.Unmarshal(crawlOptions, &top, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) != nil {
		return nil
	}
	if so, ok := top["scrapeOptions"]; ok && so.Kind() == '{' {
		return so
	}
	if _, ok := top["formats"]; ok {
		return crawlOptions
	}
	return nil
}

// Render lists the options of a scrapeOptions object that differ from the
// v2 defaults, in the spec's order, v1 leftovers flagged. Not an object:
// nil.
func Render(scrapeOptions jsontext.Value) []Option {
	var m map[string]jsontext.Value
	if json.Unmarshal(scrapeOptions, &m, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) != nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(order, a), slices.Index(order, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []Option
	for _, name := range names {
		v := m[name]
		if isDefault(name, v) {
			continue
		}
		o := Option{Name: clean(name)}
		switch name {
		case "formats":
			o.Value, o.Renamed = formats(v)
		case "maxAge":
			o.Value = maxAge(v)
		case "actions":
			o.Value = actions(v)
		case "location":
			o.Value = location(v)
		case "headers":
			o.Value = headers(v)
		case "parsers":
			o.Value = parsers(v)
		case "parsePDF":
			o.Value = scalar(v)
			o.Renamed = `v1 option: v2 uses parsers: ["pdf"]`
		case "extract", "jsonOptions":
			o.Value = short(v, 60)
			o.Renamed = `v1 option: v2 uses a {type: "json"} format`
		case "includeTags", "excludeTags":
			o.Value = strings.Join(strs(v), ", ")
		default:
			if v.Kind() == '"' {
				o.Value = trunc(scalar(v), 60)
			} else {
				o.Value = short(v, 60)
			}
		}
		out = append(out, o)
	}
	return out
}

// Pretty is all of a crawl's options as indented JSON, sanitised: the
// "show everything" view.
func Pretty(v jsontext.Value) string {
	c := v.Clone()
	if err := c.Indent(jsontext.WithIndent("  ")); err != nil {
		return text.Sanitize(string(v))
	}
	return text.Sanitize(string(c))
}

func compact(v jsontext.Value) string {
	c := v.Clone()
	if c.Compact() != nil {
		return string(v)
	}
	return string(c)
}

func clean(s string) string { return strings.Join(strings.Fields(text.Sanitize(s)), " ") }

// short is v in one line, at most n characters.
func short(v jsontext.Value, n int) string {
	s := clean(compact(v))
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func scalar(v jsontext.Value) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return clean(s)
	}
	return short(v, 40)
}

func strs(v jsontext.Value) []string {
	var list []jsontext.Value
	if json.Unmarshal(v, &list) != nil {
		return []string{short(v, 60)}
	}
	out := make([]string, 0, len(list))
	for _, it := range list {
		out = append(out, scalar(it))
	}
	return out
}

func objOf(v jsontext.Value) map[string]jsontext.Value {
	var m map[string]jsontext.Value
	if json.Unmarshal(v, &m, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) != nil {
		return nil
	}
	return m
}

// formats: strings as they are, objects by type: json{prompt, schema
// fields}, screenshot{fullPage, quality, viewport}, others by type.
func formats(v jsontext.Value) (string, string) {
	var list []jsontext.Value
	if json.Unmarshal(v, &list) != nil {
		return short(v, 60), ""
	}
	var parts []string
	renamed := ""
	for _, f := range list {
		if f.Kind() == '"' {
			s := scalar(f)
			switch s {
			case "extract", "json":
				renamed = `v1 format: v2 uses {type: "json", prompt, schema}`
			case "screenshot@fullPage":
				renamed = `v1 format: v2 uses {type: "screenshot", fullPage: true}`
			}
			parts = append(parts, s)
			continue
		}
		m := objOf(f)
		if m == nil {
			parts = append(parts, short(f, 30))
			continue
		}
		t := scalar(m["type"])
		var fields []string
		switch t {
		case "json", "extract", "changeTracking":
			if p, ok := m["prompt"]; ok {
				fields = append(fields, "prompt "+strconv.Quote(trunc(scalar(p), 40)))
			}
			if s, ok := m["schema"]; ok {
				fields = append(fields, "schema "+schemaFields(s))
			}
			if t == "extract" {
				renamed = `v1 format: "extract" is {type: "json"} in v2`
			}
		case "screenshot":
			if b, ok := m["fullPage"]; ok && compact(b) == "true" {
				fields = append(fields, "full page")
			}
			if q, ok := m["quality"]; ok {
				fields = append(fields, "quality "+short(q, 8))
			}
			if vp := objOf(m["viewport"]); vp != nil {
				fields = append(fields, short(vp["width"], 6)+"x"+short(vp["height"], 6))
			}
		default:
			for _, k := range sortedKeys(m) {
				if k != "type" {
					fields = append(fields, clean(k)+" "+short(m[k], 20))
				}
			}
		}
		parts = append(parts, t+"{"+strings.Join(fields, ", ")+"}")
	}
	return strings.Join(parts, ", "), renamed
}

func trunc(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// schemaFields names a schema's top-level properties: "{title, versions}".
func schemaFields(v jsontext.Value) string {
	m := objOf(v)
	props := objOf(m["properties"])
	if props == nil {
		return "{…}"
	}
	keys := sortedKeys(props)
	for i := range keys {
		keys[i] = clean(keys[i])
	}
	if len(keys) > 5 {
		keys = append(keys[:5], "…")
	}
	return "{" + strings.Join(keys, ", ") + "}"
}

func sortedKeys(m map[string]jsontext.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// maxAge in milliseconds, as a duration ("0 (no cache)", "1h", "2d").
func maxAge(v jsontext.Value) string {
	var ms float64
	if json.Unmarshal(v, &ms) != nil {
		return short(v, 20)
	}
	if ms <= 0 {
		return "0 (no cache)"
	}
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// actions: "wait 1500ms → click #accept-cookies → scroll down".
func actions(v jsontext.Value) string {
	var list []jsontext.Value
	if json.Unmarshal(v, &list) != nil {
		return short(v, 60)
	}
	parts := make([]string, 0, len(list))
	for _, a := range list {
		m := objOf(a)
		if m == nil {
			parts = append(parts, short(a, 20))
			continue
		}
		p := scalar(m["type"])
		if ms, ok := m["milliseconds"]; ok {
			p += " " + short(ms, 8) + "ms"
		}
		if s, ok := m["selector"]; ok {
			p += " " + trunc(scalar(s), 30)
		}
		for _, k := range []string{"direction", "text", "key", "script"} {
			if x, ok := m[k]; ok {
				p += " " + trunc(scalar(x), 30)
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " → ")
}

// location: "DE (de-DE, en)".
func location(v jsontext.Value) string {
	m := objOf(v)
	if m == nil {
		return short(v, 40)
	}
	s := scalar(m["country"])
	if s == "" {
		s = "US"
	}
	if l, ok := m["languages"]; ok {
		s += " (" + strings.Join(strs(l), ", ") + ")"
	}
	return s
}

// headers: names and values, values of credentials hidden.
func headers(v jsontext.Value) string {
	m := objOf(v)
	if m == nil {
		return short(v, 40)
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		val := trunc(scalar(m[k]), 30)
		lk := strings.ToLower(k)
		if strings.Contains(lk, "auth") || strings.Contains(lk, "cookie") || strings.Contains(lk, "token") || strings.Contains(lk, "key") || strings.Contains(lk, "secret") {
			val = "(hidden)"
		}
		parts = append(parts, clean(k)+": "+val)
	}
	return strings.Join(parts, "; ")
}

// parsers: "pdf (maxPages 50)".
func parsers(v jsontext.Value) string {
	var list []jsontext.Value
	if json.Unmarshal(v, &list) != nil {
		return short(v, 40)
	}
	var parts []string
	for _, p := range list {
		if p.Kind() == '"' {
			parts = append(parts, scalar(p))
			continue
		}
		m := objOf(p)
		s := scalar(m["type"])
		var extra []string
		for _, k := range sortedKeys(m) {
			if k != "type" {
				extra = append(extra, clean(k)+" "+short(m[k], 12))
			}
		}
		if len(extra) > 0 {
			s += " (" + strings.Join(extra, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Lines renders opts as "name: value" lines ("  ⚠ renamed" after a v1
// leftover), for plain output.
func Lines(opts []Option) []string {
	var b bytes.Buffer
	out := make([]string, 0, len(opts))
	for _, o := range opts {
		b.Reset()
		b.WriteString(o.Name)
		b.WriteString(": ")
		b.WriteString(o.Value)
		if o.Renamed != "" {
			b.WriteString("  [renamed: ")
			b.WriteString(o.Renamed)
			b.WriteString("]")
		}
		out = append(out, b.String())
	}
	return out
}
