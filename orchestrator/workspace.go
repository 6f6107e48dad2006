package orchestrator

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"raymond/machine"
	"raymond/state"
	"raymond/transcript"
	"raymond/workflow"
)

// Workspaces does the git work of runs in the worktree mode (issue 22):
// the draft, the workers' worktrees, a checkpoint per step, the merges.
// Package workspace implements it with the git program; the command line
// hands it to Create and to the Driver, as it hands the Driver its Runner,
// so that the driver itself runs no program.
type Workspaces interface {
	// Draft checks that the checkout cwd is in can start a run's draft
	// (git new enough, a repository with a commit, nothing uncommitted
	// unless carry), then makes the draft ws.Branch and its worktree
	// ws.Dir. It fills ws.Repo, ws.BaseBranch and ws.BaseCommit, and
	// returns the draft's first commit (BaseCommit, or the commit that
	// carried the uncommitted changes). A refusal is an error the user
	// fixes, and nothing was made.
	Draft(ctx context.Context, cwd string, carry bool, ws *state.Workspace) (head string, err error)
	// Worktree makes sure w.Dir is a worktree of repo on w.Branch, made
	// from w.Head when the branch is new.
	Worktree(ctx context.Context, repo string, w *state.AgentWorkspace) error
	// Reconcile makes the worktree hold exactly w.Head, saving anything
	// else it holds on the ref salvage first; it returns the ref it saved
	// to, "" when there was nothing to save.
	Reconcile(ctx context.Context, w *state.AgentWorkspace, salvage string) (string, error)
	// Checkpoint commits what changed in the worktree dir after step seq
	// of agent in run, at stateName, which cost costUSD on model; nil when
	// nothing changed.
	Checkpoint(ctx context.Context, dir, run, agent, stateName string, seq int, costUSD float64, model string) (*state.Checkpoint, error)
	// Merge merges branches, in order, into the worktree dir, msgs[i]
	// the message of branches[i]'s merge commit. It returns the
	// worktree's commit after each, and the paths of each that conflicted
	// (none for a clean one): a conflict is left out, the worktree as it
	// was. A branch merged before is not merged again. An error means
	// none was merged.
	Merge(ctx context.Context, dir string, branches, msgs []string) (heads []string, conflicts [][]string, err error)
	// SalvageRef is the ref Reconcile saves to before step seq of agent.
	SalvageRef(run, agent string, seq int) string
}

// CheckpointOf names the step a checkpoint commits, for its message
// (Workspaces.Checkpoint's arguments).
type CheckpointOf struct {
	Run, Agent, State string
	Seq               int
	CostUSD           float64
	Model             string
}

// draftOf resolves the workspace mode of a new run: the command line,
// else the manifest, else the config (n.Workspace), else shared; and the
// merge rule the same way.
func draftOf(n NewRun, m *workflow.Manifest) (mode, merge string) {
	mode, merge = n.Workspace, n.Merge
	if m != nil {
		if m.Workspace != "" && (!n.WorkspaceGiven || mode == "") {
			mode = m.Workspace
		}
		if m.Merge != "" && (!n.MergeGiven || merge == "") {
			merge = m.Merge
		}
	}
	if mode == "" {
		mode = state.WorkspaceShared
	}
	if merge == "" {
		merge = state.MergeAuto
	}
	return mode, merge
}

// makeDraft makes the draft of the new run id when it works in
// worktrees, and moves main into it: its folder is the same place in the
// draft's worktree as cwd is in the checkout.
func makeDraft(n NewRun, m *workflow.Manifest, id, project string, main *state.Agent) (*state.Workspace, error) {
	mode, merge := draftOf(n, m)
	if mode != state.WorkspaceWorktree {
		return nil, nil
	}
	if n.Workspaces == nil {
		return nil, fmt.Errorf("this raymond cannot make worktrees; use --workspace shared")
	}
	if project == "" {
		project = main.Cwd
	}
	ws := &state.Workspace{Mode: mode, Merge: merge, Status: state.DraftOpen, Branch: "raymond/" + id,
		Dir: filepath.Join(project, ".raymond", "worktrees", id, MainAgent)}
	head, err := n.Workspaces.Draft(context.Background(), main.Cwd, n.FromDirty, ws)
	if err != nil {
		return nil, err
	}
	cwd := main.Cwd
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	rel, err := filepath.Rel(ws.Repo, cwd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		rel = "."
	}
	main.Cwd = filepath.Join(ws.Dir, rel)
	main.Pending.Cwd = main.Cwd
	main.Workspace = &state.AgentWorkspace{Dir: ws.Dir, Branch: ws.Branch, Owner: MainAgent, Head: head}
	return ws, nil
}

// workspaceOf is the worktree an agent works in, nil for none.
func (g *driving) workspaceOf(agent string) *state.AgentWorkspace {
	r := g.m.Run()
	if !r.Workspace.Worktree() {
		return nil
	}
	for i := range r.Agents {
		if r.Agents[i].ID == agent {
			return r.Agents[i].Workspace
		}
	}
	return nil
}

// busyIn reports whether a step of another agent than except runs in the
// worktree dir (a fork with workspace="shared").
func (g *driving) busyIn(dir, except string) bool {
	for id, l := range g.launches {
		if id != except && l.running && l.workspace == dir {
			return true
		}
	}
	return false
}

// readyWorkspace makes the agent's worktree ready for its step seq (see
// readyWorkspaces).
func (g *driving) readyWorkspace(agent string, seq int) error {
	return g.readyWorkspaces(map[string]int{agent: seq})[agent]
}

