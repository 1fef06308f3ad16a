// Command platbench benchmarks data systems. All work is in the library;
// this file only connects the process to cmd/platbench/cli and exits.
package main

import (
	"os"

	"github.com/platbench/platbench/cmd/platbench/cli"
	"golang.org/x/term"
)

func main() {
	env := &cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, IsTTY: term.IsTerminal(int(os.Stderr.Fd()))}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		env.Width = w
	}
	os.Exit(cli.Main(os.Args[1:], env))
}
