package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"raymond/claude"
	"raymond/lint"
	"raymond/orchestrator"
	"raymond/permission"
	"raymond/project"
	"raymond/scripted"
	"raymond/state"
	"raymond/workflow"
	"raymond/workspace"
)

var runHelp = help{
	name: "run",
	usage: `raymond run WORKFLOW [flags]
       raymond WORKFLOW [flags]
       raymond run RUN_ID [flags]`,
	text: `
Start a new run of WORKFLOW (a workflow folder, or the state file to start
from) and drive it until it completes, fails, pauses or reaches its budget.
Given the id of an existing run instead, drive that run as 'raymond resume'
does.

stdout carries only main's result once every agent has ended (also when a
worker failed: the exit status says so), or with --json one object:
  {"run_id", "status", "result" (main's, null until then), "total_cost_usd",
   "budget_usd", "agents": [{"id", "status", "state", "result", "error"}],
   "project", "transcript" (its folder, or null), "exit_code"}
Progress goes to stderr.

When an agent asks a person (<ask>), --on-ask decides who answers: prompt
puts the question on the terminal and reads the answer there while the other
agents run; pause lets the others run, then exits 4 with the questions on
stdout; reject fails the agent; auto (the default) is prompt when stdin and
stderr are terminals, else pause.

The workflow is linted first ('raymond lint'): an error exits 2 before a run
is created, naming each one; warnings are printed once. --no-lint skips it.

Defaults for the flags may be set in .raymond/config.toml (keys model, effort,
budget, max_parallel, max_agents, max_depth, max_forks, timeout, step_timeout, no_wait,
max_turns, loop_warn, loop_stop, cycle_stop, permission_mode, dangerously_skip_permissions,
claude, debug, quiet, confine, on_ask, lint, workspace, workspace_merge);
flags override it, and RAYMOND_CLAUDE overrides its claude.

Exit status (also exit_code in --json):
  0  completed
  1  failed (an agent failed), or raymond itself failed
  2  bad usage (flags, option values, workflow, config file)
  3  paused by a signal or a usage limit: 'raymond resume ID' goes on
  4  waiting for answers: agents asked (<ask>) and nothing else can go on;
     stdout carries one JSON object with the asks and the commands that
     answer them ('raymond answer', then 'raymond resume ID')
  5  budget reached: 'raymond resume ID --budget USD' goes on
  6  nothing driven: another process drives the run, or it had completed
  7  claude cannot run (missing, refused, logged out, no credit): the run
     is paused; fix that, then 'raymond resume ID'. A claude that cannot
     be found is looked for first: no run is made
The first Ctrl-C (or SIGTERM, SIGHUP: a closed terminal) lets the steps in
flight finish, the second kills them; either way the run is paused and can be
resumed.`,
	examples: []string{
		"raymond run wf/ --input 'the bug in #42'",
		"raymond wf/START.md --budget 2 --model sonnet",
		"x=$(raymond run wf/ --quiet)          # the result, for a script",
		"raymond run wf/ --replies replies.yaml # no model: scripted replies",
		"raymond run wf/ --on-ask pause          # exit 4 with the questions instead of asking",
	},
}

func runRun(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("run")
	f := newRunFlags(fs, kindRun)
	if done, err := parseFlags(fs, args, runHelp, env.stdout); done || err != nil {
		return err
	}
	if err := f.check(runHelp); err != nil {
		return err
	}
	if err := f.readInput(env.stdin, runHelp); err != nil {
		return err
	}
	arg, err := oneArg(fs.Args(), runHelp, "WORKFLOW")
	if err != nil {
		return err
	}
	p, err := openProject(f.project, true)
	if err != nil {
		return err
	}
	d, err := newDriving(ctx, env, p, f)
	if err != nil {
		return err
	}
	defer d.close()
	id, err := runIDOf(p.Store, arg)
	if err != nil {
		return err
	}
	if id != "" {
		if f.changed("input") || f.changed("id") {
			return runHelp.usageError("%s is an existing run; --input and --id only apply to a new one", arg)
		}
		if f.changed("workspace") || f.changed("workspace-from-dirty") {
			return runHelp.usageError("%s is an existing run, which keeps the workspace it was made with; --workspace and --workspace-from-dirty only apply to a new one", arg)
		}
		return d.resume(ctx, id)
	}
	opts, budget := p.NewOptions(f.given(env.getenv))
	r, err := create(env, p, f, arg, opts, budget)
	if err != nil {
		return err
	}
	d.warnReplies(arg, fetcher(p))
	return d.driveAndReport(ctx, r.WorkflowID, false)
}