// readyWorkspaces makes the worktrees of agents ready for their next steps
// (agent to step number): each is made if it is not there yet (a worker's
// first step, or a kill while it was made), and made to hold exactly its
// recorded head (what a step cut short left is saved on a salvage ref
// first, and said). The worktrees are made in parallel, one job a folder,
// on the loop's behalf: it waits for them, and publishes what they saved.
func (g *driving) readyWorkspaces(agents map[string]int) map[string]error {
	ws := g.d.Workspaces
	if ws == nil {
		return nil
	}
	r := g.m.Run()
	ctx := context.WithoutCancel(g.ctxOrBackground())
	type job struct {
		agent  string
		w      state.AgentWorkspace
		seq    int
		busy   bool
		saved  string
		err    error
		others []string // agents working in the same folder
	}
	var jobs []*job
	byDir := map[string]*job{}
	for _, id := range slices.Sorted(maps.Keys(agents)) {
		w := g.workspaceOf(id)
		if w == nil {
			continue
		}
		if j := byDir[w.Dir]; j != nil {
			j.others = append(j.others, id)
			continue
		}
		j := &job{agent: id, w: *w, seq: agents[id], busy: g.busyIn(w.Dir, id)}
		byDir[w.Dir] = j
		jobs = append(jobs, j)
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			if j.err = ws.Worktree(ctx, r.Workspace.Repo, &j.w); j.err != nil {
				return
			}
			if j.busy {
				return // another agent's step works there: its changes are not a cut-short step's
			}
			j.saved, j.err = ws.Reconcile(ctx, &j.w, ws.SalvageRef(r.WorkflowID, j.agent, j.seq))
		})
	}
	wg.Wait()
	errs := map[string]error{}
	for _, j := range jobs {
		if j.err != nil {
			for _, id := range append([]string{j.agent}, j.others...) {
				errs[id] = fmt.Errorf("workspace: %w", j.err)
			}
			continue
		}
		if j.saved != "" {
			g.publish(transcript.Event{Type: transcript.EventSalvaged, Agent: j.agent, Commit: j.saved,
				Message: fmt.Sprintf("%s held changes no checkpoint took (a step cut short); they are saved on %s and the worktree is back at %.7s", j.w.Dir, j.saved, j.w.Head)}, nil)
		}
	}
	return errs
}

// ctxOrBackground is the drive's context once the loop runs.
func (g *driving) ctxOrBackground() context.Context {
	if g.ctx != nil {
		return g.ctx
	}
	return context.Background()
}

// merge carries out a Merge effect: the agent's worktree is made ready
// (reconciled to its head), then each worker's branch is merged in order.
func (g *driving) merge(e machine.Merge) machine.Merged {
	out := machine.Merged{Agent: e.Agent}
	ctx := context.WithoutCancel(g.ctxOrBackground())
	r := g.m.Run()
	a := g.agent(e.Agent)
	readyErr := ""
	if g.d.Workspaces == nil {
		readyErr = "this raymond cannot merge worktrees"
	} else if a != nil {
		if err := g.readyWorkspace(e.Agent, a.Steps+1); err != nil {
			readyErr = err.Error()
		}
	}
	branches, msgs := make([]string, len(e.Items)), make([]string, len(e.Items))
	for i, it := range e.Items {
		branches[i] = it.Branch
		msgs[i] = fmt.Sprintf("Merge %s into %s\n\nThe work of %s (branch %s) in run %s.\n\nRaymond-Run: %s\nRaymond-Agent: %s\nRaymond-Merged: %s\n",
			it.Worker, e.Agent, it.Worker, it.Branch, r.WorkflowID, r.WorkflowID, e.Agent, it.Worker)
	}
	var heads []string
	var conflicts [][]string
	if readyErr == "" {
		var err error
		if heads, conflicts, err = g.d.Workspaces.Merge(ctx, e.Dir, branches, msgs); err != nil {
			readyErr = err.Error()
		}
	}
	for i, it := range e.Items {
		res := machine.MergeResult{Worker: it.Worker, Branch: it.Branch}
		if readyErr != "" {
			res.Err = readyErr
		} else {
			res.Head, res.Conflicts = heads[i], conflicts[i]
		}
		out.Results = append(out.Results, res)
	}
	out.Now = g.clock.Now()
	return out
}

// agent returns the run's agent id, nil for none.
func (g *driving) agent(id string) *state.Agent {
	r := g.m.Run()
	for i := range r.Agents {
		if r.Agents[i].ID == id {
			return &r.Agents[i]
		}
	}
	return nil
}

// onConflictOf is where a state sends its agent when merges conflicted:
// its own on_conflict, else its workflow's manifest's, resolved to a file
// name.
func onConflictOf(scope *workflow.Scope, st *workflow.State) string {
	target := st.Policy.OnConflict
	if target == "" {
		if m := scope.Manifest(); m != nil {
			target = m.OnConflict
		}
	}
	if target == "" {
		return ""
	}
	if name, err := scope.Resolve(target); err == nil {
		return name
	}
	return target
}

// checkpoint commits what a step changed in the worktree dir, in the
// step's goroutine; a failure is a warning, the changes stay for the next
// checkpoint.
func checkpoint(ws Workspaces, dir string, c CheckpointOf) (*state.Checkpoint, string) {
	cp, err := ws.Checkpoint(context.Background(), dir, c.Run, c.Agent, c.State, c.Seq, c.CostUSD, c.Model)
	if err != nil {
		return nil, fmt.Sprintf("cannot commit what %s changed: %v", c.Agent, err)
	}
	return cp, ""
}
