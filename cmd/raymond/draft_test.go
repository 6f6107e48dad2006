package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/project"
	"raymond/state"
	"raymond/transcript"
	"raymond/workspace"
)

// The scripts' fixtures of runs in the worktree mode, made by hand as the
// orchestrator makes them: the draft branch raymond/<run> and its worktree
// .raymond/worktrees/<run>/main, workers' branches raymond/<run>.<agent>
// with their worktrees, checkpoint commits with the Raymond-* trailers and
// the step meta files that record them.

// cmdDraft turns a run of the project in $WORK, a git checkout, into one
// in the worktree mode, as if it had been started with --workspace
// worktree from the checkout's HEAD; with AGENT ids, it gives each a
// worker's branch and worktree made from the draft's head instead:
//
//	draft RUN_ID [AGENT...]
func cmdDraft(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: draft RUN_ID [AGENT...]")
	}
	ctx := context.Background()
	work := ts.Getenv("WORK")
	store := &state.Store{Dir: project.StateDir(work)}
	r, err := store.Read(args[0])
	ts.Check(err)
	id := r.WorkflowID
	git := func(dir string, args ...string) string {
		out, err := workspace.Git{Dir: dir}.Run(ctx, args...)
		ts.Check(err)
		return out
	}
	root := filepath.Join(work, ".raymond", "worktrees", id)
	if len(args) == 1 {
		repo := git(work, "rev-parse", "--show-toplevel")
		base := git(work, "rev-parse", "HEAD")
		branch, _ := workspace.Git{Dir: work}.Run(ctx, "symbolic-ref", "--short", "-q", "HEAD")
		ws := &state.Workspace{Mode: state.WorkspaceWorktree, Repo: repo, BaseBranch: branch, BaseCommit: base,
			Branch: "raymond/" + id, Dir: filepath.Join(root, "main"), Status: state.DraftOpen, Merge: state.MergeAuto}
		git(repo, "worktree", "add", "-q", "-b", ws.Branch, ws.Dir, base)
		r.Workspace = ws
		for _, a := range r.Agents {
			if a.ID == "main" {
				a.Workspace = &state.AgentWorkspace{Dir: ws.Dir, Branch: ws.Branch, Owner: "main", Head: base}
			}
		}
		ts.Check(store.Write(r))
		return
	}
	ws := r.Workspace
	if !ws.Worktree() {
		ts.Fatalf("draft %s: make the run's draft first (draft %s)", id, id)
	}
	head := git(ws.Dir, "rev-parse", "HEAD")
	for _, agent := range args[1:] {
		branch, dir := ws.Branch+"."+agent, filepath.Join(root, agent)
		git(ws.Repo, "worktree", "add", "-q", "-b", branch, dir, head)
		for _, a := range r.Agents {
			if a.ID == agent {
				a.Workspace = &state.AgentWorkspace{Dir: dir, Branch: branch, Owner: agent, Head: head}
			}
		}
	}
	ts.Check(store.Write(r))
}

// cmdCheckpoint commits what the worktree of AGENT in run RUN_ID holds, as
// the checkpoint of the step whose transcript files are named STEP
// (main_START_001), and records the commit in that step's meta file when
// it has one:
//
//	checkpt RUN_ID AGENT STEP
func cmdCheckpoint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: checkpt RUN_ID AGENT STEP")
	}
	ctx := context.Background()
	work := ts.Getenv("WORK")
	id, agent, name := args[0], args[1], args[2]
	dir := filepath.Join(work, ".raymond", "worktrees", id, agent)
	g := workspace.Git{Dir: dir}
	metaPath := filepath.Join(project.DebugDir(work), id, name+".meta.json")
	var m transcript.Meta
	data, err := os.ReadFile(metaPath)
	if err == nil {
		ts.Check(json.Unmarshal(data, &m))
	} else {
		m.Agent, m.Seq = agent, 1
		m.State = name
	}
	parent, err := g.Run(ctx, "rev-parse", "HEAD")
	ts.Check(err)
	_, err = g.Run(ctx, "add", "--all")
	ts.Check(err)
	msg := fmt.Sprintf("%s (%s, step %d)\n\nCheckpoint of run %s.\n\nRaymond-Run: %s\nRaymond-Agent: %s\nRaymond-State: %s\nRaymond-Step: %d\nRaymond-Cost: %.6f\n",
		m.State, m.Agent, m.Seq, id, id, m.Agent, m.State, m.Seq, m.CostUSD)
	_, err = g.Run(ctx, "commit", "-q", "-m", msg)
	ts.Check(err)
	commit, err := g.Run(ctx, "rev-parse", "HEAD")
	ts.Check(err)
	files, err := workspace.Diffstat(ctx, dir, parent, commit)
	ts.Check(err)
	branch, err := g.Run(ctx, "symbolic-ref", "--short", "HEAD")
	ts.Check(err)
	if data == nil {
		return
	}
	m.Checkpoint = &state.Checkpoint{Commit: commit, Parent: parent, Branch: branch, Files: files}
	data, err = json.MarshalIndent(m, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(metaPath, data, 0o600))
	store := &state.Store{Dir: project.StateDir(work)}
	r, err := store.Read(id)
	ts.Check(err)
	for _, a := range r.Agents {
		if a.ID == agent && a.Workspace != nil {
			a.Workspace.Head = commit
		}
	}
	ts.Check(store.Write(r))
}
