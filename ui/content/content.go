// Package content shows the content of an artifact snapshot by its kind, in
// a scrollable box, and saves it to a file.
//
//   - json: pretty, highlighted and foldable (a jsonview.Model); a snapshot
//     that is not JSON is shown as text with a note.
//   - markdown: rendered with glamour (dark, light or notty style, wrapped to
//     the width). Rendering runs in a command, off the update loop; until
//     it is done the text is shown as it is. Rendered lines are cached in the
//     Renderer by content hash, width and style. Above Options.MaxMarkdown
//     bytes the text is shown as it is, with a note.
//   - html: the source as text, tags dimmed.
//   - text, and kinds this program does not know: the text (unknown kinds
//     with a note).
//   - screenshot: its reference (a URL or a path, which Reference returns
//     for copying or opening), with a note that images are not drawn here.
//     Inline data: URLs are summarised, not printed.
//
// The snapshot is untrusted: everything shown is sanitised (text.Sanitize),
// markdown before and after glamour (see renderMarkdown), and glamour's
// hyperlinks are kept only with well-formed http(s)/mailto targets.
//
// Keys: ↑/k ↓/j, pgup/pgdn, ctrl+u/ctrl+d, g/G (and for JSON, the jsonview
// keys). The Model implements help.KeyMap.
package content

import (
	"crypto/sha256"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/internal/scroll"
	"github.com/firewatch/firewatch/ui/jsonview"
)

// Styles are the looks of the content parts.
type Styles struct {
	JSON jsonview.Styles
	Text lipgloss.Style
	Tag  lipgloss.Style // HTML tags and comments
	Ref  lipgloss.Style // a screenshot's reference
	Note lipgloss.Style // "images are not drawn here", "shown as text: ..."
}

// DefaultStyles uses the 16 ANSI colours.
func DefaultStyles() Styles {
	return Styles{
		JSON: jsonview.DefaultStyles(),
		Tag:  lipgloss.NewStyle().Foreground(lipgloss.BrightBlack),
		Ref:  lipgloss.NewStyle().Foreground(lipgloss.Cyan).Underline(true),
		Note: lipgloss.NewStyle().Foreground(lipgloss.Yellow).Italic(true),
	}
}

// PlainStyles has no colour, attributes only (NO_COLOR).
func PlainStyles() Styles {
	return Styles{
		JSON: jsonview.PlainStyles(),
		Tag:  lipgloss.NewStyle().Faint(true),
		Ref:  lipgloss.NewStyle().Underline(true),
		Note: lipgloss.NewStyle().Italic(true),
	}
}

// Options configure a Renderer.
type Options struct {
	// Glamour is the glamour style for markdown: GlamourDark (default),
	// GlamourLight, GlamourNoTTY (for NO_COLOR) or GlamourASCII.
	Glamour GlamourStyle
	// ASCII draws the viewer's own symbols in ASCII.
	ASCII bool
	// MaxMarkdown is the largest markdown, in bytes, rendered with glamour
	// (DefaultMaxMarkdown); larger markdown is shown as text.
	MaxMarkdown int
	// CacheEntries bounds the rendered-markdown cache (DefaultCacheEntries).
	CacheEntries int
}

// Defaults.
const (
	DefaultMaxMarkdown  = 128 << 10
	DefaultCacheEntries = 32
)

// Renderer holds what the content views share: styles, options and the
// cache of rendered markdown. It is safe for concurrent use (rendering runs
// in commands). Make one for the program.
type Renderer struct {
	styles Styles
	opts   Options

	mu    sync.Mutex
	cache map[cacheKey][]string
	order []cacheKey
}

type cacheKey struct {
	hash  [sha256.Size]byte
	width int
	style string
}

// NewRenderer returns a Renderer.
func NewRenderer(styles Styles, opts Options) *Renderer {
	if opts.Glamour == "" {
		opts.Glamour = GlamourDark
	}
	if opts.MaxMarkdown <= 0 {
		opts.MaxMarkdown = DefaultMaxMarkdown
	}
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = DefaultCacheEntries
	}
	return &Renderer{styles: styles, opts: opts, cache: map[cacheKey][]string{}}
}

func (r *Renderer) cached(k cacheKey) ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.cache[k]
	return l, ok
}

func (r *Renderer) store(k cacheKey, lines []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cache[k]; ok {
		return
	}
	r.cache[k] = lines
	r.order = append(r.order, k)
	for len(r.order) > r.opts.CacheEntries {
		delete(r.cache, r.order[0])
		r.order = r.order[1:]
	}
}

// markdown renders src (whose hash is h) at width, through the cache.
func (r *Renderer) markdown(src string, h [sha256.Size]byte, width int) ([]string, error) {
	k := cacheKey{h, width, r.opts.Glamour}
	if l, ok := r.cached(k); ok {
		return l, nil
	}
	lines, err := renderMarkdown(src, r.opts.Glamour, width)
	if err != nil {
		return nil, err
	}
	r.store(k, lines)
	return lines, nil
}

