package ui

import (
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	artcontent "github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/diff"
)

// artifactView is an artifact's detail: its version history (each
// artifact.updated with its change, changed fields, item count and
// producing tool call), newest first, and under it the content of the
// selected version, fetched from the snapshot endpoint (a spinner while it
// loads, the error if it fails, cached for the program once fetched) and
// shown by kind (ui/content). tab moves between the two; d shows what
// changed since the previous version; s saves the content; y copies; o
// opens a screenshot's link; r retries a failed fetch.
type artifactView struct {
	stackBase
	e *env
	a *model.Artifact

	head     textView
	versions *listBody
	selV     *model.ArtifactVersion
	focusC   bool // the content has the focus (else the versions)
	w, h     int

	contents map[string]*contentBody // by snapshot id
	diffs    map[[2]string]*diffBody
	diffOn   bool

	started  bool
	saveWhen bool // s was pressed before the content was in
	openWhen bool // o likewise
}

func newArtifactView(e *env, a *model.Artifact) *artifactView {
	v := &artifactView{e: e, a: a, head: textView{ascii: e.ascii}, focusC: true,
		contents: map[string]*contentBody{}, diffs: map[[2]string]*diffBody{}}
	v.selV = a.Latest()
	v.versions = &listBody{e: e, empty: "no versions",
		n:   func() int { return len(a.Versions) },
		row: v.versionRow,
		copy: func(i int) (string, string) {
			return v.versionAt(i).Ref.SnapshotID, "snapshot id"
		},
		moved: func(i int) tea.Cmd {
			v.selV = v.versionAt(i)
			return v.load()
		},
	}
	v.buildHead()
	return v
}

func (v *artifactView) title() string {
	name := v.a.Path
	if name == "" {
		name = v.a.ID
	}
	return "Artifact " + name
}

// versionAt is the version on row i: newest first.
func (v *artifactView) versionAt(i int) *model.ArtifactVersion {
	vs := v.a.Versions
	return vs[max(0, min(len(vs)-1, len(vs)-1-i))]
}

// number is a version's 1-based number, 0 when not found.
func (v *artifactView) number(x *model.ArtifactVersion) int {
	for i := len(v.a.Versions) - 1; i >= 0; i-- {
		if v.a.Versions[i] == x {
			return i + 1
		}
	}
	return 0
}

// previous is the version before x, nil for the first.
func (v *artifactView) previous(x *model.ArtifactVersion) *model.ArtifactVersion {
	if n := v.number(x); n > 1 {
		return v.a.Versions[n-2]
	}
	return nil
}

func (v *artifactView) buildHead() {
	a, e := v.a, v.e
	f := &fields{env: e}
	f.field("artifact", a.ID+" · "+string(a.Kind)+" · "+orDash(a.Path)+" · "+describe.Count(len(a.Versions), "version"))
	v.head.setLines(f.lines)
}

func (v *artifactView) versionRow(i, w int, selected bool) string {
	e, st := v.e, v.e.st
	x := v.versionAt(i)
	n := len(v.a.Versions) - i
	items := ""
	if x.Ref.HasItemCount {
		items = describe.Count(x.Ref.ItemCount, "item")
	}
	fieldsText := ""
	if len(x.Ref.ChangedFields) > 0 {
		fieldsText = "[" + strings.Join(x.Ref.ChangedFields, ", ") + "]"
	}
	tool := ""
	if t := x.SourceToolCall; t != nil {
		tool = e.sym.Arrow + " " + describe.ShortToolName(t.Name)
		if t.Agent != nil {
			tool += " (" + t.Agent.Name + ")"
		}
		tool += " " + t.ID
	} else if id := x.Ref.SourceToolCallID; id != "" {
		tool = e.sym.Arrow + " " + id
	}
	mark := " "
	if x == v.selV {
		mark = e.sym.PhaseArrow
	}
	fw := clamp(w/5, 8, 30)
	if selected {
		text := mark + padRight("v"+itoa(n), 5) + e.clockTime(x.Event.OccurredAt) + "  " + padRight(string(x.Ref.Change), 8) + padLeft(items, 10) + "  " + padRight(fieldsText, fw) + " " + tool
		return styled(st.Selected, text, w, e.ascii)
	}
	r := newRow(w, e.ascii)
	r.add(st.Accent, mark)
	r.addFixed(st.Bold, "v"+itoa(n), 5)
	r.addCol(st.Muted, e.clockTime(x.Event.OccurredAt), timeW)
	r.space(1)
	r.addFixed(st.Text, string(x.Ref.Change), 8)
	r.addFixed(st.Text, padLeft(items, 10), 10)
	r.space(2)
	r.addFixed(st.Muted, fieldsText, fw)
	r.space(1)
	r.add(st.Muted, tool)
	return r.String()
}

