package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"raymond/project"
	"raymond/wftest"
)

var testHelp = help{
	name:  "test",
	usage: "raymond test [PATH...] [flags]",
	text: `
Run workflow tests: the cases of test files (*.test.yaml), each of which
runs its workflow through the real orchestrator with scripted replies
instead of a model and checks where it went: final status, result, the path
of every agent, steps, reminders, retries, cost, states never visited,
the files it left and what it printed. A case can start from files of its
own (in a fresh working folder) and be killed and resumed mid-way. No
model, no network.

PATH is a test file (any name) or a folder searched for *.test.yaml, with
its subfolders but not .git, .raymond or node_modules; default ".". Cases
run in parallel, each in a temporary project folder of its own, removed
afterwards unless --keep.

The report is written like 'go test': a line per case, what failed below
it (a path as a diff: - expected, + actual), a line per file, a summary.
-v also shows what passing cases did, each path written as expect.path
writes it. --json prints one JSON object
instead; --junit FILE also writes JUnit XML for CI. The format of test
files and of the JSON: docs/testing-workflows.md.

Exit status: 0 every case passed, 1 a case failed, a test file is invalid
or no case was run, 2 bad usage (a flag, a PATH that does not exist, a
--junit FILE that cannot be created).`,
	examples: []string{
		"raymond test                               # every *.test.yaml under .",
		"raymond test workflows/examples/goto-loop",
		"raymond test wf/ --run 'happy|retry' -v",
		"raymond test --junit report.xml           # for CI",
	},
}

func runTest(ctx context.Context, env *cmdEnv, args []string) error {
	flags := newFlagSet("test")
	run := flags.String("run", "", "run only the cases whose id (<file stem>/<case name>) matches `REGEX`")
	asJSON := flags.Bool("json", false, "print one JSON object on stdout instead of the report")
	junit := flags.String("junit", "", "also write the report as JUnit XML to `FILE` (- for stdout, the report then on stderr)")
	verbose := flags.BoolP("verbose", "v", false, "show the path, status, steps and cost of passing cases too, paths as expect.path writes them")
	timeout := flags.String("timeout", wftest.DefaultTimeout.String(), "fail a case still running after `DUR` (90s, 2m; a bare number is seconds; 0 for no limit)")
	parallel := flags.Int("parallel", 0, "run at most `N` cases at the same time (default: the number of CPUs)")
	keep := flags.Bool("keep", false, "keep each case's temporary project folder (working folder, task folders, state, transcript) and name it in the report")
	if done, err := parseFlags(flags, args, testHelp, env.stdout); done || err != nil {
		return err
	}
	o := wftest.Options{Parallel: *parallel, Keep: *keep}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return testHelp.usageError("--run: %v", err)
		}
		o.Run = re
	}
	d, err := project.ParseTimeout(*timeout)
	if err != nil {
		return testHelp.usageError("--timeout: %v", err)
	}
	o.Timeout = d
	if d == 0 {
		o.Timeout = wftest.NoTimeout
	}
	if flags.Changed("parallel") && *parallel < 1 {
		return testHelp.usageError("--parallel must be at least 1, not %d", *parallel)
	}
	files, err := wftest.Discover(flags.Args())
	if errors.Is(err, fs.ErrNotExist) {
		msg := err.Error()
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			msg = "no such file or folder: " + pe.Path
		}
		return &usageError{msg: msg, hint: "Give test files or folders that hold *.test.yaml files."}
	}
	if err != nil {
		return err
	}
	if len(files) == 0 {
		if *asJSON {
			// A CI step that parses the report still gets one.
			if err := wftest.WriteJSON(env.stdout, &wftest.Report{}); err != nil {
				return fmt.Errorf("write the report: %w", err)
			}
		}
		return &exitError{code: exitFailed, msg: fmt.Sprintf("no test files: no *.test.yaml under %s", strings.Join(pathsOrDot(flags.Args()), ", "))}
	}
	if *junit == "-" && *asJSON {
		return testHelp.usageError("--json and --junit - would both write stdout; give one")
	}
	report := env.stdout
	var junitFile *os.File
	switch *junit {
	case "":
	case "-":
		report = env.stderr
	default:
		// Opened before any case runs, so that a path that cannot be
		// written fails at once; emptied only when the report is written.
		if junitFile, err = os.OpenFile(*junit, os.O_WRONLY|os.O_CREATE, 0o644); err != nil {
			return &usageError{msg: fmt.Sprintf("--junit: cannot create %s: %v", *junit, unwrapPath(err)), hint: "Give a file in a folder that exists and that you can write to."}
		}
		defer junitFile.Close()
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep := wftest.Run(ctx, files, o)
	// The report comes first: a JUnit file that fails to write at the end
	// must not cost the user what the cases found.
	if *asJSON {
		err = wftest.WriteJSON(report, rep)
	} else {
		err = wftest.WriteText(report, rep, *verbose)
	}
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if *junit == "-" {
		if err := wftest.WriteJUnit(env.stdout, rep); err != nil {
			return fmt.Errorf("--junit: write stdout: %w", err)
		}
	}
	if junitFile != nil {
		if err := writeJUnit(junitFile, rep); err != nil {
			return fmt.Errorf("--junit: write %s: %w", *junit, unwrapPath(err))
		}
	}
	switch {
	case rep.Failed() > 0:
		return &exitError{code: exitFailed}
	case rep.CaseCount() == 0:
		return &exitError{code: exitFailed, msg: fmt.Sprintf("no case matched --run %s (%s in %s)", *run, countCases(rep.Unselected), countFiles(len(files)))}
	}
	return nil
}

// writeJUnit replaces the content of f with the report as JUnit XML and
// closes f. Only a regular file is emptied first: f may be a pipe or a
// device such as /dev/stdout.
func writeJUnit(f *os.File, rep *wftest.Report) error {
	var err error
	if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
		err = f.Truncate(0)
	}
	if err == nil {
		err = wftest.WriteJUnit(f, rep)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// unwrapPath drops the operation and path from a *fs.PathError, which the
// message around it already names.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

func pathsOrDot(paths []string) []string {
	if len(paths) == 0 {
		return []string{"."}
	}
	return paths
}

func countCases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}

func countFiles(n int) string {
	if n == 1 {
		return "1 test file"
	}
	return fmt.Sprintf("%d test files", n)
}
