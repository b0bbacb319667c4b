// Command hello is the start-up benchmark's yardstick: a Go program that
// prints one line, so that what a machine charges any Go process to start
// can be told apart from what firewatch adds.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