// Layout: head, the versions rule and rows, the content rule and body.

func (v *artifactView) headRows() int { return min(len(v.head.layout()), 2) }

func (v *artifactView) versionRows() int {
	room := v.h - v.headRows() - 2
	return max(1, min(len(v.a.Versions), max(2, room/4)))
}

func (v *artifactView) bodySize() (int, int) {
	return v.w, max(1, v.h-v.headRows()-v.versionRows()-2)
}

func (v *artifactView) setSize(w, h int) tea.Cmd {
	v.w, v.h = w, h
	cmds := []tea.Cmd{v.head.setSize(w, h)}
	v.versions.setSize(w, v.versionRows())
	if !v.started {
		v.started = true
		cmds = append(cmds, v.load())
	}
	cmds = append(cmds, v.sizeBody())
	return tea.Batch(cmds...)
}

// load fetches what the selected view needs: the selected version's
// snapshot, and the previous one's for a diff.
func (v *artifactView) load() tea.Cmd {
	if v.selV == nil {
		return nil
	}
	cmds := []tea.Cmd{v.fetch(v.selV)}
	if p := v.previous(v.selV); v.diffOn && p != nil {
		cmds = append(cmds, v.fetch(p))
	}
	return tea.Batch(append(cmds, v.sizeBody(), v.pending())...)
}

// kindOf is the kind of a version's content.
func (v *artifactView) kindOf(x *model.ArtifactVersion) model.ArtifactKind {
	if x.Ref.Kind != "" {
		return x.Ref.Kind
	}
	return v.a.Kind
}

// fetch asks the root for a version's snapshot unless it is loaded or
// loading (see snapshots.fetch); the cache is the root's to write.
func (v *artifactView) fetch(x *model.ArtifactVersion) tea.Cmd {
	if en := v.e.snaps.get(x.Ref.SnapshotID); en != nil && (en.loading || en.ok) {
		return nil
	}
	return want(snapshotWantMsg{id: x.Ref.SnapshotID, kind: v.kindOf(x)})
}

// versionOf is the version with snapshot id, the selected one if none.
func (v *artifactView) versionOf(id string) *model.ArtifactVersion {
	for _, x := range v.a.Versions {
		if x.Ref.SnapshotID == id {
			return x
		}
	}
	return v.selV
}

// current is the body shown under the versions, nil while it cannot be
// shown (loading, failed, computing).
func (v *artifactView) current() body {
	if v.selV == nil {
		return nil
	}
	if v.diffOn {
		return v.diffBody()
	}
	if b := v.contentBody(); b != nil {
		return b
	}
	return nil
}

func (v *artifactView) contentBody() *contentBody {
	sid := v.selV.Ref.SnapshotID
	if b := v.contents[sid]; b != nil {
		return b
	}
	en := v.e.snaps.get(sid)
	if en == nil || !en.ok {
		return nil
	}
	kind := v.kindOf(v.selV)
	var b *contentBody
	if en.view != nil && en.kind == kind {
		// Built in the fetching command; one view per snapshot, so a
		// second view of it starts where the first one was.
		b = newContentBody(v.e, *en.view)
	} else {
		b = newContentBody(v.e, artcontent.New(v.e.render, kind, en.content))
	}
	v.contents[sid] = b
	return b
}

// diffKey is the pair of snapshots a diff compares, ok false when the
// selected version has no previous one.
func (v *artifactView) diffKey() ([2]string, *model.ArtifactVersion, bool) {
	p := v.previous(v.selV)
	if p == nil {
		return [2]string{}, nil, false
	}
	return [2]string{p.Ref.SnapshotID, v.selV.Ref.SnapshotID}, p, true
}

