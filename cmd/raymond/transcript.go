package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"raymond/analysis"
	"raymond/project"
	"raymond/state"
	"raymond/wftest"
)

var transcriptHelp = help{
	name:  "transcript",
	usage: "raymond transcript RUN_ID | DIR [flags]",
	text: `
Analyse what a run did, from its transcript (.raymond/debug/RUN_ID) and its
state file: a summary (status, result, time, cost, tokens, steps, retries,
reminders, waits, budget), the path each agent took, a table of what each
state cost, a timeline of the agents' steps and the critical path, the chain
of steps that determined the run's wall time.

Give a run id of this project, or the path of a transcript folder (one copied
elsewhere works too). A transcript cut short (a crash, a run still going) or
torn (a half-written last line) is analysed as far as it goes, and the report
says what is missing.

--step shows one step in full: the prompt sent, what the model said and did,
its answer. AGENT:N names the agent's N-th step (main:3), as numbered in the
step's file name; the file name itself (main_PLAN_003) works too.

--follow prints the run's events as they happen until it ends or no process
drives it any more, and exits as raymond run would for how the run ended (0
completed, 1 failed or stopped without ending, 3 paused, waiting or over its
budget). A run created by raymond start and not driven yet is waited for.

A run started with --workspace worktree also gets a Changes section: its
draft's files changed against the commit it started from, then each step
that changed files with its checkpoint commit and its files' lines added
and removed. raymond transcript RUN_ID --diff [STEP] prints the patch of
the whole draft, or of the commit of STEP (AGENT:N or a step's file name,
as --step takes).

--html FILE writes the report as one self-contained page that loads nothing:
charts, every step expandable, and the workflow drawn as raymond diagram
draws it, read from its folder as it is now, with each state's visits and
each transition taken.
See docs/analysing-runs.md for how to read each section and the --json
schema.`,
	examples: []string{
		"raymond transcript 20261121-154012-123456-3f9a2c",
		"raymond transcript nightly-1 --sort time",
		"raymond transcript nightly-1 --step main:3",
		"raymond transcript nightly-1 --json | jq .cost_usd",
		"raymond transcript nightly-1 --follow",
		"raymond transcript nightly-1 --diff main:2",
		"raymond transcript /tmp/copied/nightly-1 --html report.html",
	},
}

// transcriptFlags are what raymond transcript was asked for.
type transcriptFlags struct {
	sort     string
	step     string
	follow   bool
	json     bool
	mermaid  bool
	html     string
	toTest   string
	caseName string
	scripts  bool
	project  string
	width    int
	diff     bool
}

