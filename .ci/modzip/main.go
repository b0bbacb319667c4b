// Command modzip lays out a file-based GOPROXY holding the module at the
// repository's HEAD, zipped the way the module proxy zips it, so that CI can
// run `go install module@version` the way a user does.
//
// Usage: go run . -repo DIR -module PATH -version VERSION -out PROXYDIR
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the repository's root")
	mod := flag.String("module", "", "the module path")
	version := flag.String("version", "", "the version to publish (a pseudo-version)")
	out := flag.String("out", "", "the proxy directory to write")
	flag.Parse()
	if err := run(*repo, *mod, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func run(repo, mod, version, out string) error {
	m := module.Version{Path: mod, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return err
	}
	esc, err := module.EscapePath(mod)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, esc, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromVCS(zf, m, repo, "HEAD", ""); err != nil {
		zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	// The proxy's .mod is the committed go.mod, as in the zip.
	gomod, err := exec.Command("git", "-C", repo, "show", "HEAD:go.mod").Output()
	if err != nil {
		return fmt.Errorf("git show HEAD:go.mod: %w", err)
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`+"\n", version, time.Now().UTC().Format(time.RFC3339))
	for name, data := range map[string][]byte{
		version + ".mod":  gomod,
		version + ".info": []byte(info),
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
