package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// help is what a command's --help prints besides its flags.
type help struct {
	// name is the command's name, as typed after raymond.
	name string
	// usage is the synopsis line, e.g. "raymond run WORKFLOW [flags]".
	usage string
	// text explains the command, one paragraph or a few.
	text string
	// examples are command lines, each optionally followed by "  # comment".
	examples []string
}

// newFlagSet returns an empty flag set for a command that reports its errors
// to the caller instead of printing them.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// parseFlags parses args. When --help was asked for it prints the help on
// stdout and returns done; a bad flag is a usage error with a hint.
func parseFlags(fs *pflag.FlagSet, args []string, h help, stdout io.Writer) (done bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		h.print(stdout, fs)
		return true, nil
	}
	if err != nil {
		return false, h.usageError("%v", err)
	}
	return false, nil
}

// usageError returns a usage error whose hint points at the command's help.
func (h help) usageError(format string, args ...any) error {
	return &usageError{
		msg:  fmt.Sprintf(format, args...),
		hint: fmt.Sprintf("Run 'raymond %s --help' for usage.", h.name),
	}
}

func (h help) print(w io.Writer, fs *pflag.FlagSet) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s\n", h.usage, strings.TrimSpace(h.text))
	if fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "\nFlags:\n%s", fs.FlagUsages())
	}
	b.WriteString("\nExamples:\n")
	for _, e := range h.examples {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	io.WriteString(w, b.String())
}

// errNoArgs is returned by commands that take no arguments.
func errNoArgs(h help, args []string) error {
	return h.usageError("unexpected arguments: %s", strings.Join(args, " "))
}