func (v *artifactView) diffBody() body {
	k, p, ok := v.diffKey()
	if !ok || v.selV.Ref.Kind == model.KindScreenshot {
		return nil
	}
	if b := v.diffs[k]; b != nil {
		return b
	}
	res, ok := v.e.snaps.diffs[k]
	if !ok {
		return nil
	}
	label := "v" + itoa(v.number(p)) + " " + v.e.sym.Arrow + " v" + itoa(v.number(v.selV))
	b := &diffBody{e: v.e, m: diff.New(res, v.e.cs.diff, diff.WithASCII(v.e.ascii), diff.WithLabel(label))}
	v.diffs[k] = b
	return b
}

// computeDiff asks the root for the diff of the selected version with the
// previous one once both snapshots are in.
func (v *artifactView) computeDiff() tea.Cmd {
	k, p, ok := v.diffKey()
	if !ok || !v.diffOn || !v.e.snaps.canDiff(k) {
		return nil
	}
	kind := v.selV.Ref.Kind
	if kind == "" {
		kind = p.Ref.Kind
	}
	return want(diffWantMsg{key: k, kind: kind})
}

func (v *artifactView) sizeBody() tea.Cmd {
	cmd := v.computeDiff()
	b := v.current()
	if b == nil || v.w <= 0 {
		return cmd
	}
	w, h := v.bodySize()
	return tea.Batch(cmd, b.setSize(w, h))
}

// pending does what s or o asked for before the content was in.
func (v *artifactView) pending() tea.Cmd {
	if v.selV == nil {
		return nil
	}
	en := v.e.snaps.get(v.selV.Ref.SnapshotID)
	if en == nil || en.loading {
		return nil
	}
	var cmds []tea.Cmd
	if v.saveWhen {
		v.saveWhen = false
		cmds = append(cmds, v.save())
	}
	if v.openWhen {
		v.openWhen = false
		cmds = append(cmds, v.openRef())
	}
	return tea.Batch(cmds...)
}

func (v *artifactView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	dk := v.e.dk
	km, isKey := msg.(tea.KeyPressMsg)
	if isKey {
		switch {
		case key.Matches(km, dk.Back):
			if v.diffOn {
				v.diffOn = false
				return v, v.sizeBody()
			}
			return v.back, nil
		case key.Matches(km, dk.Focus):
			v.focusC = !v.focusC
			return v, nil
		case (key.Matches(km, k.Diff) || key.Matches(km, k.Save)) && !v.e.snaps.canLoad():
			return v, flash("no content to save or compare: a replay has the artifacts' versions, not their content")
		case key.Matches(km, k.Diff):
			return v, v.toggleDiff()
		case key.Matches(km, k.Save):
			return v, v.startSave()
		case key.Matches(km, k.Copy):
			return v, v.copy()
		case key.Matches(km, k.Open):
			return v, v.startOpen()
		case key.Matches(km, dk.Retry) && v.e.snaps.canLoad():
			return v, v.retry()
		case !v.focusC && key.Matches(km, k.Enter):
			v.focusC = true
			return v, nil
		}
	}
	if !v.focusC {
		v.versions.focused = true
		return v, v.versions.update(msg, k)
	}
	if b := v.current(); b != nil {
		return v, b.update(msg, k)
	}
	return v, nil
}

func (v *artifactView) toggleDiff() tea.Cmd {
	if v.selV.Ref.Kind == model.KindScreenshot {
		return flash("screenshots are not compared: d compares JSON and text versions")
	}
	if v.previous(v.selV) == nil {
		return flash("v" + itoa(v.number(v.selV)) + " is the first version: there is nothing before it to compare")
	}
	v.diffOn = !v.diffOn
	v.focusC = true
	return v.load()
}

func (v *artifactView) retry() tea.Cmd {
	if v.selV == nil {
		return nil
	}
	var cmds []tea.Cmd
	ids := []string{v.selV.Ref.SnapshotID}
	if p := v.previous(v.selV); v.diffOn && p != nil {
		ids = append(ids, p.Ref.SnapshotID)
	}
	for _, id := range ids {
		if en := v.e.snaps.get(id); en != nil && !en.ok && !en.loading {
			cmds = append(cmds, v.fetch(v.versionOf(id)))
		}
	}
	if len(cmds) == 0 {
		return flash("nothing to retry")
	}
	return tea.Batch(cmds...)
}

