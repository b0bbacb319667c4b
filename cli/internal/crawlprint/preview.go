package crawlprint

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// The widest option name and value crawl-preview prints, in cells.
const (
	maxNameCells  = 40
	maxValueCells = 2000
)

// Preview prints crawl-preview's answer p on w: with asJSON its data as
// one line, the secrets redacted; else an aligned list of its options,
// and the service's warning on stderr.
func (e Env) Preview(w io.Writer, p *poller.CrawlPreview, asJSON bool) {
	if asJSON {
		v, _ := e.Secrets.RedactJSON(p.Data) // the key, in whatever form the service echoed it
		fmt.Fprintf(w, "%s\n", compact(v))
		return
	}
	// Bounded cells: a hostile name or value neither widens every row nor
	// prints megabytes on one line.
	width := 0
	for _, op := range p.Options {
		width = max(width, ansi.StringWidth(describe.OneLine(op.Name, maxNameCells)))
	}
	for _, op := range p.Options {
		name := describe.OneLine(op.Name, maxNameCells)
		fmt.Fprintf(w, "%s%s  %s\n", name, strings.Repeat(" ", width-ansi.StringWidth(name)), describe.OneLine(previewValue(op.Value), maxValueCells))
	}
	if p.Warning != "" {
		fmt.Fprintf(e.Stderr, "firewatch: the service warns: %s\n", p.Warning)
	}
}

// AskStart asks on stderr whether to start the previewed crawl and reads
// the answer, one key, from the terminal f in raw mode, what was typed
// before the question dropped: y or Y is yes.
func AskStart(f *os.File, stderr io.Writer) bool {
	fmt.Fprint(stderr, "Start this crawl? [y/N] ")
	yes, err := readKey(f)
	if err != nil || !yes {
		fmt.Fprintln(stderr, "no")
		return false
	}
	fmt.Fprintln(stderr, "yes")
	return true
}

func readKey(f *os.File) (bool, error) {
	st, err := term.MakeRaw(f.Fd())
	if err != nil {
		return false, err
	}
	defer term.Restore(f.Fd(), st)
	flushInput(f.Fd())
	var b [8]byte
	n, err := f.Read(b[:])
	if err != nil {
		return false, err
	}
	return n == 1 && (b[0] == 'y' || b[0] == 'Y'), nil
}

// previewValue is an option's value for the aligned list: strings as they
// are, empty lists as "(none)", other values as compact JSON; sanitised.
func previewValue(v jsontext.Value) string {
	switch v.Kind() {
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return text.Sanitize(s)
	case 'n':
		return "(not set)"
	case '[':
		var items []jsontext.Value
		if json.Unmarshal(v, &items) == nil {
			if len(items) == 0 {
				return "(none)"
			}
			parts := make([]string, len(items))
			for i, it := range items {
				parts[i] = previewValue(it)
			}
			return strings.Join(parts, ", ")
		}
	}
	return text.Sanitize(string(compact(v))) // the client redacted the answer
}

// compact is v on one line; v as it is when it is not JSON.
func compact(v []byte) []byte {
	c := jsontext.Value(v).Clone()
	if err := c.Compact(); err != nil {
		return v
	}
	return c
}