func runTranscript(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("transcript")
	var f transcriptFlags
	fs.StringVar(&f.sort, "sort", "cost", "order the table of states by `cost` or time")
	fs.StringVar(&f.step, "step", "", "show one step in full: `AGENT:N` (main:3) or its file name (main_PLAN_003)")
	fs.BoolVar(&f.follow, "follow", false, "print the run's events as they happen until it ends")
	fs.BoolVar(&f.diff, "diff", false, "print the patch of the run's draft, or of one STEP given after the run id")
	fs.BoolVar(&f.json, "json", false, "print the analysis (with --step: the step) as JSON")
	fs.BoolVar(&f.mermaid, "mermaid", false, "print the path taken as a Mermaid flowchart")
	fs.StringVar(&f.html, "html", "", "write a self-contained HTML report to `FILE` (- for stdout)")
	fs.StringVar(&f.toTest, "to-test", "", "record the run as a workflow test in `FILE` (*.test.yaml)")
	fs.StringVar(&f.caseName, "case-name", "", "the `NAME` of the case --to-test records (default: recorded RUN_ID)")
	fs.BoolVar(&f.scripts, "scripts", false, "with --to-test, record what each script step printed as its reply (default: the case runs the scripts for real)")
	fs.StringVar(&f.project, "project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	fs.IntVar(&f.width, "width", 0, fmt.Sprintf("lay the text out in `N` columns, %d or more (default: $COLUMNS, else 80)", analysis.MinWidth))
	if done, err := parseFlags(fs, args, transcriptHelp, env.stdout); done || err != nil {
		return err
	}
	args = fs.Args()
	diffStep := ""
	if f.diff && len(args) == 2 {
		args, diffStep = args[:1], args[1]
	}
	arg, err := oneArg(args, transcriptHelp, "RUN_ID or DIR")
	if err != nil {
		return err
	}
	if err := f.check(fs.Changed("width")); err != nil {
		return err
	}
	if f.width == 0 {
		f.width = 80
		if n, err := strconv.Atoi(env.getenv("COLUMNS")); err == nil && n > 0 {
			f.width = max(n, analysis.MinWidth) // a terminal narrower than that gets lines folded by it
		}
	}
	src, holder, err := openTranscript(arg, f.project, f.follow)
	if err != nil {
		return err
	}
	if f.follow {
		return follow(ctx, env, src, holder)
	}
	run, err := analysis.Load(src)
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("cannot read the transcript: %v", err)}
	}
	opts := analysis.TextOptions{Sort: f.sort, Width: f.width}
	if f.diff {
		return showDiff(ctx, env, run, src.State, diffStep)
	}
	fillChanges(ctx, run, src.State, f.html != "")
	switch {
	case f.step != "":
		return showStep(env, run, src.Dir, f, opts)
	case f.toTest != "":
		return recordTest(env, run, src, f)
	case f.html != "":
		return writeHTML(env, run, src.Dir, f.html)
	case f.mermaid:
		return analysis.WriteMermaid(env.stdout, run)
	}
	var rw *runRewinds
	if p, err := projectOf(src.Dir, f.project); err == nil {
		rw = rewindsOf(p.Store, filepath.Base(src.Dir))
	}
	if f.json {
		if rw == nil {
			return analysis.WriteJSON(env.stdout, run)
		}
		var b bytes.Buffer
		if err := analysis.WriteJSON(&b, run); err != nil {
			return err
		}
		_, err := env.stdout.Write(withRewinds(b.Bytes(), rw))
		return err
	}
	if err := analysis.WriteText(env.stdout, run, opts); err != nil {
		return err
	}
	writeRewinds(env.stdout, filepath.Base(src.Dir), rw)
	return nil
}

// check refuses flags that contradict each other or make no sense.
func (f *transcriptFlags) check(widthGiven bool) error {
	h := transcriptHelp
	if f.sort != "cost" && f.sort != "time" {
		return h.usageError("--sort takes cost or time, not %q", f.sort)
	}
	if widthGiven && f.width < analysis.MinWidth {
		return h.usageError("--width must be at least %d, not %d: the report cannot be laid out in fewer columns", analysis.MinWidth, f.width)
	}
	var outputs []string
	for _, o := range []struct {
		on   bool
		name string
	}{
		{f.follow, "--follow"}, {f.step != "", "--step"}, {f.mermaid, "--mermaid"},
		{f.html != "", "--html"}, {f.toTest != "", "--to-test"}, {f.diff, "--diff"},
	} {
		if o.on {
			outputs = append(outputs, o.name)
		}
	}
	if f.caseName != "" && f.toTest == "" {
		return h.usageError("--case-name names the case --to-test records; give --to-test FILE too")
	}
	if f.scripts && f.toTest == "" {
		return h.usageError("--scripts says how --to-test records script steps; give --to-test FILE too")
	}
	if len(outputs) > 1 {
		return h.usageError("%s cannot be combined; give one", strings.Join(outputs, " and "))
	}
	if f.json && len(outputs) == 1 && outputs[0] != "--step" {
		return h.usageError("--json cannot be combined with %s", outputs[0])
	}
	return nil
}

