package main

import (
	"slices"
	"testing"
	"time"
)

func TestParsePerf(t *testing.T) {
	out := "# started on Wed Nov 25 16:40:00 2026\n\n13.96,msec,task-clock,13960000,100.00,0.871,CPUs utilized\n"
	d, err := parsePerf(out)
	if err != nil || d != 13960*time.Microsecond {
		t.Fatalf("parsePerf = %v, %v; want 13.96ms", d, err)
	}
	for _, bad := range []string{"", "# started on\n", "<not counted>,msec,task-clock,0,0.00,,\n"} {
		if d, err := parsePerf(bad); err == nil {
			t.Errorf("parsePerf(%q) = %v, want an error", bad, d)
		}
	}
}

func TestSplit(t *testing.T) {
	got := split([]string{"--", "./hello", "--", "./firewatch", "version", "--"})
	want := [][]string{{"./hello"}, {"./firewatch", "version"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("split = %q, want %q", got, want)
	}
}
