package rewind

import (
	"path/filepath"
	"strings"

	"raymond/state"
)

// moveWorkspaces gives the new run its own draft and worktrees in the
// worktree mode: raymond/<new> and .raymond/worktrees/<new>/..., each made
// (by the driver, when the agent's next step needs it) from the commit the
// agent's workspace stood at before the step, so its files are back at
// that checkpoint. The original's branches and worktrees are not touched.
func moveWorkspaces(r *state.Run, orig, newID string) {
	ws := r.Workspace
	oldDir := filepath.Dir(ws.Dir) // <project>/.raymond/worktrees/<orig>
	newDir := filepath.Join(filepath.Dir(oldDir), newID)
	oldBranch, newBranch := ws.Branch, "raymond/"+newID
	moveDir := func(p string) string {
		if p == oldDir || strings.HasPrefix(p, oldDir+string(filepath.Separator)) {
			return newDir + p[len(oldDir):]
		}
		return p
	}
	moveBranch := func(b string) string {
		if b == oldBranch || strings.HasPrefix(b, oldBranch+".") {
			return newBranch + b[len(oldBranch):]
		}
		return b
	}
	moveWS := func(w *state.AgentWorkspace) {
		if w == nil {
			return
		}
		w.Dir, w.Branch = moveDir(w.Dir), moveBranch(w.Branch)
		// A merge waiting at the step boundary is of the original's
		// branches: made again from the workers' own, which move too.
		for i := range w.Conflicts {
			w.Conflicts[i].Branch = moveBranch(w.Conflicts[i].Branch)
		}
	}
	ws.Dir, ws.Branch = moveDir(ws.Dir), newBranch
	ws.Status, ws.Published, ws.Into = state.DraftOpen, "", ""
	for i := range r.Agents {
		a := &r.Agents[i]
		a.Cwd = moveDir(a.Cwd)
		moveWS(a.Workspace)
		if a.Pending != nil {
			a.Pending.Cwd = moveDir(a.Pending.Cwd)
		}
		for j := range a.Stack {
			f := &a.Stack[j]
			f.Cwd = moveDir(f.Cwd)
			moveWS(f.Workspace)
		}
	}
}
