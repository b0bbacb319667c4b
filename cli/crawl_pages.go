package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// --pages-dir: each page's markdown in a file of its own, named from its
// URL and a short hash of it (pageName), never over another file, the
// secrets redacted; and an index of URL → file (pagesIndex).

// pagesIndex is the index --pages-dir keeps: one JSON object a line,
// {"url":…,"file":…}, appended as each page is written (a second watch
// into the same folder adds its own lines).
const pagesIndex = "index.jsonl"

// pageNameMax is the readable part of a page file's name, in bytes.
const pageNameMax = 100

// pageName is a page's file name, without its extension: the URL made safe
// (uicrawl.PageFileName) and cut to pageNameMax bytes, then 10 hex digits
// of the URL's SHA-256, so that pages whose URLs share their start still
// get names of their own.
func pageName(pageURL string) string {
	base := uicrawl.PageFileName(pageURL) // ASCII only: cut anywhere
	if len(base) > pageNameMax {
		base = strings.TrimRight(base[:pageNameMax], "_.-")
	}
	h := sha256.Sum256([]byte(pageURL))
	return base + "-" + hex.EncodeToString(h[:5])
}

// pageWriter writes --pages-dir.
type pageWriter struct {
	dir     string
	secrets *text.Secrets
	mu      sync.Mutex
	next    map[string]int // by name: the suffix to try next (a URL seen again, or a file already there)
	index   *os.File
}

func newPageWriter(dir string, secrets *text.Secrets) (*pageWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ip := filepath.Join(dir, pagesIndex)
	// Appended to, so never through a link planted there.
	if fi, err := os.Lstat(ip); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", ip)
	}
	index, err := os.OpenFile(ip, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &pageWriter{dir: dir, secrets: secrets, next: map[string]int{}, index: index}, nil
}

// maxSameName bounds the files tried for one name (the same URL again and
// again, or a folder full of an earlier watch's files).
const maxSameName = 1 << 20

func (p *pageWriter) write(d *poller.CrawlDoc) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	base := pageName(d.URL)
	for n := p.next[base]; n < maxSameName; n++ {
		name := base + ".md"
		if n > 0 {
			name = base + "-" + strconv.Itoa(n+1) + ".md"
		}
		// O_EXCL: an existing file (or a symlink planted there) is
		// never written through.
		f, err := os.OpenFile(filepath.Join(p.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		p.next[base] = n + 1
		_, err = io.WriteString(f, p.secrets.Redact(d.Markdown))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		line, _ := json.Marshal(struct {
			URL  string `json:"url"`
			File string `json:"file"`
		}{d.URL, name})
		line, _ = p.secrets.RedactJSON(line)
		_, err = p.index.Write(append(line, '\n'))
		return err
	}
	return fmt.Errorf("%d files named %s.md already", maxSameName, base)
}

// Close closes the index; a failed close is a failed write.
func (p *pageWriter) Close() error { return p.index.Close() }

// checkPagesDir says, creating nothing, whether dir can be --pages-dir:
// a folder firewatch can create files in, or a path whose nearest
// existing parent is one.
func checkPagesDir(dir string) error {
	want := filepath.Clean(dir)
	for p := want; ; {
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir() && p == want:
			return badUsage("--pages-dir %q: it is a file, not a folder", dir)
		case err == nil && !fi.IsDir():
			return badUsage("--pages-dir %q: %s is a file, not a folder", dir, p)
		case err == nil:
			if err := outputs.CanCreateIn(p); err != nil {
				return badUsage("--pages-dir %q: cannot create files in %s: %v", dir, p, err)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return badUsage("--pages-dir %q: %v", dir, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return badUsage("--pages-dir %q: %v", dir, err)
		}
		p = parent
	}
}
