package crawl

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// pageStore keeps the pages' documents out of memory: each document's
// JSON (already redacted of the key) is appended to a private temporary
// file (mode 0600) and read back when the page is opened. On Unix the file
// is unlinked as soon as it is open, so nothing is left behind whatever
// ends the program (exit, SIGHUP, a crash); elsewhere Close removes it.
type pageStore struct {
	mu     sync.Mutex
	f      *os.File
	name   string // "" once unlinked
	size   int64
	failed error
}

func newPageStore() (*pageStore, error) {
	f, err := os.CreateTemp("", "firewatch-crawl-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	s := &pageStore{f: f, name: f.Name()}
	if unlinkOpen && os.Remove(f.Name()) == nil {
		s.name = ""
	}
	return s, nil
}

// add appends b and returns where it is.
func (s *pageStore) add(b []byte) (off int64, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return 0, 0, s.failed
	}
	if _, err := s.f.WriteAt(b, s.size); err != nil {
		s.failed = err
		return 0, 0, err
	}
	off = s.size
	s.size += int64(len(b))
	return off, len(b), nil
}

// get reads what add stored at off.
func (s *pageStore) get(off int64, n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := s.f.ReadAt(b, off)
	return b, err
}

// Close closes and removes the file.
func (s *pageStore) Close() error {
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	return err
}

// maxPageName bounds a page file's name before its suffix and extension.
const maxPageName = 120

// PageFileName makes a file name of a page's URL: host and path, every
// character outside [A-Za-z0-9.-] turned into "_", runs of them collapsed,
// no leading dot and no "..", so never a path or "." or ".."; at most
// maxPageName bytes; "index" when nothing is left. Callers add the
// extension and a suffix on collision.
func PageFileName(raw string) string {
	s := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		s = u.Host + path.Clean("/"+u.EscapedPath())
		if u.RawQuery != "" {
			s += "_" + u.RawQuery
		}
	}
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-'
		if !ok {
			if !under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = true
			continue
		}
		under = false
		b.WriteRune(r)
	}
	name := b.String()
	for strings.Contains(name, "..") {
		name = strings.ReplaceAll(name, "..", ".")
	}
	if len(name) > maxPageName {
		name = name[:maxPageName]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	name = strings.Trim(name, "_.-")
	if name == "" {
		name = "index"
	}
	return name
}

// SavePage writes content to dir under the page's name with ext (".md"),
// never over an existing file (O_EXCL; a suffix -2, -3... on collision),
// with the secrets redacted. It returns the path written.
func SavePage(dir, pageURL, ext, content string, secrets *text.Secrets) (string, error) {
	if dir == "" {
		dir = "."
	}
	base := PageFileName(pageURL)
	for n := 1; n < 10000; n++ {
		name := base + ext
		if n > 1 {
			name = base + "-" + strconv.Itoa(n) + ext
		}
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if secrets != nil {
			content = secrets.Redact(content)
		}
		_, err = f.WriteString(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return p, err
	}
	return "", fmt.Errorf("too many files named %s in %s", base+ext, dir)
}

// The rows: one per page (metadata only; the documents are in the
// pageStore above), failed and robots-blocked pages among them, and the
// filter's view.

// addRow adds a row, to the filter's view too when it matches.
func (m *Model) addRow(r row) {
	m.rows = append(m.rows, r)
	if m.view != nil && m.matches(&m.rows[len(m.rows)-1]) {
		m.view = append(m.view, int32(len(m.rows)-1))
	}
}

// applyErrors adds the failed and robots-blocked pages not shown yet.
func (m *Model) applyErrors(e *poller.CrawlErrors) {
	for _, x := range e.Errors {
		k := "f" + x.URL
		if m.bad[k] || len(m.rows) >= maxRows {
			continue
		}
		m.bad[k] = true
		m.failed++
		m.addRow(row{url: x.URL, kind: kindFailed, err: x.Error})
	}
	for _, u := range e.RobotsBlocked {
		k := "r" + u
		if m.bad[k] || len(m.rows) >= maxRows {
			continue
		}
		m.bad[k] = true
		m.robots++
		m.addRow(row{url: u, kind: kindRobots, err: "blocked by robots.txt"})
	}
}

func (m *Model) matches(r *row) bool {
	f := strings.ToLower(m.filter)
	if f == "" {
		return true
	}
	switch {
	case strings.Contains(strings.ToLower(r.url), f), strings.Contains(strings.ToLower(r.title), f):
		return true
	case r.kind == kindFailed && strings.Contains("failed", f), r.kind == kindRobots && strings.Contains("robots", f):
		return true
	}
	return false
}

func (m *Model) rebuild() {
	if m.filter == "" {
		m.view = nil
	} else {
		m.view = m.view[:0:0]
		for i := range m.rows {
			if m.matches(&m.rows[i]) {
				m.view = append(m.view, int32(i))
			}
		}
	}
	m.sel = min(m.sel, max(m.shown()-1, 0))
}

func (m *Model) shown() int {
	if m.view != nil || m.filter != "" {
		return len(m.view)
	}
	return len(m.rows)
}

func (m *Model) rowAt(i int) *row {
	if m.view != nil || m.filter != "" {
		return &m.rows[m.view[i]]
	}
	return &m.rows[i]
}

func (m *Model) selected() *row {
	if m.sel < 0 || m.sel >= m.shown() {
		return nil
	}
	return m.rowAt(m.sel)
}