// startSave saves the selected version's content now, or once it is in.
func (v *artifactView) startSave() tea.Cmd {
	if v.e.noSave != "" {
		return flash(v.e.noSave)
	}
	en := v.e.snaps.get(v.selV.Ref.SnapshotID)
	switch {
	case en == nil || en.loading:
		v.saveWhen = true
		return flash("saving once the snapshot is in" + v.e.sym.Ellipsis)
	case !en.ok:
		return flash("nothing to save: " + en.err)
	}
	return v.save()
}

// save writes the content to a new file in the save directory, in a
// command (file I/O), with copies of what it reads.
func (v *artifactView) save() tea.Cmd {
	en := v.e.snaps.get(v.selV.Ref.SnapshotID)
	if en == nil || !en.ok {
		if en != nil {
			return flash("nothing to save: " + en.err)
		}
		return nil
	}
	a := &model.Artifact{ID: v.a.ID, Kind: v.a.Kind, Path: v.a.Path}
	var sel *model.ArtifactVersion
	for _, x := range v.a.Versions {
		c := &model.ArtifactVersion{Ref: x.Ref}
		if x == v.selV {
			sel = c
		}
		a.Versions = append(a.Versions, c)
	}
	dir, text := v.e.saveDir, en.content
	return func() tea.Msg {
		d := dir
		if d == "" {
			d = "."
		}
		p, err := artcontent.Save(d, a, sel, text)
		if err == nil {
			if abs, e := filepath.Abs(p); e == nil {
				p = abs
			}
		}
		return savedMsg{path: p, size: len(text), err: err}
	}
}

func (m savedMsg) status() string {
	if m.err != nil {
		return "not saved: " + oneLine(m.err.Error())
	}
	return "saved " + text.Size(m.size) + " to " + oneLine(m.path)
}

func (v *artifactView) copy() tea.Cmd {
	if v.focusC {
		if b := v.current(); b != nil {
			if text, what := b.copyText(); text != "" {
				return v.e.copy(text, what)
			}
		}
	}
	return v.e.copy(v.selV.Ref.SnapshotID, "snapshot id")
}

func (v *artifactView) startOpen() tea.Cmd {
	if v.selV.Ref.Kind != model.KindScreenshot {
		return flash("nothing to open: o opens a screenshot's link (and live-view links)")
	}
	en := v.e.snaps.get(v.selV.Ref.SnapshotID)
	if en == nil || en.loading {
		v.openWhen = true
		return nil
	}
	return v.openRef()
}

func (v *artifactView) openRef() tea.Cmd {
	b := v.contentBody()
	if b == nil {
		return nil
	}
	ref := b.m.Reference()
	if ref == "" {
		return flash("this screenshot has no link to open")
	}
	return v.e.open(ref, "screenshot link")
}

// notify takes the snapshots, diffs and markdown renders this view asked
// for.
func (v *artifactView) notify(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case snapshotMsg, diffMsg:
		_ = msg
		return tea.Batch(v.sizeBody(), v.pending())
	}
	var cmds []tea.Cmd
	for _, b := range v.contents {
		cmds = append(cmds, b.update(msg, keyMap{}))
	}
	return tea.Batch(cmds...)
}

func (v *artifactView) apply(d *model.Delta) {
	for _, x := range d.Artifacts {
		if x == v.a {
			// New versions come in at the top: keep the same one selected.
			v.versions.sel = len(v.a.Versions) - v.number(v.selV)
			v.buildHead()
			v.versions.setSize(v.w, v.versionRows())
			return
		}
	}
}

func (v *artifactView) tick() {}

