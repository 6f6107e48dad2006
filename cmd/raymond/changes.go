package main

import (
	"context"
	"fmt"

	"raymond/analysis"
	"raymond/state"
	"raymond/workspace"
)

// htmlPatchCap is how much of one patch the HTML report holds; the rest
// is left to raymond transcript --diff.
const htmlPatchCap = 256 << 10

// fillChanges adds to run what the run st, in the worktree mode, changed
// in git: its draft's files from the commit it started from, and with
// patches the draft's and each step's patch for the HTML report. A run in
// the shared mode gets nothing; what git cannot tell is a Problem, not an
// error: the rest of the report stands.
func fillChanges(ctx context.Context, run *analysis.Run, st *state.Run, patches bool) {
	if st == nil || !st.Workspace.Worktree() {
		return
	}
	ws := st.Workspace
	c := &analysis.Changes{Branch: ws.Branch, Base: ws.BaseCommit, Status: ws.Status, Into: ws.Into,
		Published: ws.Published, Files: []state.FileStat{}, Cut: map[string]bool{}}
	run.Changes = c
	from, to, err := workspace.DraftRange(ctx, st.WorkflowID, ws)
	if err != nil {
		c.Problem = err.Error()
		return
	}
	c.Head = to
	if c.Files, err = workspace.Diffstat(ctx, ws.Repo, from, to); err != nil {
		c.Problem, c.Files = fmt.Sprintf("git cannot tell the draft's changes: %v", err), []state.FileStat{}
		return
	}
	if !patches {
		return
	}
	c.Patch, c.Cut[""], _ = workspace.Patch(ctx, ws.Repo, from, to, htmlPatchCap)
	c.Steps = map[string]string{}
	for _, s := range run.Steps {
		if cp := s.Checkpoint; cp != nil {
			var cut bool
			c.Steps[s.Name], cut, _ = workspace.Patch(ctx, ws.Repo, cp.Parent, cp.Commit, htmlPatchCap)
			c.Cut[s.Name] = cut
		}
	}
}

// showDiff prints the patch of one step (spec, as --step names steps) or,
// with spec "", of the run's whole draft against the commit it started
// from (transcript --diff).
func showDiff(ctx context.Context, env *cmdEnv, run *analysis.Run, st *state.Run, spec string) error {
	if st == nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("run %s has no state file here, so where its commits are is unknown; run --diff in its project", run.ID)}
	}
	ws := st.Workspace
	if !ws.Worktree() {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("run %s works in the shared mode: raymond made no commits of its changes, so there is no patch to show", run.ID)}
	}
	from, to := "", ""
	if spec == "" {
		var err error
		if from, to, err = workspace.DraftRange(ctx, run.ID, ws); err != nil {
			return &exitError{code: exitFailed, msg: err.Error()}
		}
	} else {
		s, err := findStep(run, spec)
		if err != nil {
			return err
		}
		if s.Checkpoint == nil {
			fmt.Fprintf(env.stderr, "raymond: step %s (%s) changed no file\n", analysis.StepDiffName(s), s.Name)
			return nil
		}
		from, to = s.Checkpoint.Parent, s.Checkpoint.Commit
	}
	patch, _, err := workspace.Patch(ctx, ws.Repo, from, to, 0)
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("git cannot show the patch: %v", err)}
	}
	_, err = env.stdout.Write([]byte(patch))
	return err
}
