package wftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"raymond/analysis"
	"raymond/lint"
	"raymond/machine"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/script"
	"raymond/state"
	"raymond/workflow"
)

// DefaultTimeout is how long a case may run before it fails.
const DefaultTimeout = 30 * time.Second

// NoTimeout, as Options.Timeout, lets a case run as long as it takes.
const NoTimeout time.Duration = -1

// Options shape a run of test files.
type Options struct {
	// Run selects the cases whose ID matches; nil selects every case.
	Run *regexp.Regexp
	// Parallel is the most cases that run at once; 0 means GOMAXPROCS.
	Parallel int
	// Timeout fails a case still running after this long; 0 means
	// DefaultTimeout, a negative value (NoTimeout) no limit.
	Timeout time.Duration
	// Keep keeps the project folder of every case (its working folder,
	// task folders, state and transcript) instead of removing it; the
	// report names it.
	Keep bool
}

// Report is the outcome of a run of test files.
type Report struct {
	Files    []*FileResult
	Duration time.Duration
	// Unselected counts the cases of valid files that Options.Run left
	// out.
	Unselected int
}

// FileResult is the outcome of one test file.
type FileResult struct {
	// Path is the file as given.
	Path string
	// Prefix is what the ids of its cases start with (see IDPrefixes).
	Prefix string
	// Err is set when the file could not be read or is not valid; it then
	// has no cases.
	Err error
	// Cases are the selected cases, in the order of the file.
	Cases    []*CaseResult
	Duration time.Duration
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Name string
	ID   string
	Line int
	// Failures say what did not hold, one message each (some span lines);
	// none means the case passed.
	Failures []string
	Duration time.Duration
	// What the run did, for verbose and JSON reports; Status is "" when the
	// run could not be analysed.
	Status    string
	Result    *string
	Steps     int
	Reminders int
	Retries   int
	CostUSD   float64
	Paths     []Path
	// Asks are the run's asks, in the order asked.
	Asks []AskResult
	// Dir is the case's project folder, which holds its working folder
	// when it has files; it is gone unless Options.Keep kept it (Kept).
	Dir  string
	Kept bool
	// Prints are the run's <print> outputs, in order.
	Prints []string

	started time.Time
}

// AskResult is one ask of a case's run: its id, what became of it
// (answered, expired or pending) and the answer it got, nil for none.
type AskResult struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Answer *string `json:"answer,omitempty"`
}

// Path is the states one agent went through.
type Path struct {
	Agent  string
	Visits []Visit
}

// Visit is one state of a path and the tag that led to it ("" for main's
// entry state, "fork" for a forked agent's first state); NotRun says why
// a visit that ran no step did not ("budget reached"), "" when it ran.
type Visit struct {
	State  string
	Via    string
	NotRun string
}

// prefix is what the ids of the file's cases start with.
func (f *FileResult) prefix() string {
	if f.Prefix != "" {
		return f.Prefix
	}
	return stem(f.Path)
}

// Passed reports whether the case passed.
func (c *CaseResult) Passed() bool { return len(c.Failures) == 0 }

// Failed counts the files that could not be loaded and the cases that
// failed.
func (r *Report) Failed() int {
	n := 0
	for _, f := range r.Files {
		if f.Err != nil {
			n++
		}
		for _, c := range f.Cases {
			if !c.Passed() {
				n++
			}
		}
	}
	return n
}

// CaseCount counts the cases run.
func (r *Report) CaseCount() int {
	n := 0
	for _, f := range r.Files {
		n += len(f.Cases)
	}
	return n
}

// Passed reports whether cases ran and all of them passed, with every
// test file valid. A run of no case at all did not pass: it almost always
// means a --run expression or a path that selects nothing.
func (r *Report) Passed() bool { return r.Failed() == 0 && r.CaseCount() > 0 }

