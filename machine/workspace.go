package machine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// Workspaces (issue 22): in a run whose Workspace is a worktree one, every
// agent has an AgentWorkspace. The machine decides who works where and
// when a worker's branch comes back; the driver does the git work (a
// checkpoint after each step, reported in StepEnded.Checkpoint; the
// merges a Merge effect asks for, reported by a Merged event).

// Merge asks for the branches of workers that ended to be merged, in
// order, into the worktree Dir of Agent, whose recorded head is Head. It
// comes at Agent's step boundary, instead of its Prepare (which follows
// the Merged answer), or once Agent has ended; never while a step runs in
// Dir. The driver answers at once with [Merged].
type Merge struct {
	Agent string
	Dir   string
	Head  string
	Items []MergeItem
}

// MergeItem is one worker's branch to merge.
type MergeItem struct {
	Worker, Branch string
}

// Merged answers a [Merge]: how each branch came back, in order.
type Merged struct {
	Now     time.Time
	Agent   string
	Results []MergeResult
}

// MergeResult is how one worker's branch came back.
type MergeResult struct {
	Worker, Branch string
	// Head is the workspace's commit after this merge.
	Head string
	// Conflicts are the paths that conflicted: the merge was left out.
	Conflicts []string
	// Err is why the merge could not be tried at all; the branch is kept.
	Err string
}

func (Merge) effect() {}
func (Merged) event() {}

// MergeConflictsVar is the template variable that tells an agent's next
// step which workers' changes conflicted with its workspace.
const MergeConflictsVar = "merge_conflicts"

// worktree reports whether the run works in git worktrees.
func (m *Machine) worktree() bool { return m.run.Workspace.Worktree() }

// ConflictText is the value of {{merge_conflicts}} for a workspace: the
// workers whose merges conflicted, their branches and the paths; "" when
// none did.
func ConflictText(w *state.AgentWorkspace) string {
	if w == nil || len(w.Conflicts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The changes of these workers conflicted with this workspace and were not merged; their branches are kept:\n")
	for _, c := range w.Conflicts {
		fmt.Fprintf(&b, "- %s (branch %s): %s\n", c.Agent, c.Branch, strings.Join(c.Paths, ", "))
	}
	return b.String()
}

// forkWorkspace is the workspace and working directory of the agent id
// that parent p forks with tag f, starting in cwd (in p's worktree): a
// worktree of its own, branched from p's head, with cwd at the same place
// in it; or, with workspace="shared", p's own.
func (m *Machine) forkWorkspace(p *state.Agent, id string, f parsing.Tag, cwd string) (*state.AgentWorkspace, string) {
	pw := p.Workspace
	if pw == nil {
		return nil, cwd
	}
	if v, _ := f.Attr("workspace"); v == "shared" {
		return &state.AgentWorkspace{Dir: pw.Dir, Branch: pw.Branch, Owner: pw.Owner, Head: pw.Head}, cwd
	}
	w := &state.AgentWorkspace{Dir: m.run.Workspace.WorkerDir(id), Branch: m.run.Workspace.WorkerBranch(id), Owner: id, Head: pw.Head}
	return w, within(cwd, pw.Dir, w.Dir)
}

// within maps path, inside the folder from, to the same place inside to;
// a path outside from is kept.
func within(path, from, to string) string {
	if path == from {
		return to
	}
	if rest, ok := strings.CutPrefix(path, from+"/"); ok {
		return to + "/" + rest
	}
	return path
}

// handOver puts a worker that ended with a worktree of its own, and with
// nothing left to merge into it, on its parent's list of branches to merge
// (unless the run keeps them: merge none).
func (m *Machine) handOver(a *state.Agent) {
	w := a.Workspace
	if !m.worktree() || w == nil || w.Owner != a.ID || a.ID == MainAgent || m.run.Workspace.Merge == state.MergeNone ||
		len(w.PendingMerges) > 0 {
		return
	}
	p := m.agent(a.Parent)
	if p == nil || p.Workspace == nil || p.Workspace.Dir == w.Dir || slices.Contains(p.Workspace.PendingMerges, a.ID) {
		return
	}
	p.Workspace.PendingMerges = append(p.Workspace.PendingMerges, a.ID)
	m.touch(p.ID)
}

// busy reports whether a step of another agent than except is being
// prepared or runs in the worktree dir.
func (m *Machine) busy(dir, except string) bool {
	for id := range m.running {
		if id == except {
			continue
		}
		if a := m.agent(id); a != nil && a.Workspace != nil && a.Workspace.Dir == dir {
			return true
		}
	}
	return false
}

// mergeOf is the Merge of a's pending merges; the agent counts as running
// until it is answered.
func (m *Machine) mergeOf(a *state.Agent) Merge {
	w := a.Workspace
	e := Merge{Agent: a.ID, Dir: w.Dir, Head: w.Head}
	for _, id := range w.PendingMerges {
		branch := m.run.Workspace.WorkerBranch(id)
		if c := m.agent(id); c != nil && c.Workspace != nil {
			branch = c.Workspace.Branch
		}
		e.Items = append(e.Items, MergeItem{Worker: id, Branch: branch})
	}
	m.running[a.ID] = true
	return e
}

// mergesDue are the Merges of agents that ended with workers' branches
// still to merge into their worktrees: they have no step boundary left.
// They wait until no step runs, so that a fan-out's merges, done on the
// driver's loop, neither hold up its steps nor come one a worker: they
// come together, when the run would settle. Once every agent has ended
// they are done even when the run stops, so a finished run holds all its
// workers' work.
func (m *Machine) mergesDue() []Effect {
	if !m.worktree() || len(m.running) > 0 || m.stopping && m.active() {
		return nil
	}
	var out []Effect
	for i := range m.run.Agents {
		a := &m.run.Agents[i]
		if !a.Status.Ended() || a.Workspace == nil || len(a.Workspace.PendingMerges) == 0 || m.running[a.ID] || m.busy(a.Workspace.Dir, a.ID) {
			continue
		}
		out = append(out, m.mergeOf(a))
	}
	return out
}

// wantsMerge reports whether a's step must wait for a Merge first.
func (m *Machine) wantsMerge(a *state.Agent) bool {
	return m.worktree() && a.Workspace != nil && len(a.Workspace.PendingMerges) > 0 && !m.busy(a.Workspace.Dir, a.ID)
}

// setHead records head as the commit of the worktree dir, for every agent
// that works there.
func (m *Machine) setHead(dir, head string) {
	for i := range m.run.Agents {
		a := &m.run.Agents[i]
		if a.Workspace != nil && a.Workspace.Dir == dir && a.Workspace.Head != head {
			a.Workspace.Head = head
			m.touch(a.ID)
		}
	}
}

// merged applies how workers' branches came back into an agent's
// workspace, then prepares the agent's step, unless it has ended.
func (m *Machine) merged(ev Merged) []Effect {
	a := m.agent(ev.Agent)
	if a == nil || a.Workspace == nil {
		return nil
	}
	w := a.Workspace
	var out []Effect
	for _, r := range ev.Results {
		w.PendingMerges = slices.DeleteFunc(w.PendingMerges, func(id string) bool { return id == r.Worker })
		switch {
		case r.Err != "":
			out = append(out, note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventWarning,
				Message: fmt.Sprintf("cannot merge %s (%s), which is kept: %s", r.Worker, r.Branch, r.Err)}))
		case len(r.Conflicts) > 0:
			w.Conflicts = append(w.Conflicts, state.MergeConflict{Agent: r.Worker, Branch: r.Branch, Paths: r.Conflicts})
			out = append(out, note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventMergeConflict, Child: r.Worker, Branch: r.Branch, Paths: r.Conflicts}))
		default:
			m.setHead(w.Dir, r.Head)
			out = append(out, note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventMerged, Child: r.Worker, Branch: r.Branch, Commit: r.Head}))
		}
	}
	m.touch(a.ID)
	if a.Status.Ended() || a.Status != state.AgentReady || a.Pending == nil || m.stopping {
		delete(m.running, a.ID)
		if a.Status.Ended() {
			m.handOver(a)
		} else if a.Status == state.AgentReady {
			m.enqueue(a.ID)
		}
		return append(out, m.save())
	}
	return append(out, Prepare{Agent: a.ID, Step: *a.Pending, Vars: Vars(m.run, a)})
}

