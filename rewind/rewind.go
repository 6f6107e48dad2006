// Package rewind makes, from a run's transcript, a new run whose state is the
// original's just before one of its steps (raymond rewind).
//
// When a step starts, the driver writes the run as it stands into the
// step's <name>.before.json in the transcript folder, and when a step ends
// its meta.json records the session it ran in and the uuid of the session's
// last message. A rewind reads the snapshot of the step rewound to, puts
// the agents whose steps were in flight back before them, and cuts every
// session the snapshot refers to at the last message its applied steps
// recorded: the new run branches those sessions there
// (--resume-session-at, --fork-session) and never writes to them. Nothing
// of the original changes.
package rewind

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"raymond/state"
	"raymond/transcript"
)

// Options are what the rewound step changes.
type Options struct {
	// Model and Effort replace the step's own ("" keeps it).
	Model, Effort string
	// Input replaces the step's {{input}} (an ask's answer, a call's
	// argument); nil keeps it.
	Input *string
	// Only marks the run as one that runs the step alone (--only).
	Only bool
	// Costs are the original's session costs as its state file holds them
	// now: the last cumulative total Claude Code reported for each
	// session. A branch cut at an earlier message still reports the whole
	// session's total plus its own (seen with 2.1.330), so that total, not
	// the one at the step, is what the branch's cost is counted from.
	Costs map[string]float64
}

// Point is what a rewind restores: the step, its agent, and the state of
// each agent then.
type Point struct {
	// Step is the transcript name of the step rewound to; Agent its agent;
	// State its state; Seq its number.
	Step  string `json:"step"`
	Agent string `json:"agent"`
	State string `json:"state"`
	Seq   int    `json:"seq"`
	// Input is the step's {{input}} as the new run gives it.
	Input *string `json:"input,omitempty"`
	// Model and Effort are what the step runs with when the rewind changes
	// them.
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
	// PriorCostUSD is what the original had spent before the step.
	PriorCostUSD float64 `json:"prior_cost_usd"`
	// Agents are the agents of the new run as restored.
	Agents []AgentPoint `json:"agents"`
	// Sessions maps each session of the original the new run may branch to
	// the message it is cut at.
	Sessions map[string]string `json:"sessions"`
	// Unknown lists the sessions whose last message the transcript does not
	// hold (steps of an older raymond): they are branched as they stand.
	Unknown []string `json:"unknown_sessions,omitempty"`
}

// AgentPoint is one agent as the rewind restores it.
type AgentPoint struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	State  string `json:"state"`
	// Stack is the depth of its return stack.
	Stack int `json:"stack"`
	// Session is the session its next step resumes or branches from, ""
	// for a new one.
	Session string `json:"session,omitempty"`
	// Head is the commit its workspace is reset to, in the worktree mode.
	Head string `json:"head,omitempty"`
	// Ask is the id of its ask, when it has one pending or just answered.
	Ask string `json:"ask,omitempty"`
}

// ErrNoSnapshot says the step has no snapshot: the run was made by a
// raymond without rewinds, or the step's process never got to write it.
var ErrNoSnapshot = errors.New("no snapshot of the run before this step")

