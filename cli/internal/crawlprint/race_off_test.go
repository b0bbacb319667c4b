//go:build !race

package crawlprint

const raceDetector = false