// Run loads the test files at paths and runs their selected cases, in
// parallel, each in a project folder of its own that is removed afterwards.
// A file that cannot be loaded is reported with its error and the others
// still run. Canceling ctx stops the cases running and fails them.
func Run(ctx context.Context, paths []string, o Options) *Report {
	start := time.Now()
	rep := &Report{Files: make([]*FileResult, len(paths))}
	type job struct {
		file *File
		c    *Case
		fr   *FileResult
		i    int // the case's place in fr.Cases
	}
	var jobs []job
	prefixes := IDPrefixes(paths)
	for i, path := range paths {
		fr := &FileResult{Path: path, Prefix: prefixes[i]}
		rep.Files[i] = fr
		f, err := Load(path)
		if err != nil {
			fr.Err = err
			continue
		}
		for _, c := range f.Cases {
			c.ID = fr.Prefix + "/" + c.Name
			if o.Run != nil && !o.Run.MatchString(c.ID) {
				rep.Unselected++
				continue
			}
			jobs = append(jobs, job{f, c, fr, len(fr.Cases)})
			fr.Cases = append(fr.Cases, nil)
		}
	}
	var g errgroup.Group
	g.SetLimit(orDefault(o.Parallel, runtime.GOMAXPROCS(0)))
	for _, j := range jobs {
		g.Go(func() error {
			j.fr.Cases[j.i] = j.file.RunCaseKeep(ctx, j.c, o.Timeout, o.Keep)
			return nil
		})
	}
	_ = g.Wait() // the jobs report through their results, never an error
	for _, fr := range rep.Files {
		// A file's time is the wall time its cases took, which overlap.
		var first, last time.Time
		for _, c := range fr.Cases {
			if first.IsZero() || c.started.Before(first) {
				first = c.started
			}
			if end := c.started.Add(c.Duration); end.After(last) {
				last = end
			}
		}
		fr.Duration = last.Sub(first)
	}
	rep.Duration = time.Since(start)
	return rep
}

// orDefault returns v when it is positive, else def.
func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// RunCase runs one case of f in a project folder of its own and checks
// its expectations. timeout 0 means DefaultTimeout, a negative one no
// limit. Every failure message is cut to a readable length.
func (f *File) RunCase(ctx context.Context, c *Case, timeout time.Duration) *CaseResult {
	return f.RunCaseKeep(ctx, c, timeout, false)
}

// RunCaseKeep is RunCase, keeping the case's project folder when keep is
// set. A case that fails, and a kept one, names the folder.
func (f *File) RunCaseKeep(ctx context.Context, c *Case, timeout time.Duration, keep bool) *CaseResult {
	start := time.Now()
	res := &CaseResult{Name: c.Name, ID: c.ID, Line: c.Line, Kept: keep, started: start}
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	// A workflow with a lint error fails every case, as raymond run
	// refuses it; the case still runs, so that its other failures show
	// what the error does.
	if err := lintErrors(f.Workflow); err != nil {
		res.Failures = append(res.Failures, err.Error())
	}
	if err := f.runCase(ctx, c, timeout, keep, res); err != nil {
		res.Failures = append(res.Failures, err.Error())
	}
	if len(res.Failures) > 0 && res.Dir != "" && (keep || c.Fresh || len(c.TaskFiles) > 0 || len(c.Expect.Files) > 0) {
		if keep {
			res.Failures = append(res.Failures, "the case's folder is kept: "+res.Dir)
		} else {
			res.Failures = append(res.Failures, fmt.Sprintf("the case ran in %s, now removed; raymond test --keep keeps it", res.Dir))
		}
	}
	for i, msg := range res.Failures {
		res.Failures[i] = clipMessage(msg)
	}
	res.Duration = time.Since(start)
	return res
}

