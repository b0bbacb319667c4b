//go:build !unix

package crawl

const unlinkOpen = false
