package state

import (
	"path"
	"time"
)

// Workspace is where a run's agents work when the run asked for git
// worktrees (--workspace worktree, issue 22); a run in the shared mode, the
// default, has none and every agent works in its Cwd as before.
//
// The run's draft is the branch Branch (raymond/<run-id>) in a worktree of
// the user's repository at Dir, made from BaseCommit, the commit the user's
// checkout was on. Published or discarded, the draft's worktrees are gone
// and Status says which.
type Workspace struct {
	// Mode is "worktree"; "" and "shared" mean the shared mode.
	Mode string `json:"mode"`
	// Repo is the absolute top level of the user's checkout (git rev-parse
	// --show-toplevel) the worktrees belong to.
	Repo string `json:"repo"`
	// BaseBranch is the branch the user's checkout was on when the run was
	// created ("" when its HEAD was detached); publish merges into it unless
	// told another.
	BaseBranch string `json:"base_branch,omitempty"`
	// BaseCommit is the commit the draft started from.
	BaseCommit string `json:"base_commit"`
	// Branch is the draft branch, raymond/<run-id>.
	Branch string `json:"branch"`
	// Dir is the absolute path of the draft's worktree, main's workspace.
	Dir string `json:"dir"`
	// Merge is how workers' branches come back: "auto" (the default: merged
	// into the parent's workspace at its next step boundary) or "none" (kept
	// unmerged for review).
	Merge string `json:"merge,omitempty"`
	// Status is "draft" while the run's work is a draft, then "published"
	// or "discarded".
	Status string `json:"status,omitempty"`
	// Published is the commit publish made (or fast-forwarded to) on the
	// branch it published into, and Into that branch.
	Published string `json:"published,omitempty"`
	Into      string `json:"into,omitempty"`
	// Head is the draft's head that was published (its changes end
	// there), Squash is set when publish made one squashed commit of them,
	// and At is when the draft was published or discarded.
	Head   string    `json:"head,omitempty"`
	Squash bool      `json:"squash,omitempty"`
	At     time.Time `json:"at,omitzero"`
}

// Workspace modes and draft statuses.
const (
	WorkspaceShared   = "shared"
	WorkspaceWorktree = "worktree"

	DraftOpen      = "draft"
	DraftPublished = "published"
	DraftDiscarded = "discarded"
	// DraftPublishing and DraftDiscarding record that a publish or a
	// discard began and has not been recorded done: the same command run
	// again finishes it, and the run cannot be resumed meanwhile.
	DraftPublishing = "publishing"
	DraftDiscarding = "discarding"

	MergeAuto = "auto"
	MergeNone = "none"
)

// Worktree reports whether the run works in git worktrees.
func (w *Workspace) Worktree() bool { return w != nil && w.Mode == WorkspaceWorktree }

// WorkerBranch is the branch of the worktree of an agent with one of its
// own: the draft's name, ".", the agent's id (raymond/<run>.<agent>). Not
// raymond/<run>/<agent>: git keeps the draft raymond/<run> as a file under
// refs/heads, which cannot be a folder of branches too.
func (w *Workspace) WorkerBranch(agent string) string { return w.Branch + "." + agent }

// WorkerDir is the worktree of an agent with one of its own, beside the
// draft's: <project>/.raymond/worktrees/<run>/<agent>.
func (w *Workspace) WorkerDir(agent string) string { return path.Join(path.Dir(w.Dir), agent) }

// AgentWorkspace is the worktree an agent works in, in a run whose
// Workspace is a worktree one. Agents that share a workspace (a call or
// function in its caller's, a fork with workspace="shared") have the same
// Dir and Branch.
type AgentWorkspace struct {
	// Dir is the absolute path of the worktree's top level; the agent's Cwd
	// is inside it.
	Dir string `json:"dir"`
	// Branch is the worktree's branch: the run's draft for main,
	// raymond/<run-id>/<agent-id> for a worker with its own.
	Branch string `json:"branch"`
	// Owner is the id of the agent that made the worktree; the worktree
	// goes when the run is published or discarded, never before.
	Owner string `json:"owner"`
	// Head is the commit of the agent's latest checkpoint, or the commit
	// the worktree was made from before its first; a step starts from it.
	Head string `json:"head"`
	// PendingMerges lists, in the order they ended, the workers whose
	// branches are to be merged into this workspace at the owner's next
	// step boundary.
	PendingMerges []string `json:"pending_merges,omitempty"`
	// Conflicts lists the workers whose merge into this workspace
	// conflicted, with the paths; their branches are kept. The next step of
	// the agent is told (the {{merge_conflicts}} template variable).
	Conflicts []MergeConflict `json:"conflicts,omitempty"`
}

// MergeConflict is a worker's branch that could not be merged cleanly.
type MergeConflict struct {
	Agent  string   `json:"agent"`
	Branch string   `json:"branch"`
	Paths  []string `json:"paths"`
}

// Checkpoint is the commit raymond made after a step that changed files in
// a worktree workspace, as the step's transcript record and the run's
// events carry it.
type Checkpoint struct {
	// Commit is the full commit id; Parent the commit it follows.
	Commit string `json:"commit"`
	Parent string `json:"parent"`
	// Branch is the branch the commit is on.
	Branch string `json:"branch"`
	// Files are the files the step changed, with lines added and removed.
	Files []FileStat `json:"files"`
}

// FileStat is one file a commit changed (git diff --numstat).
type FileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	// Binary is set for a binary file, whose line counts are 0.
	Binary bool `json:"binary,omitempty"`
}

// Closed reports whether the run's draft was published or discarded, or
// is being: such a run can no longer be driven, and its worktrees are gone
// or going.
func (w *Workspace) Closed() bool {
	return w.Worktree() && w.Status != "" && w.Status != DraftOpen
}