// runCase does RunCase's work; an error is a failure that stops the checks.
// A negative timeout means none.
func (f *File) runCase(ctx context.Context, c *Case, timeout time.Duration, keep bool, res *CaseResult) error {
	dir, err := os.MkdirTemp("", "raymond-test-")
	if err != nil {
		return fmt.Errorf("make the case's project folder: %w", err)
	}
	res.Dir = dir
	if !keep {
		defer os.RemoveAll(dir)
	}
	cwd := f.Cwd
	if c.Fresh {
		// A case with files never writes into the user's tree: it works in
		// a folder of its own, inside its project folder.
		cwd = filepath.Join(dir, "work")
		if err := os.Mkdir(cwd, 0o755); err != nil {
			return fmt.Errorf("make the case's working folder: %w", err)
		}
		if err := writeFiles(cwd, c.Files); err != nil {
			return fmt.Errorf("write the case's files: %w", err)
		}
	}
	store, err := state.Open(project.StateDir(dir))
	if err != nil {
		return fmt.Errorf("open the case's state store: %w", err)
	}
	runner, err := c.Runner()
	if err != nil {
		return err
	}
	// A case runs no claude, so nothing is granted by skipping
	// permissions; without it a state with permission_mode:
	// bypassPermissions could not be tested, since a case has no
	// --dangerously-skip-permissions to give.
	opts := state.Options{Input: c.Input, MaxParallel: c.MaxParallel, Debug: true, ProjectDir: dir, SkipPermissions: true,
		// The runaway checks of a real run, with their defaults: a case
		// passes only if the run would not be stopped for a loop.
		LoopWarn: state.DefaultLoopWarn, LoopStop: state.DefaultLoopStop, CycleStop: state.DefaultCycleStop}
	// A test case runs in a scratch folder, not a git checkout: a
	// workflow that asks for worktrees is tested in the shared mode.
	r, err := orchestrator.Create(store, orchestrator.NewRun{Workflow: f.Workflow, Options: opts, BudgetUSD: c.BudgetUSD, Cwd: cwd, TaskFolderPattern: filepath.Join(dir, ".raymond", "tasks", "{{run_id}}", "{{agent_id}}"),
		Workspace: state.WorkspaceShared, WorkspaceGiven: true})
	if err != nil {
		return fmt.Errorf("start the run: %w", err)
	}
	taskFolder := func(agent string) string { return machine.TaskFolder(r.TaskFolderPattern, r.WorkflowID, agent) }
	if len(c.TaskFiles) > 0 {
		if err := writeFiles(taskFolder(orchestrator.MainAgent), c.TaskFiles); err != nil {
			return fmt.Errorf("write the case's task_files: %w", err)
		}
	}
	debug := project.DebugDir(dir)
	runner.InWorkflow(r.ScopeDir) // for the replies of the workflow's own block
	// Script states run for real unless the case's replies answer them.
	steps := runner.Scripts(&script.Runner{})
	prints := &printSink{}
	d := &orchestrator.Driver{Store: store, Runner: steps, Scripts: steps, DebugDir: debug, Clock: &orchestrator.InstantClock{}, Sinks: []orchestrator.Sink{prints}}
	var asker *caseAsker
	switch c.OnAsk {
	case OnAskPause:
		d.OnAsk = orchestrator.AskPause
	case OnAskReject:
		d.OnAsk = orchestrator.AskReject
	default:
		asker = newCaseAsker(c)
		d.OnAsk, d.Asker = orchestrator.AskPrompt, asker
		d.Clock = askClock{InstantClock: &orchestrator.InstantClock{}, asker: asker}
	}
	runCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	var final *state.Run
	if c.InterruptAfter > 0 {
		cr := newCrashRunner(steps, c.InterruptAfter)
		crashing := *d
		crashing.Runner, crashing.Scripts = cr, cr
		first := func(ctx context.Context) (*state.Run, error) { return crashing.Drive(ctx, r.WorkflowID, nil) }
		resume := func(ctx context.Context) (*state.Run, error) { return d.Drive(ctx, r.WorkflowID, nil) }
		final, err = crashThenResume(runCtx, first, resume, cr, c.InterruptAfter, store.Dir, filepath.Join(debug, r.WorkflowID))
	} else {
		final, err = d.Drive(runCtx, r.WorkflowID, nil)
		if err != nil {
			err = fmt.Errorf("run: %w", err)
		}
	}
	if err != nil {
		return err
	}
	runID := r.WorkflowID
	if c.Rewind != nil {
		first, err := analysis.Load(analysis.Source{Dir: filepath.Join(debug, runID), State: final})
		if err != nil {
			return fmt.Errorf("analyse the run's transcript: %w", err)
		}
		if final, runner, err = rewindRun(runCtx, c, *d, store, debug, r.ScopeDir, first, final.SessionCosts); err != nil {
			return err
		}
		runID = final.WorkflowID
	}
	run, err := analysis.Load(analysis.Source{Dir: filepath.Join(debug, runID), State: final})
	if err != nil {
		return fmt.Errorf("analyse the run's transcript: %w", err)
	}
	fill(res, run)
	res.Prints = prints.all()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted after %s", count(run.StepCount, "step", "steps"))
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s with the run still going (%s so far); %s (--timeout sets the limit)",
			timeout, count(run.StepCount, "step", "steps"), timeoutHint(run, timeout))
	}
	res.Failures = append(res.Failures, check(c, run, runner, asker)...)
	if c.Expect.Prints != nil {
		if msg := checkPrints(c.Expect.Prints, res.Prints); msg != "" {
			res.Failures = append(res.Failures, msg)
		}
	}
	// {{task_folder}} is main's task folder as the run ended: a reset
	// with task="new" gives it a fresh one. {{task_folder:NAME}} is the
	// folder of that name.
	finalFolder := func(folder string) string {
		if folder != mainTaskFolder {
			return taskFolder(folder)
		}
		if a := final.Agent(orchestrator.MainAgent); a != nil && a.TaskFolder != "" {
			return a.TaskFolder
		}
		return taskFolder(orchestrator.MainAgent)
	}
	res.Failures = append(res.Failures, checkFiles(c.Expect.Files, cwd, finalFolder)...)
	return nil
}

