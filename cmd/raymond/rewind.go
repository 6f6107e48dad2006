package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"raymond/orchestrator"
	"raymond/project"
	"raymond/rewind"
	"raymond/state"
	"raymond/transcript"
)

var rewindHelp = help{
	name:  "rewind",
	usage: "raymond rewind RUN_ID STEP [flags]",
	text: `
Go back to just before STEP of a run and go on from there in a NEW run: every
agent, stack, pending input, visit count and ask as they were then, each
agent's conversation branched where it stood (the model sees the turns before
STEP and none after), and in a worktree run each agent's files back at its
checkpoint (a new draft raymond/NEW_ID). The original run is left exactly as
it was; the new one records where it came from ('raymond transcript' shows
both as a tree). Then the new run is driven as 'raymond run' drives one: the
result on stdout, progress on stderr, the same exit statuses and --json.

STEP is as 'raymond transcript' names steps: AGENT:N (main:3, main_worker1:2),
a bare N for main's N-th step, or the step's file name (main_REVIEW_003).

--model, --effort and --input change the step rewound to only (--input replaces
its {{input}}: an ask's answer, a call's argument). The new run's budget counts
its own spend; what the original spent before STEP is shown, not charged.

--only runs that one step again and stops: its answer is printed beside the
original's (text, the tag it chose, cost), and the run is not driven on.
--dry-run prints what would be restored and makes nothing.

A run that a process drives is refused: stop it first (or wait for it).`,
	examples: []string{
		"raymond rewind nightly-1 main:7 --model opus",
		"raymond rewind nightly-1 main_REVIEW_007 --input 'use the other API'",
		"raymond rewind nightly-1 main_worker2:3 --dry-run",
		"raymond rewind nightly-1 7 --model opus --only",
	},
}

// rewindFlags are raymond rewind's own flags; those of driving are run's.
type rewindFlags struct {
	only, dryRun bool
}

func runRewind(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("rewind")
	f := newRunFlags(fs, kindRecover)
	var rf rewindFlags
	fs.StringVar(&f.model, "model", "", "run the step rewound to on `MODEL`")
	fs.StringVar(&f.effort, "effort", "", "run the step rewound to with `EFFORT`")
	fs.StringVar(&f.input, "input", "", "replace the {{input}} of the step rewound to with `TEXT`; - reads it from stdin, @FILE from FILE")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout instead of the bare result")
	fs.BoolVar(&rf.only, "only", false, "run only the step rewound to, and print its answer beside the original's")
	fs.BoolVar(&rf.dryRun, "dry-run", false, "print what would be restored, and make nothing")
	if done, err := parseFlags(fs, args, rewindHelp, env.stdout); done || err != nil {
		return err
	}
	if len(fs.Args()) != 2 {
		return rewindHelp.usageError("give the run and the step: raymond rewind RUN_ID STEP")
	}
	if err := f.readInput(env.stdin, rewindHelp); err != nil {
		return err
	}
	if err := checkStepOptions(f); err != nil {
		return err
	}
	p, err := openProject(f.project, false)
	if err != nil {
		return err
	}
	id, err := resolveRunID(p.Store, fs.Arg(0))
	if err != nil {
		return err
	}
	if err := state.ValidID(id); err != nil {
		return &usageError{msg: err.Error(), hint: "Run 'raymond list --all' to see the runs."}
	}
	orig, err := p.Store.Read(id)
	if err != nil {
		return notFound(p.Store, id, err)
	}
	if pid, held, err := p.Store.Holder(id); err == nil && held {
		return &exitError{code: exitNotDriven, msg: fmt.Sprintf(
			"run %s is being driven (process %d): a rewind needs it to stand still; stop it (Ctrl-C, or kill -INT %d) or wait until it ends, then rewind", id, pid, pid)}
	}
	dir := filepath.Join(project.DebugDir(p.Dir), id)
	if !isDir(dir) {
		why := "its transcript folder " + dir + " is gone"
		if !orig.Options.Debug {
			why = "it was run with --no-debug, which keeps no transcript"
		}
		return &exitError{code: exitFailed, msg: fmt.Sprintf("run %s cannot be rewound: %s, and a rewind starts from the transcript", id, why)}
	}
	name, err := findRewindStep(dir, id, fs.Arg(1))
	if err != nil {
		return err
	}
	o := rewind.Options{Model: f.model, Effort: f.effort, Only: rf.only, Costs: orig.SessionCosts}
	if f.changed("input") {
		o.Input = &f.input
	}
	newID := state.NewID()
	r, pt, err := rewind.Build(dir, name, newID, o)
	if errors.Is(err, rewind.ErrNoSnapshot) {
		return &exitError{code: exitFailed, msg: fmt.Sprintf(
			"step %s of run %s cannot be rewound to: the transcript has no snapshot of the run before it (%s.before.json): a raymond older than rewinds ran it, the run had more than %d agents then (snapshots stop there, since each holds the whole run), or it ran with --no-debug", name, id, name, orchestrator.MaxRewindAgents)}
	}
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("rewind %s to %s: %v", id, name, err)}
	}
	if rf.dryRun {
		return printPoint(env, id, pt, f.json)
	}
	if err := p.Store.Create(r); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "raymond: run %s rewinds run %s to just before %s (agent %s at %s); the original is left as it was\n",
		newID, id, name, pt.Agent, pt.State)
	if rf.only {
		// The run's own report (a result, --json) is not the answer:
		// printAlternative prints that.
		quiet := *env
		quiet.stdout = io.Discard
		d, err := newDriving(ctx, &quiet, p, f)
		if err != nil {
			return err
		}
		d.only = &onlyStep{agent: pt.Agent}
		// However the run stands after it (paused, ended), the step ran:
		// its answer, or how it failed, is what was asked for.
		if err := d.driveAndReport(ctx, newID, false); err != nil && !d.only.started() {
			return err
		}
		return printAlternative(env, dir, filepath.Join(project.DebugDir(p.Dir), newID), name, newID, f.json)
	}
	d, err := newDriving(ctx, env, p, f)
	if err != nil {
		return err
	}
	return d.driveAndReport(ctx, newID, false)
}