// line is one screen line of non-JSON content: text in a style, or (for
// markdown) text already styled by glamour.
type line struct {
	text   string
	style  *lipgloss.Style
	styled bool
	html   htmlState // for HTML: the tag state at the line's start
}

// Model shows one snapshot.
type Model struct {
	KeyMap KeyMap
	st     *state
}

type state struct {
	r    *Renderer
	kind model.ArtifactKind
	src  string
	hash [sha256.Size]byte
	id   uint64

	json *jsonview.Model // for json

	note string // shown above the content
	ref  string // a screenshot's reference

	width, height int
	offset        int

	lines      []line
	linesWidth int
	glamour    bool // lines are glamour's
	rendering  int  // width being rendered in a command, 0 when none
	renderErr  string
}

var ids atomic.Uint64

// New returns the view of snapshot, an artifact version's content as the
// snapshot endpoint returned it, for an artifact of kind.
func New(r *Renderer, kind model.ArtifactKind, snapshot string) Model {
	st := &state{r: r, kind: kind, src: snapshot, id: ids.Add(1), linesWidth: -1}
	switch kind {
	case model.KindJSON:
		opts := []jsonview.Option{jsonview.WithASCII(r.opts.ASCII)}
		j := jsonview.New(jsontext.Value(snapshot), r.styles.JSON, opts...)
		st.json = &j
	case model.KindMarkdown:
		st.hash = sha256.Sum256([]byte(snapshot))
		if len(snapshot) > r.opts.MaxMarkdown {
			st.note = "shown as text: " + text.Size(len(snapshot)) + " is too large to render as markdown"
		}
	case model.KindScreenshot:
		st.ref, st.note = screenshotRef(snapshot)
	case model.KindHTML, model.KindText:
	default:
		st.note = "unknown kind " + text.Quote(string(kind)) + ": shown as text"
	}
	km := DefaultKeyMap()
	if r.opts.ASCII {
		km = km.ASCII()
	}
	return Model{KeyMap: km, st: st}
}

// screenshotRef returns the reference to show and the note for a
// screenshot snapshot.
func screenshotRef(s string) (ref, note string) {
	s = strings.TrimSpace(s)
	const images = "a screenshot: images are not drawn in a terminal"
	if strings.HasPrefix(strings.ToLower(s), "data:") {
		mime, _, _ := strings.Cut(s[len("data:"):], ",")
		mime, _, _ = strings.Cut(mime, ";")
		mime = text.Sanitize(mime)
		if len(mime) > 40 || mime == "" {
			mime = "unknown type"
		}
		return "", images + "; this one is inline data (" + mime + ", " + text.Size(len(s)) + "), not shown"
	}
	s = text.Sanitize(s)
	if s == "" {
		return "", images + "; this one has no reference"
	}
	return s, images + "; y copies its reference, o opens it when it is a link"
}

// Kind is the snapshot's artifact kind.
func (m Model) Kind() model.ArtifactKind { return m.st.kind }

// Note is what is said above the content ("" when nothing).
func (m Model) Note() string {
	if m.st.renderErr != "" {
		return m.st.renderErr
	}
	return m.st.note
}

// Reference is a screenshot's reference (URL or path), sanitised; "" for
// other kinds.
func (m Model) Reference() string { return m.st.ref }

// JSON is the JSON viewer of a json snapshot, nil for other kinds.
func (m Model) JSON() *jsonview.Model { return m.st.json }

// Rendering reports whether markdown is being rendered in a command (the
// text is shown as it is meanwhile).
func (m Model) Rendering() bool { return m.st.rendering != 0 }

// CopyText is what y copies and what it is: the JSON value under the cursor
// (with its path), a screenshot's reference, or the whole content; all
// sanitised.
func (m Model) CopyText() (s, what string) {
	st := m.st
	switch {
	case st.json != nil:
		if sel, ok := st.json.Selected(); ok {
			if sel.Path == "" || sel.Path == "$" {
				return sel.Text, "JSON"
			}
			return sel.Text, "JSON at " + sel.Path
		}
		return "", ""
	case st.kind == model.KindScreenshot:
		return st.ref, "screenshot reference"
	}
	return text.Sanitize(st.src), string(st.kind) + " content"
}

// SetSize sets the box. For markdown it returns the command that renders it
// at the new width (nil when cached or not needed): pass it on to the
// program.
func (m *Model) SetSize(width, height int) tea.Cmd {
	st := m.st
	st.width, st.height = max(width, 0), max(height, 0)
	if st.json != nil {
		st.json.SetSize(st.width, max(st.height-m.noteHeight(), 0))
		return nil
	}
	cmd := m.layout()
	m.clamp()
	return cmd
}

// noteHeight is the number of rows the note takes.
func (m Model) noteHeight() int {
	if n := m.Note(); n != "" && m.st.width > 0 {
		return len(wrapText(n, m.st.width))
	}
	return 0
}

// renderedMsg carries glamour's lines back to the model that asked.
type renderedMsg struct {
	id    uint64
	width int
	lines []string
	err   error
}

