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
		return false, h.usageError("%s", flagError(fs, err))
	}
	return false, nil
}

// flagError words an error of parsing flags for a person: a value that is
// not of the flag's type without Go's parser in the message, an unknown
// flag with the flag meant when it looks like a typo.
func flagError(fs *pflag.FlagSet, err error) string {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		name, v := "--"+iv.GetFlag().Name, iv.GetValue()
		switch iv.GetFlag().Value.Type() {
		case "float64":
			return fmt.Sprintf("%s: %q is not a number", name, v)
		case "int":
			return fmt.Sprintf("%s: %q is not a whole number", name, v)
		case "bool":
			return fmt.Sprintf("%s: %q is not true or false", name, v)
		}
		return fmt.Sprintf("%s: %q is not a valid value", name, v)
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && !strings.Contains(err.Error(), "shorthand") {
		var names []string
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		return err.Error() + didYouMean(ne.GetSpecifiedName(), "--", names)
	}
	return err.Error()
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
