package archive

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// The schema's migrations are numbered SQL files, one set per database
// (migrations/sqlite, migrations/postgres): NNNN_name.sql takes the schema
// from version NNNN-1 to NNNN. migrate runs the ones an archive lacks in
// one transaction and then writes the version in fw_meta's row
// k='schema'. A file is statements ending with ";" at the end of a line;
// lines starting with "--" between statements are comments.
//
//go:embed migrations
var migrationFiles embed.FS

// migrations[i] takes the schema from version i to i+1.
func (d dialect) migrations() [][]string {
	steps, err := loadMigrations(migrationFiles, path.Join("migrations", d.name))
	if err != nil {
		panic(err) // the files are built in: a test reads them
	}
	return steps
}

// loadMigrations reads the numbered files of dir, in order: their numbers
// must run 1, 2, 3... with none missing, and end at SchemaVersion.
func loadMigrations(fsys fs.FS, dir string) ([][]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var steps [][]string
	for _, e := range entries { // ReadDir sorts by name
		num, _, ok := strings.Cut(e.Name(), "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("archive migrations: %s/%s is not NNNN_name.sql", dir, e.Name())
		}
		if n != len(steps)+1 {
			return nil, fmt.Errorf("archive migrations: %s/%s: version %d, want %d", dir, e.Name(), n, len(steps)+1)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		stmts, err := splitStatements(string(b))
		if err != nil {
			return nil, fmt.Errorf("archive migrations: %s/%s: %w", dir, e.Name(), err)
		}
		steps = append(steps, stmts)
	}
	if len(steps) != SchemaVersion {
		return nil, fmt.Errorf("archive migrations: %s goes to version %d, SchemaVersion is %d", dir, len(steps), SchemaVersion)
	}
	return steps, nil
}

// splitStatements splits a migration file into its statements, each as
// written between the comments and its ";" (which is left out).
func splitStatements(src string) ([]string, error) {
	var out []string
	var cur []string
	for _, line := range strings.Split(src, "\n") {
		if len(cur) == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(line, "--")) {
			continue
		}
		if end, ok := strings.CutSuffix(strings.TrimRight(line, " \t\r"), ";"); ok {
			out = append(out, strings.Join(append(cur, end), "\n"))
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		return nil, fmt.Errorf("a statement does not end with ;")
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no statement")
	}
	return out, nil
}