// onConflict sends an agent whose workspace has conflicts to the state its
// pending state names for them (on_conflict), instead of that state.
func (m *Machine) onConflict(a *state.Agent, now time.Time, target string) []Effect {
	s := a.Pending
	from := s.State
	next := *s
	next.State = target
	next.Reminder = ""
	next.Attempt = 1
	next.Entry = true
	a.Pending = &next
	a.CurrentState = target
	m.release(a.ID)
	m.ready(a)
	m.touch(a.ID)
	return []Effect{note(a.ID, transcript.Event{Time: now, Type: transcript.EventWarning, State: from,
		Message: fmt.Sprintf("merges into %s's workspace conflicted: on_conflict sends it to %s instead of %s", a.ID, target, from)})}
}

// checkpointed records the commit a step's changes became.
func (m *Machine) checkpointed(a *state.Agent, ev StepEnded) []Effect {
	if a.Workspace == nil || ev.Checkpoint == nil {
		return nil
	}
	m.setHead(a.Workspace.Dir, ev.Checkpoint.Commit)
	return []Effect{note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventCheckpoint, Step: ev.Name, State: a.Pending.State, Checkpoint: ev.Checkpoint})}
}

// callWorkspace gives an agent that calls with workspace="new" (call,
// function and their -workflow forms) a worktree of its own for the callee,
// branched from its latest checkpoint, and keeps the caller's in the frame
// just pushed; the agent's folder moves to the same place in it. The
// worktree is named for the agent and its step: <agent>.call<step>.
func (m *Machine) callWorkspace(a *state.Agent, tag parsing.Tag) {
	if v, _ := tag.Attr("workspace"); v != "new" || !m.worktree() || a.Workspace == nil || len(a.Stack) == 0 {
		return
	}
	id := fmt.Sprintf("%s.call%d", a.ID, a.Steps)
	caller := a.Workspace
	a.Stack[len(a.Stack)-1].Workspace = caller
	a.Workspace = &state.AgentWorkspace{Dir: m.run.Workspace.WorkerDir(id), Branch: m.run.Workspace.WorkerBranch(id), Owner: id, Head: caller.Head}
	a.Cwd = within(a.Cwd, caller.Dir, a.Workspace.Dir)
}

// returnWorkspace gives a returning agent its caller's workspace back (the
// frame's, when the callee had one of its own), with the callee's branch
// to merge into it at the return's step boundary (unless merge none).
func (m *Machine) returnWorkspace(a *state.Agent, f state.Frame) {
	if f.Workspace == nil {
		return
	}
	callee := a.Workspace
	a.Workspace = f.Workspace
	if callee == nil || callee.Dir == f.Workspace.Dir || m.run.Workspace.Merge == state.MergeNone {
		return
	}
	// Whatever the callee's own workers left to merge goes with it.
	a.Workspace.PendingMerges = append(a.Workspace.PendingMerges, callee.PendingMerges...)
	a.Workspace.PendingMerges = append(a.Workspace.PendingMerges, callee.Owner)
	m.touch(a.ID)
}
