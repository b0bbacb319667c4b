//go:build unix

package crawl

// unlinkOpen: an open file may be unlinked and still be read and written.
const unlinkOpen = true
