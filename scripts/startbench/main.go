// Command startbench measures the CPU (user + system, from the child's
// rusage) that commands take from exec to exit, run in turn, one after the
// other, so that a busy machine slows them alike. It prints each command's
// median, quartiles and its median over the first command's.
//
//	startbench -runs 60 -- ./hello -- ./firewatch version -- ./firewatch-static version
//
// scripts/startbench.sh builds firewatch both ways and a hello world and
// runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("runs", 60, "runs of each command")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: startbench [-runs N] -- CMD ARGS... [-- CMD ARGS...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	cmds := split(flag.Args())
	if len(cmds) == 0 || *runs < 1 {
		flag.Usage()
		os.Exit(2)
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
	fmt.Printf("CPU from exec to exit, user + system, %d runs each, in turn\n", *runs)
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

// run runs c with its output discarded and returns the CPU it used.
func run(c []string) (time.Duration, error) {
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
