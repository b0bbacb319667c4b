//go:build race

package model

// raceDetector says the race detector is on: the property tests, whose
// strength is their number of trials and which run on one goroutine, take
// a few under it; .ci/run runs all of them in its plain pass.
const raceDetector = true
