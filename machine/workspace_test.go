package machine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/parsing"
	"raymond/state"
	"raymond/step"
)

// worktreeRun is a run in the worktree mode whose main, in its draft at
// head "h0", has just run A.md in session s1.
func worktreeRun(merge string) *Machine {
	m := oneAgent(state.SessionResume)
	r := m.run
	r.Workspace = &state.Workspace{Mode: state.WorkspaceWorktree, Repo: "/p", Branch: "raymond/r1", Dir: "/p/.raymond/worktrees/r1/main", Merge: merge}
	a := &r.Agents[0]
	a.Cwd, a.Pending.Cwd = "/p/.raymond/worktrees/r1/main/sub", "/p/.raymond/worktrees/r1/main/sub"
	a.Workspace = &state.AgentWorkspace{Dir: r.Workspace.Dir, Branch: "raymond/r1", Owner: "main", Head: "h0"}
	return m
}

// stepOK is the StepEnded of a successful step of agent whose answer is text.
func stepOK(t *testing.T, agent, text string, cp *state.Checkpoint) StepEnded {
	t.Helper()
	tr, err := parsing.Parse(text)
	require.NoError(t, err)
	return StepEnded{Agent: agent, Seq: 1, Name: agent + "_001", Now: t0, Transition: tr, Checkpoint: cp,
		Result: step.Result{Outcome: step.Succeeded, Text: text, SessionID: "s-" + agent}}
}

// wsKinds lists the effects' kinds, and the types of the events emitted.
func wsKinds(effects []Effect) []string {
	var out []string
	for _, e := range effects {
		switch e := e.(type) {
		case Emit:
			out = append(out, e.Event.Type)
		case Prepare:
			out = append(out, "Prepare "+e.Agent)
		case Merge:
			out = append(out, "Merge "+e.Agent)
		case Save:
			out = append(out, "Save")
		case Start:
			out = append(out, "Start "+e.Request.Agent)
		case Done:
			out = append(out, "Done")
		}
	}
	return out
}

func TestWorkspaceForks(t *testing.T) {
	m := worktreeRun("")
	cp := &state.Checkpoint{Commit: "h1", Parent: "h0", Branch: "raymond/r1"}
	out := m.Apply(stepOK(t, "main", `<fork next="J.md">W.md</fork><fork next="J.md" workspace="shared">S.md</fork>`, cp))
	assert.Contains(t, wsKinds(out), "checkpoint")
	require.Len(t, m.run.Agents, 3)
	main, w, s := m.run.Agents[0], m.run.Agents[1], m.run.Agents[2]
	assert.Equal(t, "h1", main.Workspace.Head, "the checkpoint is main's head")
	assert.Equal(t, &state.AgentWorkspace{Dir: "/p/.raymond/worktrees/r1/main_w1", Branch: "raymond/r1.main_w1", Owner: "main_w1", Head: "h1"}, w.Workspace,
		"a worktree of its own, branched from the parent's latest checkpoint")
	assert.Equal(t, "/p/.raymond/worktrees/r1/main_w1/sub", w.Cwd, "the same place in its worktree")
	assert.Equal(t, w.Cwd, w.Pending.Cwd)
	assert.Equal(t, &state.AgentWorkspace{Dir: main.Workspace.Dir, Branch: "raymond/r1", Owner: "main", Head: "h1"}, s.Workspace)
	assert.Equal(t, main.Cwd, s.Cwd)
	assert.Empty(t, s.Pending.Vars, "workspace is an attribute, not a fork variable")
}