// warnReplies warns of the keys of the replies file that name no state of
// workflowArg nor of the workflows it reaches: a typo there would otherwise
// show only as a step that finds no reply. A warning, not an error: one
// replies file may serve several workflows. raymond test refuses them.
func (d *driving) warnReplies(workflowArg string, fetcher workflow.Fetcher) {
	if d.replies == "" {
		return
	}
	r, err := scripted.Load(d.flags.replies) // named as given, in the warnings
	if err != nil {
		return // driving the run says what is wrong with it
	}
	ss := workflow.NewScopes(fetcher)
	defer ss.Close()
	scope, _, err := ss.Start(workflowArg)
	if err != nil {
		return // creating the run says what is wrong with the argument
	}
	reached := ss.Reached(scope)
	err = r.Check(reached[0], reached[1:]...)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		fmt.Fprintf(d.env.stderr, "raymond: warning: %v\n", e)
	}
}

// create creates a run of workflow, mapping a workflow that cannot start and
// a taken id to usage errors.
func create(env *cmdEnv, p *project.Project, f *runFlags, workflow string, opts state.Options, budget float64) (*state.Run, error) {
	if !f.noLint && (p.Config == nil || p.Config.Lint == nil || *p.Config.Lint) {
		if err := lintBeforeRun(env, workflow, fetcher(p)); err != nil {
			return nil, err
		}
	}
	if err := checkEscalation(workflow, fetcher(p), opts); err != nil {
		return nil, err
	}
	for _, m := range append([]string{opts.Model}, opts.FallbackModels...) {
		if w := project.ModelWarning(m); w != "" {
			// Maybe a model newer than raymond: said, not refused.
			fmt.Fprintf(env.stderr, "raymond: warning: %s\n", w)
		}
	}
	if f.replies == "" {
		// A run made without claude to run its steps would only be left
		// paused: say so before it exists. --replies needs no claude.
		if _, err := claude.Find(opts.ClaudePath); err != nil {
			return nil, &exitError{code: exitNoClaude, msg: fmt.Sprintf("%v; no run was created", err)}
		}
	}
	if cwd, err := os.Getwd(); err == nil && opts.Confine && opts.ProjectDir != "" && !project.Within(cwd, opts.ProjectDir) {
		return nil, &usageError{
			msg:  fmt.Sprintf("the run's agents would start in %s, outside the project folder %s, and --confine keeps them inside it", cwd, opts.ProjectDir),
			hint: "Start raymond from inside the project folder, or leave --confine (and confine in the config) off.",
		}
	}
	n := orchestrator.NewRun{
		Workflow: workflow, ID: f.id, Options: opts, BudgetUSD: budget, BudgetGiven: f.changed("budget"),
		MaxTurnsGiven:     f.changed("max-turns"),
		TaskFolderPattern: p.TaskPattern(), OnAsk: opts.OnAsk, Fetcher: fetcher(p),
		WorkspaceGiven: f.changed("workspace"), FromDirty: f.fromDirty, Workspaces: workspace.Worktrees{},
	}
	n.Workspace, n.Merge = p.Workspace(f.settings())
	if f.continueSess {
		dir, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		// Recorded once, when the run is made: a re-run after a crash
		// branches from the same conversation, never from its own branch.
		n.ContinueSession, err = claude.LatestSession("", dir, madeByRuns(p.Store))
		if errors.Is(err, claude.ErrNoSession) {
			return nil, &usageError{msg: "--continue-session: " + err.Error(),
				hint: "Leave --continue-session out to start from a fresh conversation."}
		}
		if err != nil {
			return nil, fmt.Errorf("--continue-session: %w", err)
		}
	}
	r, err := orchestrator.Create(p.Store, n)
	var we *orchestrator.WorkflowError
	switch {
	case errors.As(err, &we) && we.Manifest:
		return nil, &usageError{msg: we.Error()}
	case errors.As(err, &we) && we.Loaded:
		return nil, &usageError{msg: we.Error(), hint: "Fix the state file the message names, then run again."}
	case errors.As(err, &we):
		// The message says what to give instead.
		return nil, &usageError{msg: we.Error()}
	case errors.As(err, new(*workspace.UsageError)):
		return nil, &usageError{msg: err.Error() + "; no run was created"}
	case errors.Is(err, fs.ErrExist):
		return nil, &usageError{msg: err.Error(), hint: "Run ids must be new; 'raymond list --all' shows the ones taken."}
	case err != nil:
		return nil, err
	}
	return r, nil
}

