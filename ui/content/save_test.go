package content

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/model"
)

func artifact(kind model.ArtifactKind, id, path string, versions int) *model.Artifact {
	a := &model.Artifact{ID: id, Kind: kind, Path: path}
	for range versions {
		a.Versions = append(a.Versions, &model.ArtifactVersion{Ref: model.ArtifactRef{Kind: kind, ArtifactID: id, Path: path}})
	}
	return a
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct {
		kind     model.ArtifactKind
		id, path string
		version  int // 1-based; 0 for none
		want     string
	}{
		{model.KindJSON, "result", "", 1, "result-v1.json"},
		{model.KindMarkdown, "a1", "/workspace/reports/report.md", 3, "report-v3.md"},
		{model.KindMarkdown, "a1", "notes.MD", 1, "notes-v1.md"},
		{model.KindHTML, "page", "site/index.html", 2, "index-v2.html"},
		{model.KindText, "x", "../../etc/passwd", 1, "passwd-v1.txt"},
		{model.KindText, "x", `..\..\windows\system32\drivers`, 1, "drivers-v1.txt"},
		{model.KindText, "../../../../tmp/evil", "", 1, "tmp_evil-v1.txt"},
		{model.KindText, "..", "..", 1, "artifact-v1.txt"},
		{model.KindScreenshot, "shot", "shots/home page (1).png", 1, "home_page_1_.png-v1.txt"},
		{"spreadsheet", "s", "data.csv", 1, "data.csv-v1.txt"},
		{model.KindJSON, "", "", 0, "artifact.json"},
		{model.KindText, "id", ".hidden", 1, "hidden-v1.txt"},
		{model.KindText, "id", "CON", 1, "_CON-v1.txt"},
		{model.KindText, "id", "nul.txt", 1, "_nul-v1.txt"},
		{model.KindText, "id", "caf\u00e9\u202e\x1b[31m.txt", 1, "caf_31m-v1.txt"},
		{model.KindText, "id", strings.Repeat("a", 300), 1, strings.Repeat("a", 80) + "-v1.txt"},
	} {
		a := artifact(tc.kind, tc.id, tc.path, max(tc.version, 1))
		var v *model.ArtifactVersion
		if tc.version > 0 {
			v = a.Versions[tc.version-1]
		}
		got := FileName(a, v)
		if got != tc.want {
			t.Errorf("%q %q v%d: %q, want %q", tc.id, tc.path, tc.version, got, tc.want)
		}
		if strings.ContainsAny(got, `/\`) || strings.HasPrefix(got, ".") {
			t.Errorf("unsafe name %q", got)
		}
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	a := artifact(model.KindMarkdown, "a1", "../../report.md", 2)
	content := "# Report\n\x1b[31mexact bytes\n"

	var paths []string
	for range 3 {
		p, err := Save(dir, a, a.Versions[1], content)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	want := []string{"report-v2.md", "report-v2-1.md", "report-v2-2.md"}
	for i, p := range paths {
		if filepath.Dir(p) != dir || filepath.Base(p) != want[i] {
			t.Fatalf("saved to %s, want %s", p, filepath.Join(dir, want[i]))
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != content {
			t.Fatalf("%s holds %q (%v)", p, b, err)
		}
	}

	// A symlink in the way is neither followed nor replaced.
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := artifact(model.KindJSON, "result", "", 1)
	if err := os.Symlink(target, filepath.Join(dir, "result-v1.json")); err != nil {
		t.Skip("no symlinks:", err)
	}
	p, err := Save(dir, b, b.Versions[0], "{}")
	if err != nil || filepath.Base(p) != "result-v1-1.json" {
		t.Fatalf("%s %v", p, err)
	}
	if kept, _ := os.ReadFile(target); string(kept) != "keep" {
		t.Fatal("symlink target overwritten")
	}

	// A directory that does not exist is an error, not created.
	if _, err := Save(filepath.Join(dir, "missing"), b, nil, "{}"); err == nil {
		t.Fatal("saved into a missing directory")
	}
}
