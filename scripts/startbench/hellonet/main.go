// Command hellonet is the start-up benchmark's hello world with package net
// linked in. Built with cgo (what go build does where a C compiler is
// installed) it is linked dynamically to the C library, as firewatch is then,
// so that what that costs any Go program can be told apart from firewatch.
package main

import (
	_ "net"
	"os"
)

func main() { os.Stdout.WriteString("hello\n") }
