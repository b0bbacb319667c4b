// Command startbench measures the CPU that commands take, run in turn, one
// after the other, so that a busy machine slows them alike. It prints each
// command's median, quartiles and its median over the first command's.
//
//	startbench [-runs 60] [-clock rusage|perf] -- ./hello -- ./firewatch version
//
// The CPU is the child's user + system time from its rusage (from exec to
// exit, as time(1) counts it), or with -clock perf the task-clock of
// `perf stat` (from exec on: about 1.5 ms less for any process on our test
// VM).
//
// scripts/startbench.sh builds firewatch both ways and the yardsticks beside
// it and runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("runs", 60, "runs of each command")
	clock := flag.String("clock", "rusage", "what counts the CPU: rusage (user + system) or perf (perf stat's task-clock)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: startbench [-runs N] [-clock rusage|perf] -- CMD ARGS... [-- CMD ARGS...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	cmds := split(flag.Args())
	if len(cmds) == 0 || *runs < 1 || (*clock != "rusage" && *clock != "perf") {
		flag.Usage()
		os.Exit(2)
	}
	run := runRusage
	if *clock == "perf" {
		if _, err := exec.LookPath("perf"); err != nil {
			fmt.Fprintln(os.Stderr, "startbench: -clock perf needs perf (linux-perf) on PATH")
			os.Exit(1)
		}
		run = runPerf
	}
	cpu := make([][]time.Duration, len(cmds))
	for range *runs {
		for i, c := range cmds {
			d, err := run(c)
			if err != nil {
				fmt.Fprintf(os.Stderr, "startbench: %s: %v\n", strings.Join(c, " "), err)
				os.Exit(1)
			}
			cpu[i] = append(cpu[i], d)
		}
	}
	for _, s := range cpu {
		slices.Sort(s)
	}
	base := cpu[0][len(cpu[0])/2]
	fmt.Printf("%-40s %9s %9s %9s %8s\n", "command", "p25", "median", "p75", "×first")
	for i, c := range cmds {
		s := cpu[i]
		m := s[len(s)/2]
		fmt.Printf("%-40s %9s %9s %9s %8.2f\n", label(c), ms(s[len(s)/4]), ms(m), ms(s[len(s)*3/4]), float64(m)/float64(base))
	}
	if *clock == "perf" {
		fmt.Printf("CPU from exec on, perf stat's task-clock, %d runs each, in turn\n", *runs)
	} else {
		fmt.Printf("CPU from exec to exit, user + system, %d runs each, in turn\n", *runs)
	}
}

// label is a command as printed: its program's file name and its arguments.
func label(c []string) string {
	return strings.Join(append([]string{filepath.Base(c[0])}, c[1:]...), " ")
}

// split cuts args at each "--" into commands.
func split(args []string) [][]string {
	var cmds [][]string
	var cur []string
	for _, a := range append(args, "--") {
		if a == "--" {
			if len(cur) > 0 {
				cmds = append(cmds, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, a)
	}
	return cmds
}

// runRusage runs c with its output discarded and returns the CPU it used.
func runRusage(c []string) (time.Duration, error) {
	cmd := exec.Command(c[0], c[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

// runPerf runs c under perf stat with its output discarded and returns the
// task-clock perf counted.
func runPerf(c []string) (time.Duration, error) {
	f, err := os.CreateTemp("", "startbench-perf")
	if err != nil {
		return 0, err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	args := append([]string{"stat", "-x,", "-e", "task-clock", "-o", name, "--"}, c...)
	if _, err := runRusage(append([]string{"perf"}, args...)); err != nil {
		return 0, err
	}
	out, err := os.ReadFile(name)
	if err != nil {
		return 0, err
	}
	return parsePerf(string(out))
}

// parsePerf reads the task-clock, in milliseconds, from perf stat -x, output.
func parsePerf(out string) (time.Duration, error) {
	for line := range strings.Lines(out) {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) >= 3 && strings.HasPrefix(f[2], "task-clock") {
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return 0, fmt.Errorf("perf stat: task-clock %q: %v", f[0], err)
			}
			return time.Duration(v * float64(time.Millisecond)), nil
		}
	}
	return 0, fmt.Errorf("perf stat printed no task-clock (is perf allowed to count here? see perf_event_paranoid)")
}