// fill records in res what the run did.
func fill(res *CaseResult, run *analysis.Run) {
	res.Status, res.Result, res.Steps, res.CostUSD = run.Status, run.Result, run.StepCount, run.CostUSD
	res.Reminders, res.Retries = run.Reminders, run.Retries
	for _, a := range run.Agents {
		p := Path{Agent: a.ID}
		for _, v := range a.Path {
			p.Visits = append(p.Visits, Visit{State: v.State, Via: v.Via, NotRun: v.NotRun})
		}
		res.Paths = append(res.Paths, p)
	}
	for _, k := range run.Asks {
		res.Asks = append(res.Asks, AskResult{ID: k.ID, Status: k.Status, Answer: k.Answer})
	}
}

// timeoutHint guesses why a case ran out of time: a step that was still
// running for most of it waited on a reply's delay; else the run went
// round and round, most likely on a reply with repeat: true.
func timeoutHint(run *analysis.Run, timeout time.Duration) string {
	for _, s := range slices.Backward(run.Steps) {
		if s.Outcome != "" && s.Outcome != "canceled" {
			continue
		}
		end := s.Ended
		if end.IsZero() {
			end = run.Ended
		}
		if ran := end.Sub(s.Started); ran >= timeout/2 {
			return fmt.Sprintf("step %s was still running after %s: a reply with a long delay?", s.Name, ran.Round(time.Millisecond))
		}
	}
	return "a reply with repeat: true in a loop?"
}

// lintErrors fails a case whose workflow has a lint error, as raymond run
// refuses to start it: it names every error.
func lintErrors(wf string) error {
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	rep, err := lint.Check(ss, wf)
	if err != nil || !rep.HasErrors() {
		return nil // the run says what is wrong with the workflow itself
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the workflow has lint errors, so raymond run would refuse it ('raymond lint %s' shows them):", wf)
	for _, e := range rep.Only(lint.Error) {
		fmt.Fprintf(&b, "\n  %s:%d: %s [%s]", e.File, e.Line, e.Message, e.Check)
	}
	return errors.New(b.String())
}
