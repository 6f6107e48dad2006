package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"raymond/project"
	"raymond/state"
	"raymond/workspace"
)

var publishHelp = help{
	name:  "publish",
	usage: "raymond publish RUN_ID [--squash] [--into BRANCH] [--json]",
	text: `
Publish the draft of a run started with --workspace worktree: merge its
branch raymond/RUN_ID into the branch the run started from (--into names
another). A branch that has not moved since is fast-forwarded; one that
moved gets a merge commit, or with --squash one commit of all the draft's
changes whose message lists the run's steps. --into a branch that does not
exist makes it at the draft's head.

When the branch is checked out (your checkout), the checkout moves along
as 'git merge --ff-only' would: uncommitted changes to other files stay.
Uncommitted changes to files the publish changes refuse it, and so does a
branch that moved in a way that conflicts with the draft: the message names
the files and how to go on, and nothing is changed.

Once published, the run's worktrees and its branches are removed, and the
run can no longer be resumed. Workers' branches whose work is not in the
draft (a merge that conflicted, merge: none) are kept and listed; 'raymond
discard RUN_ID' removes them too. A run that a process drives is refused.
A publish that was interrupted (a crash, kill -9) is finished by running
the same command again.`,
	examples: []string{
		"raymond publish 20261121-154012-123456-3f9a2c",
		"raymond publish last --squash",
		"raymond publish nightly-1 --into review/nightly-1",
	},
}

var discardHelp = help{
	name:  "discard",
	usage: "raymond discard RUN_ID [--json]",
	text: `
Drop the draft of a run started with --workspace worktree: remove its
worktrees (under .raymond/worktrees/RUN_ID), its draft branch
raymond/RUN_ID, its workers' branches raymond/RUN_ID/AGENT and its
salvage refs. The run's state and transcript stay ('raymond rm' removes
them, and the draft with them); it can no longer be resumed. Your
checkout and other branches are not touched. A run that a process drives
is refused. A discard that was interrupted is finished by running the
same command again.`,
	examples: []string{
		"raymond discard 20261121-154012-123456-3f9a2c",
		"raymond discard last --json",
	},
}

// publishJSON is what publish --json prints.
type publishJSON struct {
	RunID    string   `json:"run_id"`
	Into     string   `json:"into"`
	Commit   string   `json:"commit"`
	How      string   `json:"how"`
	Head     string   `json:"head,omitempty"`
	Checkout string   `json:"checkout,omitempty"`
	Kept     []string `json:"kept"`
	Finished bool     `json:"finished,omitempty"`
}

func runPublish(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("publish")
	squash := fs.Bool("squash", false, "make one commit of the draft's changes")
	into := fs.String("into", "", "publish into `BRANCH` (default: the branch the run started from)")
	asJSON := fs.Bool("json", false, "print what was done as JSON")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, publishHelp, env.stdout); done || err != nil {
		return err
	}
	if fs.Changed("into") && strings.TrimSpace(*into) == "" {
		return publishHelp.usageError("--into needs a branch name")
	}
	p, id, err := draftRun(fs.Args(), publishHelp, *projectDir)
	if err != nil {
		return err
	}
	r, res, err := project.PublishRun(ctx, p, id, workspace.PublishOptions{Into: *into, Squash: *squash})
	if err != nil {
		return draftFailed(p.Dir, err)
	}
	if !project.Ended(r.Status) && !res.Finished {
		fmt.Fprintf(env.stderr, "raymond: run %s had not ended (%s); published, it can no longer be resumed\n", id, r.Status)
	}
	if *asJSON {
		return printJSON(env, publishJSON{RunID: id, Into: res.Into, Commit: res.Commit, How: res.How, Head: res.Head,
			Checkout: res.Checkout, Kept: nonNil(res.Kept), Finished: res.Finished})
	}
	short := workspace.ShortCommit(res.Commit)
	switch {
	case res.Resumed:
		fmt.Fprintf(env.stdout, "finished publishing run %s into %s at %s\n", id, res.Into, short)
	case res.Finished:
		fmt.Fprintf(env.stdout, "run %s was published into %s as %s; its worktrees and branches are removed now\n", id, res.Into, short)
	case res.How == workspace.PublishUpToDate:
		fmt.Fprintf(env.stdout, "published run %s: %s had its changes already (%s)\n", id, res.Into, short)
	case res.How == workspace.PublishNewBranch:
		fmt.Fprintf(env.stdout, "published run %s into the new branch %s at %s\n", id, res.Into, short)
	default:
		fmt.Fprintf(env.stdout, "published run %s into %s (%s) at %s\n", id, res.Into, res.How, short)
	}
	if res.Checkout != "" {
		fmt.Fprintf(env.stderr, "raymond: moved your checkout of %s at %s along\n", res.Into, res.Checkout)
	}
	for _, ref := range res.Kept {
		fmt.Fprintf(env.stderr, "raymond: kept %s: its work is not in the draft (git branch -D or raymond discard %s removes it)\n", shortRef(ref), id)
	}
	return nil
}