// madeByRuns reports the sessions the project's runs made (their steps'
// sessions and branches), so that --continue-session passes over them: the
// newest session in a folder is often a run's, not the person's. A session
// a run continued stays the person's.
func madeByRuns(store *state.Store) func(string) bool {
	runs, _ := store.List()
	made, continued := map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		continued[r.ContinueSession] = true
		for id := range r.SessionCosts {
			made[id] = true
		}
		for i := range r.Agents {
			a := &r.Agents[i]
			made[a.SessionID] = true
			if a.Pending != nil {
				made[a.Pending.SessionID] = true
			}
			for _, f := range a.Stack {
				made[f.Session] = true
			}
		}
	}
	return func(id string) bool { return made[id] && !continued[id] }
}

// runIDOf returns the id of the existing run arg names rather than a
// workflow, "" when it names none: no file or folder of that name exists,
// and it is a run's id, a unique prefix of one, or "last" (resolveRunID).
func runIDOf(store *state.Store, arg string) (string, error) {
	if state.ValidID(arg) != nil {
		return "", nil
	}
	if _, err := os.Stat(arg); !errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	id, err := resolveRunID(store, arg)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(store.Path(id)); err != nil {
		return "", nil
	}
	return id, nil
}

// oneArg returns the single argument a command takes.
func oneArg(args []string, h help, what string) (string, error) {
	switch len(args) {
	case 0:
		return "", h.usageError("missing %s", what)
	case 1:
		return args[0], nil
	}
	return "", h.usageError("too many arguments: %s takes one %s, got %s", h.name, what, strings.Join(args, " "))
}

// resume drives the existing run id with the flags given overriding its
// options.
func (d *driving) resume(ctx context.Context, id string) error {
	id, err := resolveRunID(d.project.Store, id)
	if err != nil {
		return err
	}
	if err := checkResumable(d.project.Store, id, d.flags); err != nil {
		d.summarize(id, nil, err)
		return err
	}
	return d.driveAndReport(ctx, id, true)
}

// checkEscalation refuses, before a run is created, a workflow with a state
// that asks for permission_mode bypassPermissions when the run does not skip
// permissions itself. The run would fail when it reached that state, maybe
// after paying for the steps before it; the check as each step starts
// stays, for workflows this walk cannot see (a target known only when it
// runs).
func checkEscalation(workflowArg string, fetcher workflow.Fetcher, opts state.Options) error {
	if opts.SkipPermissions || opts.PermissionMode == permission.Bypass {
		return nil
	}
	ss := workflow.NewScopes(fetcher)
	defer ss.Close()
	g, err := lint.BuildGraph(ss, workflowArg)
	if err != nil {
		return nil // creating the run says what is wrong with the argument
	}
	var states []string
	for _, w := range g.Workflows {
		for _, s := range w.States {
			if !s.Unreachable && permission.Escalates(opts.PermissionMode, opts.SkipPermissions, s.PermissionMode) {
				states = append(states, fmt.Sprintf("%s (workflow %s)", s.Name, shown(w.Dir)))
			}
		}
	}
	if len(states) == 0 {
		return nil
	}
	verb := "asks"
	if len(states) > 1 {
		verb = "ask"
	}
	return &usageError{
		msg: fmt.Sprintf("%s %s for permission_mode bypassPermissions, which skips every permission check, "+
			"but this run is not started with --dangerously-skip-permissions: a workflow cannot grant itself that, so no run was created",
			strings.Join(states, ", "), verb),
		hint: "Start the run with --dangerously-skip-permissions if you trust the workflow, or change the state's permission_mode.",
	}
}