// checkStepOptions refuses a --model or --effort claude would refuse.
func checkStepOptions(f *runFlags) error {
	if f.effort != "" {
		if err := project.CheckEffort(f.effort); err != nil {
			return &usageError{msg: "--effort: " + err.Error(), hint: "Give low, medium, high, xhigh or max."}
		}
	}
	if f.model != "" {
		if err := project.CheckModel(f.model); err != nil {
			return &usageError{msg: "--model: " + err.Error(), hint: "Give an alias (opus, sonnet, haiku) or a model id."}
		}
	}
	return nil
}

// findRewindStep returns the transcript name of the step spec names in the
// transcript folder dir of run id: AGENT:N, N (main's), or a file name.
func findRewindStep(dir, id, spec string) (string, error) {
	metas, err := stepMetas(dir)
	if err != nil {
		return "", err
	}
	agent, n, qualified := strings.Cut(spec, ":")
	if !qualified {
		if _, err := strconv.Atoi(spec); err == nil {
			agent, n, qualified = "main", spec, true
		}
	}
	hint := fmt.Sprintf("STEP is AGENT:N (main:3), N for main's, or a step's file name; 'raymond transcript %s' lists the steps.", id)
	if qualified {
		seq, err := strconv.Atoi(n)
		if err != nil || seq < 1 {
			return "", &usageError{msg: fmt.Sprintf("step %q: N must be a step number from 1, as in main:3", spec), hint: hint}
		}
		steps, found := 0, ""
		for name, m := range metas {
			if m.Agent == agent {
				steps = max(steps, m.Seq)
				if m.Seq == seq {
					found = name
				}
			}
		}
		switch {
		case found != "":
			return found, nil
		case steps == 0:
			return "", &usageError{msg: fmt.Sprintf("step %s: run %s has no agent %s with steps", spec, id, agent), hint: hint}
		}
		return "", &usageError{msg: fmt.Sprintf("step %s: agent %s of run %s has %s", spec, agent, id, plural(steps, "step", "steps")), hint: hint}
	}
	name := filepath.Base(spec)
	for _, suffix := range []string{".prompt.md", ".meta.json", ".jsonl", ".before.json"} {
		name = strings.TrimSuffix(name, suffix)
	}
	if _, ok := metas[name]; ok {
		return name, nil
	}
	return "", &usageError{msg: fmt.Sprintf("step %s: run %s has no such step", spec, id), hint: hint}
}

// stepMetas reads the meta.json of every step of the transcript folder dir
// that has one, by step name.
func stepMetas(dir string) (map[string]*transcript.Meta, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]*transcript.Meta{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".meta.json")
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var m transcript.Meta
		if json.Unmarshal(data, &m) == nil {
			out[name] = &m
		}
	}
	return out, nil
}

// printPoint prints what a rewind would restore (--dry-run).
func printPoint(env *cmdEnv, id string, p *rewind.Point, asJSON bool) error {
	if asJSON {
		data, err := json.MarshalIndent(struct {
			Run string `json:"run"`
			*rewind.Point
		}{id, p}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%s\n", data)
		return nil
	}
	w := env.stdout
	fmt.Fprintf(w, "rewind run %s to just before %s: agent %s at %s (step %d)\n", id, p.Step, p.Agent, p.State, p.Seq)
	if p.Input != nil {
		fmt.Fprintf(w, "  input: %s\n", clip(*p.Input))
	}
	if p.Model != "" || p.Effort != "" {
		fmt.Fprintf(w, "  the step runs with model %q, effort %q\n", p.Model, p.Effort)
	}
	fmt.Fprintf(w, "  spent before it: $%.4f (shown, not charged to the new run)\n", p.PriorCostUSD)
	fmt.Fprintf(w, "agents:\n")
	for _, a := range p.Agents {
		line := fmt.Sprintf("  %-20s %-9s %s", a.ID, a.Status, a.State)
		if a.Stack > 0 {
			line += fmt.Sprintf(", %d on its stack", a.Stack)
		}
		if a.Ask != "" {
			line += ", ask " + a.Ask
		}
		if a.Head != "" {
			line += ", files at " + shortCommit(a.Head)
		}
		fmt.Fprintln(w, line)
	}
	sessions := make([]string, 0, len(p.Sessions))
	for s := range p.Sessions {
		sessions = append(sessions, s)
	}
	sort.Strings(sessions)
	fmt.Fprintf(w, "sessions, branched where they stood:\n")
	for _, s := range sessions {
		at := p.Sessions[s]
		if at == "" {
			at = "(not recorded: branched as it stands now)"
		}
		fmt.Fprintf(w, "  %s at %s\n", s, at)
	}
	return nil
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// clip folds s onto one line of at most 120 bytes.
func clip(s string) string {
	s = oneLine(s)
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