// discardJSON is what discard --json prints.
type discardJSON struct {
	RunID    string   `json:"run_id"`
	Removed  []string `json:"removed"`
	Kept     []string `json:"kept"`
	Finished bool     `json:"finished,omitempty"`
}

func runDiscard(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("discard")
	asJSON := fs.Bool("json", false, "print what was removed as JSON")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, discardHelp, env.stdout); done || err != nil {
		return err
	}
	p, id, err := draftRun(fs.Args(), discardHelp, *projectDir)
	if err != nil {
		return err
	}
	_, res, err := project.DiscardRun(ctx, p, id)
	if err != nil {
		return draftFailed(p.Dir, err)
	}
	if *asJSON {
		return printJSON(env, discardJSON{RunID: id, Removed: nonNil(res.Removed), Kept: nonNil(res.Kept), Finished: res.Finished})
	}
	fmt.Fprintf(env.stdout, "discarded run %s\n", id)
	for _, what := range res.Removed {
		fmt.Fprintf(env.stderr, "raymond: removed %s\n", what)
	}
	for _, ref := range res.Kept {
		fmt.Fprintf(env.stderr, "raymond: kept %s: it is checked out in a worktree that is not the run's\n", shortRef(ref))
	}
	return nil
}

// draftRun opens the project and resolves the one run id of args.
func draftRun(args []string, h help, projectDir string) (*project.Project, string, error) {
	arg, err := oneArg(args, h, "RUN_ID")
	if err != nil {
		return nil, "", err
	}
	if err := state.ValidID(arg); err != nil {
		return nil, "", h.usageError("%v", err)
	}
	p, err := openProject(projectDir, false)
	if err != nil {
		return nil, "", err
	}
	id, err := resolveRunID(p.Store, arg)
	if err != nil {
		return nil, "", err
	}
	if _, err := p.Store.Read(id); err != nil {
		return nil, "", notFound(p.Store, id, err)
	}
	return p, id, nil
}

// draftFailed maps an error of publishing or discarding to its exit
// status: a run driven elsewhere exits 6 saying who drives it; a refusal
// (a conflict, a dirty checkout, a run already published) exits 1 with
// its one line.
func draftFailed(dir string, err error) error {
	if le, info, ok := servedBy(dir, err); ok {
		return &exitError{code: exitNotDriven, msg: fmt.Sprintf(
			"run %s is driven by raymond serve (process %d); pause it from its page (%s) first, or publish and discard it there", le.ID, info.PID, info.URL)}
	}
	var le *state.LockedError
	if errors.As(err, &le) {
		return &exitError{code: exitNotDriven, msg: le.Error()}
	}
	return &exitError{code: exitFailed, msg: err.Error()}
}

func printJSON(env *cmdEnv, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%s\n", data)
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// shortRef names a ref as git shows it: a branch without refs/heads/.
func shortRef(ref string) string {
	return strings.TrimPrefix(ref, "refs/heads/")
}
