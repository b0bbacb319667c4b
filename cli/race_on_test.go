//go:build race

package cli

// raceDetector says the race detector is on: a test whose point is a size
// (a 20 000-event run) runs in .ci/run's plain pass instead, where it takes
// seconds rather than minutes.
const raceDetector = true