// openTranscript finds the transcript arg names, a run id of the project or
// a folder, with the run's state file and whether a process drives it now.
// holder reports, each time it is called, whether a process drives the
// run. A run created but not started yet has no transcript folder: for
// --follow (follow set) that is no error, as the folder is to come.
func openTranscript(arg, projectFlag string, follow bool) (src analysis.Source, holder func() bool, err error) {
	holder = func() bool { return false }
	if strings.ContainsRune(arg, filepath.Separator) || isDir(arg) {
		dir, err := filepath.Abs(arg)
		if err != nil {
			return src, nil, fmt.Errorf("transcript folder: %w", err)
		}
		if !isDir(dir) {
			return src, nil, &usageError{
				msg:  fmt.Sprintf("%s is not a folder", arg),
				hint: "Give a run id (see 'raymond list --all') or a transcript folder such as .raymond/debug/RUN_ID.",
			}
		}
		src.Dir = dir
		id := filepath.Base(dir)
		if state.ValidID(id) != nil {
			return src, holder, nil
		}
		p, err := projectOf(dir, projectFlag)
		if err != nil {
			return src, holder, nil // no project: analyse the folder alone
		}
		src, holder = withState(src, p.Store, id)
		return src, holder, nil
	}
	if err := state.ValidID(arg); err != nil {
		return src, nil, transcriptHelp.usageError("%v", err)
	}
	p, err := openProject(projectFlag, false)
	if err != nil {
		return src, nil, err
	}
	if arg, err = resolveRunID(p.Store, arg); err != nil {
		return src, nil, err
	}
	src.Dir = filepath.Join(project.DebugDir(p.Dir), arg)
	src, holder = withState(src, p.Store, arg)
	if isDir(src.Dir) {
		return src, holder, nil
	}
	st := src.State
	switch {
	case st == nil && src.StateProblem == "":
		return src, nil, noRun(p.Store, arg)
	case st == nil:
		return src, nil, &exitError{code: exitFailed,
			msg: fmt.Sprintf("run %s has no transcript folder (%s), and its state file cannot be used: %s", arg, src.Dir, src.StateProblem)}
	case follow && st.Options.Debug && (st.Status == state.StatusCreated || src.Running):
		// About to start, or starting: the folder is to come.
		return src, holder, nil
	case st.Status == state.StatusCreated && st.Options.Debug:
		return src, nil, &exitError{code: exitFailed,
			msg: fmt.Sprintf("run %s has not started yet, so it has no transcript; `raymond resume %s` drives it (`raymond transcript %s --follow` waits for it to start)", arg, arg, arg)}
	case !st.Options.Debug:
		return src, nil, &exitError{code: exitFailed,
			msg: fmt.Sprintf("run %s has no transcript: it was started with --no-debug", arg)}
	}
	return src, nil, &exitError{code: exitFailed,
		msg: fmt.Sprintf("run %s has no transcript: its folder %s was deleted", arg, src.Dir)}
}

// projectOf returns the project of a transcript folder: --project when
// given, else the project the folder lies in (<project>/.raymond/debug/ID),
// else the one of the current folder.
func projectOf(dir, projectFlag string) (*project.Project, error) {
	if projectFlag == "" {
		if p, ok := project.OfTranscript(dir); ok {
			projectFlag = p
		}
	}
	return openProject(projectFlag, false)
}

// withState adds run id's state file, if the store has one, and who
// drives the run. A state file that cannot be read (empty, corrupt) is
// no error: the analysis goes on from the transcript, with a note.
func withState(src analysis.Source, store *state.Store, id string) (analysis.Source, func() bool) {
	holder := func() bool {
		_, held, err := store.Holder(id)
		if err == nil && held {
			return true
		}
		// A run created by raymond start counts as driven until it has
		// started: --follow waits for it.
		r, err := store.Read(id)
		return err == nil && r.Status == state.StatusCreated
	}
	r, err := store.Read(id)
	switch {
	case errors.Is(err, state.ErrNotFound), errors.Is(err, fs.ErrNotExist):
	case err != nil:
		src.StateProblem = err.Error()
	default:
		src.State = r
	}
	if pid, held, err := store.Holder(id); err == nil && held {
		src.Running, src.PID = true, pid
	}
	return src, holder
}

// follow prints the run's events until it ends (--follow), and exits as
// raymond run would have for how it ended.
func follow(ctx context.Context, env *cmdEnv, src analysis.Source, holder func() bool) error {
	id := filepath.Base(src.Dir)
	if st := src.State; st != nil && st.Status == state.StatusCreated {
		fmt.Fprintf(env.stderr, "raymond: run %s has not started yet; waiting for a process to drive it (`raymond resume %s`)\n", id, id)
	}
	status, err := analysis.Follow(ctx, src.Dir, env.stdout, analysis.FollowOptions{Driven: holder, ID: id})
	switch {
	case err != nil:
		return err
	case status == "":
		return &exitError{code: exitFailed} // the closing line said why
	}
	if code := project.ExitFor(state.Status(status)); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// showStep prints one step in full, as text or JSON.
func showStep(env *cmdEnv, run *analysis.Run, dir string, f transcriptFlags, opts analysis.TextOptions) error {
	s, err := findStep(run, f.step)
	if err != nil {
		return err
	}
	d, err := analysis.LoadDetail(dir, s)
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("cannot read step %s: %v", s.Name, err)}
	}
	if f.json {
		return analysis.WriteDetailJSON(env.stdout, d)
	}
	return analysis.WriteDetail(env.stdout, d, opts)
}