func (v *artifactView) render() []string {
	e, sym := v.e, v.e.sym
	out := make([]string, 0, v.h)
	out = append(out, v.head.rowsAt(0, v.headRows())...)
	v.versions.focused = !v.focusC
	out = append(out, v.rule("Versions "+itoa(len(v.a.Versions)), "", !v.focusC))
	out = append(out, v.versions.render()...)

	// The content's rule says which version and what state it is in.
	x := v.selV
	n := v.number(x)
	label := "v" + itoa(n) + " of " + itoa(len(v.a.Versions))
	if v.diffOn {
		if p := v.previous(x); p != nil {
			label = "changes v" + itoa(n-1) + " " + sym.Arrow + " v" + itoa(n)
		}
	}
	info := "· " + string(x.Ref.Change) + " · snapshot " + x.Ref.SnapshotID
	if en := e.snaps.get(x.Ref.SnapshotID); en != nil && en.ok {
		info += " · " + text.Size(len(en.content))
	}
	out = append(out, v.rule(label, info, v.focusC))
	_, bh := v.bodySize()
	if b := v.current(); b != nil {
		out = append(out, b.render()...)
	} else {
		out = append(out, v.status(bh)...)
	}
	for len(out) < v.h {
		out = append(out, blank(v.w))
	}
	return out[:min(len(out), v.h)]
}

// status is what stands in for the content while it cannot be shown.
func (v *artifactView) status(h int) []string {
	e, st := v.e, v.e.st
	var lines []textLine
	ids := []string{v.selV.Ref.SnapshotID}
	if p := v.previous(v.selV); v.diffOn && p != nil {
		ids = append([]string{p.Ref.SnapshotID}, ids...)
	}
	switch {
	case v.diffOn && v.selV.Ref.Kind == model.KindScreenshot:
		lines = append(lines, textLine{st: st.Muted, text: "screenshots are not compared"})
	default:
		for _, id := range ids {
			en := e.snaps.get(id)
			switch {
			case en == nil || en.loading:
				lines = append(lines, textLine{st: st.Running, text: e.spinner() + " loading snapshot " + id + e.sym.Ellipsis})
			case !en.ok:
				retry := "r tries again"
				if !e.snaps.canLoad() {
					retry = "watch the run (firewatch JOB_ID) to see its content"
				}
				lines = append(lines, textLine{st: st.Bad, text: e.sym.Failed + " could not load snapshot " + id + ": " + en.err, hang: 2},
					textLine{st: st.Muted, text: retry, hang: 2})
			}
		}
		if len(lines) == 0 && v.diffOn {
			lines = append(lines, textLine{st: st.Running, text: e.spinner() + " comparing the versions" + e.sym.Ellipsis})
		}
	}
	tv := textView{lines: lines, ascii: e.ascii}
	tv.setSize(v.w, h)
	out := tv.render()
	for len(out) < h {
		out = append(out, blank(v.w))
	}
	return out
}

// rule is a section's title line, in the focus colour when focused.
func (v *artifactView) rule(title, info string, focused bool) string {
	st, sym := v.e.st, v.e.sym
	ruleSt, titleSt := st.Border, st.Title
	if focused {
		ruleSt, titleSt = st.RuleFocus, st.TitleFocus
	}
	r := newRow(v.w, v.e.ascii)
	r.add(ruleSt, sym.Rule)
	r.add(titleSt, " "+title+" ")
	if info != "" && r.left() > 8 {
		r.add(st.Muted, cut(info, r.left()-3, sym.Ellipsis)+" ")
	}
	r.add(ruleSt, strings.Repeat(sym.Rule, max(0, r.left())))
	return r.String()
}

func (v *artifactView) helpKeys(k keyMap) []key.Binding {
	dk := v.e.dk
	var out, rest []key.Binding
	if v.focusC {
		if b := v.current(); b != nil {
			bk := b.helpKeys(k)
			n := min(2, len(bk))
			out, rest = bk[:n], bk[n:]
		}
	} else {
		out = append(out, k.Move)
	}
	out = append(out, dk.Focus)
	if v.e.snaps.canLoad() {
		out = append(out, dk.Diff)
		if v.e.noSave == "" {
			out = append(out, dk.Save)
		}
	}
	out = append(out, dk.Copy)
	if v.selV != nil && v.selV.Ref.Kind == model.KindScreenshot {
		out = append(out, dk.OpenLink)
	}
	if en := v.e.snaps.get(v.selV.Ref.SnapshotID); en != nil && !en.ok && !en.loading && v.e.snaps.canLoad() {
		out = append(out, dk.Retry)
	}
	out = append(out, dk.Back)
	return append(out, rest...)
}
