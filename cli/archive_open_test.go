package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/text"
)

// TestOpenArchiveRules: the archive is opened in one place, and what a
// failure means follows what the command does with it: a reader's is its
// error (2, or 8 for an archive that cannot be written), a command that
// needs the archive is refused when it is off, one that keeps its work in
// it beside is given why (redacted) to say, and goes on. Nothing is said
// by the opening itself.
func TestOpenArchiveRules(t *testing.T) {
	ctx := context.Background()
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte("this is not a database at all, just some text that someone wrote here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const pw = "sekret-pw-0123"
	refused := "postgres://fw:" + pw + "@127.0.0.1:1/fw?connect_timeout=2"
	for _, tc := range []struct {
		name, dsn string
		use       archiveUse
		code      int  // codeOf the error; -1: a reason to say, not a command's error
		store     bool // an archive is given
	}{
		{"reader, off", archive.Off, readArchive, ExitOK, false},
		{"needed, off", archive.Off, needArchive, ExitUsage, false},
		{"kept, off", archive.Off, keepArchive, ExitOK, false},
		{"reader, not an archive", junk, readArchive, ExitUsage, false},
		{"needed, not an archive", junk, needArchive, ExitUsage, false},
		{"kept, not an archive", junk, keepArchive, -1, false},
		{"reader, a server that refuses", refused, readArchive, ExitUsage, false},
		{"kept, a server that refuses", refused, keepArchive, -1, false},
		{"reader, a new file", filepath.Join(t.TempDir(), "a.db"), readArchive, ExitOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var said strings.Builder
			secrets := text.NewSecrets()
			a := &app{stderr: &scrubWriter{w: &said, secrets: secrets}, secrets: secrets}
			if err := (&dsnFlag{a}).Set(tc.dsn); err != nil {
				t.Fatal(err)
			}
			st, err := a.openArchive(ctx, tc.use, nil)
			if st != nil {
				st.Close()
			}
			if (st != nil) != tc.store {
				t.Fatalf("store %v, want %v (%v)", st != nil, tc.store, err)
			}
			switch {
			case tc.code == -1:
				if err == nil || errors.As(err, new(*exitcode.UsageError)) || errors.As(err, new(*outputError)) {
					t.Fatalf("a kept archive's failure is a reason to say, not the command's error: %#v", err)
				}
			case codeOf(err) != tc.code:
				t.Fatalf("exit %d (%v), want %d", codeOf(err), err, tc.code)
			}
			if err != nil && strings.Contains(err.Error(), pw) {
				t.Fatalf("the DSN's password in %q", err)
			}
			if said.Len() > 0 {
				t.Fatalf("the opening said %q", said.String())
			}
		})
	}
}
