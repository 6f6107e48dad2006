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

// readBuildInfo is debug.ReadBuildInfo; a test replaces it.
var readBuildInfo = debug.ReadBuildInfo

// buildVersion prefers linker-set values (make build), then what the Go
// toolchain recorded from git at go build or go install: the module's
// version, the revision, and whether the tree had uncommitted changes
// (-dirty), so a plain go build still says what it was built from.
func buildVersion() (v, c string) {
	v, c = version, commit
	if info, ok := readBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		if c == "" {
			c = vcsCommit(info.Settings)
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

// vcsCommit is the short revision the toolchain stamped, with -dirty when
// the tree had changes; "" without one (-buildvcs=false, no checkout).
func vcsCommit(settings []debug.BuildSetting) string {
	var rev string
	var dirty bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