func TestWorkspaceMerges(t *testing.T) {
	tests := []struct {
		name    string
		merge   string
		results func(Merge) []MergeResult
		// wantTick are the kinds of the effects of main's next tick;
		// wantMerged those of the Merged that answers its Merge.
		wantTick, wantMerged []string
		head                 string
		conflicts            []state.MergeConflict
		vars                 string
	}{
		{name: "clean merges at the parent's next step, in the order the workers ended", merge: state.MergeAuto,
			results: func(e Merge) []MergeResult {
				return []MergeResult{{Worker: e.Items[0].Worker, Branch: e.Items[0].Branch, Head: "m1"}, {Worker: e.Items[1].Worker, Branch: e.Items[1].Branch, Head: "m2"}}
			},
			wantTick: []string{"Merge main", "Save"}, wantMerged: []string{"merged", "merged", "Prepare main"}, head: "m2"},
		{name: "a conflict is recorded and told", merge: "",
			results: func(e Merge) []MergeResult {
				return []MergeResult{{Worker: e.Items[0].Worker, Branch: e.Items[0].Branch, Head: "m1"},
					{Worker: e.Items[1].Worker, Branch: e.Items[1].Branch, Head: "m1", Conflicts: []string{"a.txt"}}}
			},
			wantTick: []string{"Merge main", "Save"}, wantMerged: []string{"merged", "merge_conflict", "Prepare main"}, head: "m1",
			conflicts: []state.MergeConflict{{Agent: "main_w2", Branch: "raymond/r1.main_w2", Paths: []string{"a.txt"}}},
			vars:      "The changes of these workers conflicted with this workspace and were not merged; their branches are kept:\n- main_w2 (branch raymond/r1.main_w2): a.txt\n"},
		{name: "merge none keeps the branches", merge: state.MergeNone,
			wantTick: []string{"Prepare main", "Save"}, head: "h0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := worktreeRun(tt.merge)
			m.Apply(stepOK(t, "main", `<fork next="J.md">W.md</fork><fork next="J.md">W.md</fork>`, nil))
			// The workers run and end, main_w2 first; main waits its turn.
			delete(m.queued, "main")
			for _, id := range []string{"main_w2", "main_w1"} {
				m.running[id] = true
				m.agent(id).Status = state.AgentRunning
				m.Apply(stepOK(t, id, "<result>ok</result>", &state.Checkpoint{Commit: "c-" + id}))
			}
			main := m.agent("main")
			if tt.merge == state.MergeNone {
				assert.Empty(t, main.Workspace.PendingMerges)
			} else {
				assert.Equal(t, []string{"main_w2", "main_w1"}, main.Workspace.PendingMerges)
			}
			m.enqueue("main")
			out := m.Apply(Tick{Now: t0})
			assert.Equal(t, tt.wantTick, wsKinds(out))
			if tt.results == nil {
				return
			}
			e := out[0].(Merge)
			assert.Equal(t, Merge{Agent: "main", Dir: main.Workspace.Dir, Head: "h0",
				Items: []MergeItem{{Worker: "main_w2", Branch: "raymond/r1.main_w2"}, {Worker: "main_w1", Branch: "raymond/r1.main_w1"}}}, e)
			// Swap the results' workers to follow the order of e.
			res := tt.results(e)
			out = m.Apply(Merged{Now: t0, Agent: "main", Results: res})
			assert.Equal(t, tt.wantMerged, wsKinds(out))
			main = m.agent("main")
			assert.Empty(t, main.Workspace.PendingMerges)
			assert.Equal(t, tt.head, main.Workspace.Head)
			// Conflicts are named by the result's worker, which follows e's order.
			if tt.conflicts != nil {
				tt.conflicts[0].Agent, tt.conflicts[0].Branch = res[1].Worker, res[1].Branch
				tt.vars = ConflictText(&state.AgentWorkspace{Conflicts: tt.conflicts})
			}
			assert.Equal(t, tt.conflicts, main.Workspace.Conflicts)
			assert.Equal(t, tt.vars, out[len(out)-1].(Prepare).Vars[MergeConflictsVar])
			assert.True(t, m.running["main"], "the merge held main's place until its step is prepared")
		})
	}
}

func TestWorkspaceOnConflict(t *testing.T) {
	m := worktreeRun("")
	main := m.agent("main")
	main.Pending = &state.Step{Ref: state.Ref{State: "J.md"}, Mode: state.SessionResume, ResumeSession: "s1", Attempt: 1, Entry: true}
	main.Status = state.AgentReady
	main.Workspace.Conflicts = []state.MergeConflict{{Agent: "main_w1", Branch: "raymond/r1.main_w1", Paths: []string{"a"}}}
	m.running["main"] = true
	out := m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main", OnConflict: "FIX.md", Prompt: "join"}}})
	assert.NotContains(t, wsKinds(out), "Start main", "the state is not run")
	assert.Equal(t, "FIX.md", main.Pending.State)
	assert.Equal(t, state.AgentReady, main.Status)
	assert.False(t, m.running["main"])

	// FIX.md itself runs, and once it succeeded the conflicts are told.
	m.running["main"] = true
	out = m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main", OnConflict: "FIX.md", Prompt: "fix"}}})
	assert.Contains(t, wsKinds(out), "Start main")
	out = m.Apply(stepOK(t, "main", "<result>fixed</result>", nil))
	assert.Empty(t, main.Workspace.Conflicts)
	assert.NotContains(t, wsKinds(out), "checkpoint", "nothing changed, no checkpoint")
}

func TestWorkspaceMergedWhenTheParentHasEnded(t *testing.T) {
	m := worktreeRun("")
	m.Apply(stepOK(t, "main", `<fork next="J.md">W.md</fork>`, nil))
	m.running["main"] = true
	m.Apply(stepOK(t, "main", "<result>done</result>", nil))
	require.Equal(t, state.AgentCompleted, m.agent("main").Status)
	m.running["main_w1"] = true
	m.Apply(stepOK(t, "main_w1", "<result>ok</result>", nil))
	out := m.Apply(Tick{Now: t0})
	assert.Equal(t, []string{"Merge main", "Save"}, wsKinds(out), "merged before the run is settled")
	assert.NotEqual(t, state.StatusCompleted, m.run.Status)
	out = m.Apply(Merged{Now: t0, Agent: "main", Results: []MergeResult{{Worker: "main_w1", Branch: "raymond/r1.main_w1", Head: "m1"}}})
	assert.Equal(t, []string{"merged", "Save"}, wsKinds(out))
	out = m.Apply(Tick{Now: t0})
	assert.Contains(t, wsKinds(out), "Done")
	assert.Equal(t, state.StatusCompleted, m.run.Status)
	assert.Equal(t, "m1", m.agent("main").Workspace.Head)
}