// findStep finds the step --step names: AGENT:N, or a step's file name
// with or without one of its suffixes.
func findStep(run *analysis.Run, spec string) (*analysis.Step, error) {
	if agent, n, ok := strings.Cut(spec, ":"); ok {
		seq, err := strconv.Atoi(n)
		if err != nil || seq < 1 {
			return nil, transcriptHelp.usageError("--step %s: N must be a step number from 1, as in main:3", spec)
		}
		a := run.Agent(agent)
		if a == nil {
			return nil, stepError(run, fmt.Sprintf("--step %s: the run has no agent %s; its agents are %s", spec, agent, agentList(run)))
		}
		if s := run.Find(agent, seq); s != nil {
			return s, nil
		}
		return nil, stepError(run, fmt.Sprintf("--step %s: agent %s has %s", spec, agent,
			plural(len(a.StepNames), "step", "steps")))
	}
	name := filepath.Base(spec)
	for _, suffix := range []string{".prompt.md", ".meta.json", ".jsonl"} {
		name = strings.TrimSuffix(name, suffix)
	}
	if s := run.Step(name); s != nil {
		return s, nil
	}
	return nil, stepError(run, fmt.Sprintf("--step %s: the run has no such step", spec))
}

// stepError is a usage error about --step that lists a few step names.
func stepError(run *analysis.Run, msg string) error {
	names := make([]string, 0, 3)
	for _, s := range run.Steps {
		if len(names) == cap(names) {
			break
		}
		names = append(names, s.Name)
	}
	hint := "--step takes AGENT:N (main:3) or a step's file name"
	if len(names) > 0 {
		hint += fmt.Sprintf(", such as %s; the report without --step lists the agents", strings.Join(names, ", "))
	}
	return &usageError{msg: msg, hint: hint + "."}
}

// agentList names the run's agents, the first few and how many more.
func agentList(run *analysis.Run) string {
	const most = 8
	var ids []string
	for _, a := range run.Agents {
		if len(ids) == most {
			return strings.Join(ids, ", ") + fmt.Sprintf(" and %d more", len(run.Agents)-most)
		}
		ids = append(ids, a.ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// writeHTML writes the HTML report, every step's detail included (read
// one step at a time as it is written), to file and says where on stderr.
func writeHTML(env *cmdEnv, run *analysis.Run, dir, file string) error {
	load := func(s *analysis.Step) (*analysis.Detail, error) { return analysis.LoadDetail(dir, s) }
	if file == "-" {
		if err := analysis.WriteHTML(env.stdout, run, load); err != nil {
			return &exitError{code: exitFailed, msg: fmt.Sprintf("write the report: %v", err)}
		}
		return nil
	}
	// 0600 like the transcript it is made from: it holds prompts, answers
	// and tool output.
	out, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("cannot write the report: %v", err)}
	}
	err = analysis.WriteHTML(out, run, load)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("write %s: %v", file, err)}
	}
	fmt.Fprintf(env.stderr, "raymond: wrote the report of run %s to %s\n", run.ID, file)
	return nil
}

// isDir reports whether path is an existing folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// recordTest writes run as a workflow test case: to stdout for "-", else
// into the test file f.toTest (created, or the case appended).
func recordTest(env *cmdEnv, run *analysis.Run, src analysis.Source, f transcriptFlags) error {
	if run.Running {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("run %s is still running; record it once it has ended (raymond transcript %s --follow waits for that)", run.ID, run.ID)}
	}
	o := wftest.RecordOptions{Name: f.caseName, Scripts: f.scripts}
	if src.State != nil {
		o.Input = src.State.Options.Input
	}
	if err := wftest.WriteRecorded(env.stdout, f.toTest, run, o); err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("record run %s as a test: %v", run.ID, err)}
	}
	if f.toTest != "-" {
		fmt.Fprintf(env.stderr, "raymond: recorded run %s as a test case in %s; run it with: raymond test %s\n", run.ID, f.toTest, f.toTest)
	}
	return nil
}
