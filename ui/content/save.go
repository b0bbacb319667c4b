package content

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/firewatch/firewatch/model"
)

// Extension is the file extension for content of kind: .json, .md, .html,
// .txt (text, screenshot references and unknown kinds).
func Extension(kind model.ArtifactKind) string {
	switch kind {
	case model.KindJSON:
		return ".json"
	case model.KindMarkdown:
		return ".md"
	case model.KindHTML:
		return ".html"
	}
	return ".txt"
}

// FileName is the name Save starts from: the last element of the artifact's
// path (else its id, else "artifact"), reduced to letters, digits, '.', '-'
// and '_', with the version number when known ("report-v3.md") and the
// kind's extension. It never contains a path separator and never starts
// with a dot.
func FileName(a *model.Artifact, v *model.ArtifactVersion) string {
	kind, path, id := model.ArtifactKind(""), "", ""
	if a != nil {
		kind, path, id = a.Kind, a.Path, a.ID
	}
	if v != nil {
		kind = v.Ref.Kind
		if v.Ref.Path != "" {
			path = v.Ref.Path
		}
		if v.Ref.ArtifactID != "" && id == "" {
			id = v.Ref.ArtifactID
		}
	}
	ext := Extension(kind)
	base := safeName(lastElem(path))
	if base == "" {
		base = safeName(id)
	}
	if base == "" {
		base = "artifact"
	}
	if strings.EqualFold(filepath.Ext(base), ext) && len(base) > len(ext) {
		base = base[:len(base)-len(ext)]
	}
	if a != nil && v != nil {
		for i, x := range a.Versions {
			if x == v {
				base += "-v" + itoa(i+1)
				break
			}
		}
	}
	return base + ext
}

// lastElem is the last element of a workspace path, whatever its separator.
func lastElem(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return p
}

const maxName = 80

// safeName keeps letters, digits, '.', '-' and '_' of s (others become '_',
// runs of them one), without leading dots, dashes or underscores, at most
// maxName bytes, and not a name Windows reserves.
func safeName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'
		if !ok || r == '_' {
			if !under {
				b.WriteByte('_')
			}
			under = true
			continue
		}
		under = false
		b.WriteRune(r)
	}
	n := strings.TrimLeft(b.String(), "._-")
	n = strings.TrimRight(n, "._")
	if len(n) > maxName {
		n = strings.TrimRight(n[:maxName], "._")
	}
	stem, _, _ := strings.Cut(strings.ToUpper(n), ".")
	switch stem {
	case "CON", "PRN", "AUX", "NUL",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		n = "_" + n
	}
	return n
}

// Save writes content, an artifact version's snapshot exactly as the
// service sent it, to a new file in dir and returns its path. The name is
// FileName's; when that file exists, -1, -2, ... is added before the
// extension: an existing file (or symlink) is never overwritten or
// followed. dir must exist.
func Save(dir string, a *model.Artifact, v *model.ArtifactVersion, content string) (string, error) {
	name := FileName(a, v)
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			n = stem + "-" + itoa(i) + ext
		}
		p := filepath.Join(dir, n)
		if filepath.Dir(p) != filepath.Clean(dir) {
			return "", fmt.Errorf("save: unsafe file name %q", n) // cannot happen: safeName has no separators
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save: %w", err)
		}
		if _, err := f.WriteString(content); err != nil {
			f.Close()
			os.Remove(p)
			return "", fmt.Errorf("save %s: %w", p, err)
		}
		if err := f.Close(); err != nil {
			os.Remove(p)
			return "", fmt.Errorf("save %s: %w", p, err)
		}
		return p, nil
	}
	return "", fmt.Errorf("save: %s and 999 numbered variants exist in %s", name, dir)
}