// layout builds the lines for the width; for markdown it uses the cache or
// starts a render.
func (m Model) layout() tea.Cmd {
	st := m.st
	if st.width <= 0 || st.linesWidth == st.width {
		return nil
	}
	if st.kind == model.KindMarkdown && st.note == "" && st.renderErr == "" {
		if l, ok := st.r.cached(cacheKey{st.hash, st.width, st.r.opts.Glamour}); ok {
			st.setGlamour(l, st.width)
			return nil
		}
		// Show the text as it is until the render is in.
		st.lines, st.linesWidth, st.glamour = textLines(st.src, st.width, &st.r.styles.Text), st.width, false
		return m.render()
	}
	switch st.kind {
	case model.KindHTML:
		st.lines = htmlLines(st.src, st.width)
	case model.KindScreenshot:
		st.lines = nil
		for _, l := range wrapText(st.ref, st.width) {
			st.lines = append(st.lines, line{text: l, style: &st.r.styles.Ref})
		}
	default:
		st.lines = textLines(st.src, st.width, &st.r.styles.Text)
	}
	st.linesWidth, st.glamour = st.width, false
	return nil
}

// render returns the command rendering the markdown at the current width,
// unless one is already running (it is started again for the latest width
// when it finishes).
func (m Model) render() tea.Cmd {
	st := m.st
	if st.rendering != 0 {
		return nil
	}
	st.rendering = st.width
	r, src, h, w, id := st.r, st.src, st.hash, st.width, st.id
	return func() tea.Msg {
		lines, err := r.markdown(src, h, w)
		return renderedMsg{id: id, width: w, lines: lines, err: err}
	}
}

func (st *state) setGlamour(l []string, width int) {
	st.lines = make([]line, len(l))
	for i, t := range l {
		st.lines[i] = line{text: t, styled: true}
	}
	st.linesWidth, st.glamour = width, true
}

// Update handles the keys and the end of a markdown render.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	st := m.st
	if r, ok := msg.(renderedMsg); ok {
		if r.id != st.id {
			return m, nil
		}
		st.rendering = 0
		if r.err != nil {
			st.renderErr = "shown as text: the markdown could not be rendered (" + text.Sanitize(r.err.Error()) + ")"
			return m, nil
		}
		if r.width == st.width {
			st.setGlamour(r.lines, r.width)
			m.clamp()
			return m, nil
		}
		return m, m.render() // resized meanwhile
	}
	if st.json != nil {
		j, cmd := st.json.Update(msg)
		*st.json = j
		return m, cmd
	}
	switch msg.(type) {
	case tea.KeyPressMsg, tea.MouseWheelMsg:
		keys := m.KeyMap.Keys
		st.offset, _ = scroll.Move(msg, keys, st.offset, max(m.bodyHeight(), 1), len(st.lines))
		m.clamp()
	}
	return m, nil
}

func (m Model) bodyHeight() int { return max(m.st.height-m.noteHeight(), 0) }

func (m Model) clamp() {
	st := m.st
	st.offset = scroll.Clamp(st.offset, len(st.lines), m.bodyHeight())
}

// Offset is the first visible line; Len the number of lines.
func (m Model) Offset() int { return m.st.offset }
func (m Model) Len() int {
	if m.st.json != nil {
		return m.st.json.Len()
	}
	return len(m.st.lines)
}

// View renders the note and the visible lines: at most Height lines, none
// wider than Width.
func (m Model) View() string {
	st := m.st
	if st.width <= 0 || st.height <= 0 {
		return ""
	}
	var out []string
	if n := m.Note(); n != "" {
		for _, l := range wrapText(n, st.width) {
			out = append(out, st.r.styles.Note.Render(l))
		}
		out = out[:min(len(out), st.height)]
	}
	if st.json != nil {
		if v := st.json.View(); v != "" && len(out) < st.height {
			out = append(out, v)
		}
		return strings.Join(out, "\n")
	}
	m.layout() // a no-op unless the width changed without SetSize
	m.clamp()
	end := min(st.offset+st.height-len(out), len(st.lines))
	for i := st.offset; i < end; i++ {
		out = append(out, m.renderLine(st.lines[i]))
	}
	return strings.Join(out, "\n")
}

func (m Model) renderLine(l line) string {
	switch {
	case l.styled:
		return l.text
	case m.st.kind == model.KindHTML:
		return renderHTML(l, &m.st.r.styles)
	case l.style != nil:
		return l.style.Render(l.text)
	}
	return l.text
}

// textLines sanitises text, expands tabs and word-wraps it to width.
func textLines(s string, width int, style *lipgloss.Style) []line {
	var out []line
	for _, l := range wrapText(s, width) {
		out = append(out, line{text: l, style: style})
	}
	return out
}

// wrapText sanitises s, expands tabs and wraps it to width: at spaces where
// it can, inside words where it must.
func wrapText(s string, width int) []string {
	s = strings.TrimSuffix(text.Sanitize(s), "\n")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = text.ExpandTabs(l)
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(l, width, ""), "\n")...)
	}
	return out
}
