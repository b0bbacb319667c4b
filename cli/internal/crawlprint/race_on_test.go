//go:build race

package crawlprint

// raceDetector says the race detector is on: a test whose point is a size
// (10 001 files) runs in .ci/run's plain pass instead, where it takes
// seconds rather than minutes.
const raceDetector = true