// Build returns the new run newID: the original's state as the step name of
// transcript folder dir found it, every session cut where it stood, and what
// it restores. The original is only read.
func Build(dir, name, newID string, o Options) (*state.Run, *Point, error) {
	r, err := transcript.ReadBefore(dir, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ErrNoSnapshot
	}
	if err != nil {
		return nil, nil, err
	}
	meta, err := readMeta(dir, name)
	if err != nil {
		return nil, nil, err
	}
	a := r.Agent(meta.Agent)
	if a == nil || a.Pending == nil {
		return nil, nil, fmt.Errorf("the snapshot of %s has no pending step for agent %s", name, meta.Agent)
	}
	orig := r.WorkflowID
	cuts, unknown, err := cutsAt(dir, r)
	if err != nil {
		return nil, nil, err
	}
	p := &Point{Step: name, Agent: a.ID, State: a.Pending.State, Seq: meta.Seq, PriorCostUSD: r.TotalCostUSD}

	// The steps in flight when the step started are put back before
	// themselves, and run again: each is at least once, as after a crash.
	for i := range r.Agents {
		ag := &r.Agents[i]
		if ag.Status == state.AgentRunning {
			ag.Status = state.AgentReady
			ag.Steps--
		}
	}
	s := a.Pending
	s.Attempt, a.Attempts, a.LastError = 1, 0, ""
	if o.Model != "" || o.Effort != "" {
		s.Override = &state.Override{Model: o.Model, Effort: o.Effort}
		p.Model, p.Effort = o.Model, o.Effort
	}
	if o.Input != nil {
		s.Input = o.Input
	}
	p.Input = s.Input

	// Only the sessions the new run can reach are cut; each of them was
	// the original's.
	used := map[string]bool{}
	for i := range r.Agents {
		ag := &r.Agents[i]
		if ag.Status.Ended() {
			continue
		}
		used[ag.SessionID] = true
		if ag.Pending != nil {
			used[ag.Pending.ResumeSession] = true
		}
		for _, f := range ag.Stack {
			used[f.Session] = true
		}
		if ag.Ask != nil {
			used[ag.Ask.Session] = true
		}
	}
	delete(used, "")
	p.Sessions = map[string]string{}
	for sid := range used {
		at, ok := cuts[sid]
		if !ok || at == "" {
			if unknown[sid] || !ok {
				p.Unknown = append(p.Unknown, sid)
			}
		}
		p.Sessions[sid] = at
	}
	slices.Sort(p.Unknown)
	for sid := range p.Sessions {
		if v, ok := o.Costs[sid]; ok {
			if r.SessionCosts == nil {
				r.SessionCosts = map[string]float64{}
			}
			r.SessionCosts[sid] = v
		}
	}

	if o.Only {
		// The step alone: the other agents that could still run are left
		// out of this run, so that none of their steps starts beside it.
		kept := r.Agents[:0]
		for _, ag := range r.Agents {
			if ag.ID == p.Agent || ag.Status.Ended() {
				kept = append(kept, ag)
			}
		}
		r.Agents = kept
	}

	r.WorkflowID = newID
	r.Gen, r.Version = 0, 0
	r.Status = state.StatusCreated
	r.CreatedAt, r.UpdatedAt = time.Time{}, time.Time{}
	r.Result, r.Error, r.Wait, r.PID = nil, "", nil, 0
	r.TotalCostUSD = 0
	r.Rewound = &state.Rewound{Run: orig, Step: name, Agent: a.ID, PriorCostUSD: p.PriorCostUSD, Cuts: p.Sessions, Only: o.Only}
	if r.Workspace != nil && r.Workspace.Worktree() {
		moveWorkspaces(r, orig, newID)
	}
	for i := range r.Agents {
		ag := &r.Agents[i]
		ap := AgentPoint{ID: ag.ID, Status: string(ag.Status), State: ag.CurrentState, Stack: len(ag.Stack)}
		if ag.Pending != nil {
			ap.State, ap.Session = ag.Pending.State, ag.Pending.ResumeSession
		}
		if ag.Workspace != nil {
			ap.Head = ag.Workspace.Head
		}
		if ag.Ask != nil {
			ap.Ask = ag.Ask.ID
		}
		p.Agents = append(p.Agents, ap)
	}
	return r, p, nil
}

// readMeta reads the meta.json of step name, or says the step has none.
func readMeta(dir, name string) (*transcript.Meta, error) {
	data, err := os.ReadFile(filepath.Join(dir, name+".meta.json"))
	if err != nil {
		return nil, err
	}
	var m transcript.Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s.meta.json: %w", name, err)
	}
	return &m, nil
}

// cutsAt returns, for every session the steps applied in snapshot r ran in,
// the last message the latest of them recorded; unknown holds the sessions
// whose latest step recorded none. A step of agent A numbered n is applied
// when A had started more steps than n, or exactly n and is not running it.
func cutsAt(dir string, r *state.Run) (cuts map[string]string, unknown map[string]bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	type done struct {
		seq  int
		meta *transcript.Meta
	}
	latest := map[string]done{} // by session
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".meta.json")
		if !ok {
			continue
		}
		m, err := readMeta(dir, name)
		if err != nil || m.SessionID == "" {
			continue
		}
		a := r.Agent(m.Agent)
		if a == nil || m.Seq > a.Steps || m.Seq == a.Steps && a.Status == state.AgentRunning {
			continue
		}
		if d, ok := latest[m.SessionID]; !ok || m.Seq > d.seq || m.Seq == d.seq && m.Attempt > d.meta.Attempt {
			latest[m.SessionID] = done{m.Seq, m}
		}
	}
	cuts, unknown = map[string]string{}, map[string]bool{}
	for sid, d := range latest {
		cuts[sid] = d.meta.LastMessage
		if d.meta.LastMessage == "" {
			unknown[sid] = true
		}
	}
	return cuts, unknown, nil
}
