// Command fake-claude is the fake Claude Code CLI of package fakeclaude as an
// executable, for benchmarks and trying scripts by hand.
package main

import (
	"os"

	"raymond/claude/fakeclaude"
)

func main() { os.Exit(fakeclaude.Main()) }
