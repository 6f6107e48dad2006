package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/pflag"
)

// Set by the linker: go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc123".
var (
	version = ""
	commit  = ""
)

func runVersion(_ context.Context, env *cmdEnv, args []string) error {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.stderr, "Usage: raymond version")
		fmt.Fprintln(env.stderr, "\nPrints raymond's version, the commit it was built from and the Go version.")
		fmt.Fprintln(env.stderr, "\nExample:\n  raymond version")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return &usageError{msg: err.Error(), hint: "Run 'raymond version --help' for usage."}
	}
	if fs.NArg() > 0 {
		return &usageError{msg: "version takes no arguments", hint: "Run 'raymond version'."}
	}
	v, c := buildVersion()
	fmt.Fprintf(env.stdout, "raymond %s (commit %s, %s)\n", v, c, runtime.Version())
	return nil
}

// buildVersion prefers linker-set values, then what the Go toolchain recorded.
func buildVersion() (v, c string) {
	v, c = version, commit
	info, ok := debug.ReadBuildInfo()
	if ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
				if len(c) > 12 {
					c = c[:12]
				}
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	return v, c
}
