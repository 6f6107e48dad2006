package machine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/parsing"
	"raymond/state"
	"raymond/step"
	"raymond/workflow"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// oneAgent is a run whose main agent has just run pending at state "A.md"
// in session "s1" (resumed) with the given stack.
func oneAgent(mode state.SessionMode, stack ...state.Frame) *Machine {
	r := &state.Run{
		WorkflowID: "r1", ScopeDir: "/wf", Status: state.StatusRunning,
		Options: state.Options{MaxParallel: 8},
		Agents: []state.Agent{{
			ID: "main", CurrentState: "A.md", SessionID: "s1", Cwd: "/work", Stack: stack,
			Status: state.AgentRunning, Steps: 1, Attempts: 1,
			Pending: &state.Step{Ref: state.Ref{State: "A.md"}, Mode: mode, ResumeSession: "s0", SessionID: "s1", Cwd: "/work", Attempt: 1},
		}},
	}
	if mode == state.SessionResume {
		r.Agents[0].Pending.ResumeSession, r.Agents[0].Pending.SessionID = "s1", ""
	}
	m := New(r)
	m.running["main"] = true
	return m
}

func success(t *testing.T, text string, cost float64) stepDone {
	t.Helper()
	tr, err := parsing.Parse(text)
	require.NoError(t, err)
	return stepDone{agent: "main", seq: 1, name: "main_A_001", tr: tr,
		res: &claude.Result{Outcome: claude.Success, HasResult: true, Text: text, SessionID: "s1", TotalCostUSD: cost, CallCostUSD: &cost}}
}

func TestApplyTags(t *testing.T) {
	in := func(s string) *string { return &s }
	caller := state.Frame{Session: "caller", Ref: state.Ref{State: "RET.md"}, Cwd: "/callerdir"}
	tests := []struct {
		name   string
		mode   state.SessionMode
		stack  []state.Frame
		output string
		want   state.Agent // ID, Status, CurrentState, SessionID, Cwd, Stack, Pending, Result compared
	}{
		{name: "goto resumes the same session", mode: state.SessionResume, output: `<goto input="x">B.md</goto>`,
			want: state.Agent{Status: state.AgentReady, CurrentState: "B.md", SessionID: "s1", Cwd: "/work", Stack: nil,
				Pending: &state.Step{Ref: state.Ref{State: "B.md"}, Mode: state.SessionResume, ResumeSession: "s1", Input: in("x"), Cwd: "/work", Attempt: 1, Entry: true}}},
		{name: "reset starts a new session", mode: state.SessionResume, output: `<reset>B.md</reset>`,
			want: state.Agent{Status: state.AgentReady, CurrentState: "B.md", SessionID: "s1", Cwd: "/work",
				Pending: &state.Step{Ref: state.Ref{State: "B.md"}, Mode: state.SessionNew, Cwd: "/work", Attempt: 1, Entry: true}}},
		{name: "call branches and pushes", mode: state.SessionResume, output: `<call return="R.md" input="q">C.md</call>`,
			want: state.Agent{Status: state.AgentReady, CurrentState: "C.md", SessionID: "s1", Cwd: "/work",
				Stack:   []state.Frame{{Session: "s1", Ref: state.Ref{State: "R.md"}, Cwd: "/work"}},
				Pending: &state.Step{Ref: state.Ref{State: "C.md"}, Mode: state.SessionBranch, ResumeSession: "s1", Input: in("q"), Cwd: "/work", Attempt: 1, Entry: true}}},
		{name: "function starts fresh and pushes", mode: state.SessionResume, output: `<function return="R.md">F.md</function>`,
			want: state.Agent{Status: state.AgentReady, CurrentState: "F.md", SessionID: "s1", Cwd: "/work",
				Stack:   []state.Frame{{Session: "s1", Ref: state.Ref{State: "R.md"}, Cwd: "/work"}},
				Pending: &state.Step{Ref: state.Ref{State: "F.md"}, Mode: state.SessionNew, Cwd: "/work", Attempt: 1, Entry: true}}},
		{name: "result pops and resumes the caller", mode: state.SessionNew, stack: []state.Frame{caller}, output: "<result>  42 \n</result>",
			want: state.Agent{Status: state.AgentReady, CurrentState: "RET.md", SessionID: "caller", Cwd: "/callerdir", Stack: []state.Frame{},
				Pending: &state.Step{Ref: state.Ref{State: "RET.md"}, Mode: state.SessionResume, ResumeSession: "caller", Input: in("42"), Returned: true, Cwd: "/callerdir", Attempt: 1, Entry: true}}},
		{name: "result on an empty stack ends the agent", mode: state.SessionResume, output: "<result>done</result>",
			want: state.Agent{Status: state.AgentCompleted, CurrentState: "A.md", SessionID: "s1", Cwd: "/work", Result: in("done")}},
		{name: "fork keeps the parent on its session", mode: state.SessionResume, output: `<fork next="J.md" item="a">W.md</fork>`,
			want: state.Agent{Status: state.AgentReady, CurrentState: "J.md", SessionID: "s1", Cwd: "/work",
				Pending: &state.Step{Ref: state.Ref{State: "J.md"}, Mode: state.SessionResume, ResumeSession: "s1", Cwd: "/work", Attempt: 1, Entry: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := oneAgent(tt.mode, tt.stack...)
			m.apply(success(t, tt.output, 0.01), t0)
			a := m.run.Agents[0]
			assert.Equal(t, tt.want.Status, a.Status)
			assert.Equal(t, tt.want.CurrentState, a.CurrentState)
			assert.Equal(t, tt.want.SessionID, a.SessionID)
			assert.Equal(t, tt.want.Cwd, a.Cwd)
			assert.Equal(t, len(tt.want.Stack), len(a.Stack))
			if len(tt.want.Stack) > 0 {
				assert.Equal(t, tt.want.Stack, a.Stack)
			}
			assert.Equal(t, tt.want.Pending, a.Pending)
			assert.Equal(t, tt.want.Result, a.Result)
			assert.InDelta(t, 0.01, m.run.TotalCostUSD, 1e-12)
			assert.False(t, m.running["main"])
			assert.True(t, m.dirty["main"])
		})
	}
}

func TestApplyForkSpawnsAgents(t *testing.T) {
	m := oneAgent(state.SessionResume)
	out := `<fork item="a" input="in-a">W.md</fork> <fork item="b" cd="sub">WORKER.md</fork> <goto>J.md</goto>`
	ev := success(t, out, 0)
	ev.cwds = []string{"", "", "/work/sub"}
	effects := m.apply(ev, t0)
	require.Len(t, m.run.Agents, 3)
	p, w1, w2 := m.run.Agents[0], m.run.Agents[1], m.run.Agents[2]
	assert.Equal(t, "J.md", p.CurrentState)
	assert.Equal(t, state.SessionResume, p.Pending.Mode)
	assert.Equal(t, "main_w1", w1.ID)
	assert.Equal(t, "main_worker2", w2.ID)
	assert.Equal(t, "main", w1.Parent)
	assert.Equal(t, state.SessionNew, w1.Pending.Mode)
	assert.Equal(t, map[string]string{"item": "a"}, w1.Pending.Vars)
	assert.Equal(t, "in-a", *w1.Pending.Input)
	assert.Equal(t, "/work", w1.Cwd)
	assert.Equal(t, "/work/sub", w2.Cwd)
	assert.Equal(t, "/work/sub", w2.Pending.Cwd)
	assert.Nil(t, w2.Pending.Input)
	assert.Equal(t, 2, m.run.NextAgentSeq)
	assert.True(t, m.dirty["main_w1"] && m.dirty["main_worker2"])
	var spawns int
	for _, e := range effects {
		if e.event.Type == "spawn" {
			spawns++
		}
	}
	assert.Equal(t, 2, spawns)
	// Ids never repeat: a later fork of the same state counts on.
	m.running["main"] = true
	m.run.Agents[0].Status = state.AgentRunning
	m.apply(success(t, `<fork next="J.md">W.md</fork>`, 0), t0)
	assert.Equal(t, "main_w3", m.run.Agents[3].ID)
}

func TestApplyResetCd(t *testing.T) {
	m := oneAgent(state.SessionResume)
	ev := success(t, `<reset cd="../other">B.md</reset>`, 0)
	ev.cwds = []string{"/other"}
	m.apply(ev, t0)
	a := m.run.Agents[0]
	assert.Equal(t, "/other", a.Cwd)
	assert.Equal(t, "/other", a.Pending.Cwd)
}

func TestApplyRunEnds(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.apply(success(t, "<result>the answer</result>", 0.5), t0)
	require.True(t, m.finished())
	assert.Equal(t, state.StatusCompleted, m.run.Status)
	assert.Equal(t, "the answer", *m.run.Result)

	m = oneAgent(state.SessionResume)
	m.run.Agents = append(m.run.Agents, state.Agent{ID: "main_w1", Status: state.AgentFailed})
	m.apply(success(t, "<result>x</result>", 0), t0)
	require.Equal(t, []Effect{Save{Agents: []string{"main"}, Sessions: []string{"s1"}}, Done{}}, m.Apply(Tick{Now: t0}))
	assert.Equal(t, state.StatusFailed, m.run.Status)
	// Issue 9 item 5: a failed worker does not hide main's result.
	assert.Equal(t, "x", *m.run.Result)
}

func TestApplyCumulativeCost(t *testing.T) {
	// A resumed step of a cumulative CLI reports the lineage's total.
	m := oneAgent(state.SessionResume)
	m.run.SessionCosts["s1"] = 0.30
	ev := success(t, "<goto>B.md</goto>", 0)
	ev.res.CallCostUSD = nil
	ev.res.TotalCostUSD = 0.42
	m.apply(ev, t0)
	assert.InDelta(t, 0.12, m.run.TotalCostUSD, 1e-12)
	assert.InDelta(t, 0.42, m.run.SessionCosts["s1"], 1e-12)

	// A branch counts from the session it branched from.
	m = oneAgent(state.SessionBranch)
	m.run.SessionCosts["s0"] = 1.00
	ev = success(t, "<goto>B.md</goto>", 0)
	ev.res.CallCostUSD = nil
	ev.res.TotalCostUSD = 1.25
	m.apply(ev, t0)
	assert.InDelta(t, 0.25, m.run.TotalCostUSD, 1e-12)
}

func TestApplyFailures(t *testing.T) {
	restricted := workflow.Policy{Rules: []workflow.Rule{{Tag: "goto", Target: "B.md"}}}
	tests := []struct {
		name       string
		ev         func(t *testing.T) stepDone
		setup      func(m *Machine)
		wantStatus state.AgentStatus
		check      func(t *testing.T, m *Machine, effects []effect)
	}{
		{name: "protocol error without policy fails the agent", wantStatus: state.AgentFailed,
			ev: func(t *testing.T) stepDone {
				ev := success(t, "<goto>B.md</goto>", 0)
				ev.decideErr = errors.New("no transition tag")
				return ev
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				assert.Contains(t, m.run.Agents[0].LastError, "no transition tag")
				assert.Contains(t, m.run.Agents[0].LastError, "has no allowed_transitions, so no reminder was sent")
				assert.NotNil(t, m.run.Agents[0].Pending, "the failed step stays for resume")
			}},
		{name: "protocol error with policy sends a reminder in the same session", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				ev := success(t, "<goto>B.md</goto>", 0)
				ev.decideErr = errors.New("no transition tag")
				ev.policy = restricted
				return ev
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				a := m.run.Agents[0]
				assert.Equal(t, state.SessionResume, a.Pending.Mode)
				assert.Equal(t, "s1", a.Pending.ResumeSession)
				assert.Contains(t, a.Pending.Reminder, "<goto>B.md</goto>")
				assert.Equal(t, 2, a.Attempts)
			}},
		{name: "third bad output fails the agent", wantStatus: state.AgentFailed,
			setup: func(m *Machine) { m.run.Agents[0].Attempts = 3 },
			ev: func(t *testing.T) stepDone {
				ev := success(t, "<goto>B.md</goto>", 0)
				ev.decideErr = errors.New("no transition tag")
				ev.policy = restricted
				return ev
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				a := m.run.Agents[0]
				assert.Contains(t, a.LastError, "after 3 attempts")
				assert.Contains(t, a.LastError, "accepts only <goto>B.md</goto>")
				// A resume sends the reminder for this last refusal, in
				// the same session, not the step that was refused.
				require.NotNil(t, a.Pending)
				assert.Equal(t, state.SessionResume, a.Pending.Mode)
				assert.Equal(t, "s1", a.Pending.ResumeSession)
				assert.Contains(t, a.Pending.Reminder, "<goto>B.md</goto>")
			}},
		{name: "crash is retried after a back-off", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.Crash, ExitCode: 1}}
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				assert.Equal(t, 2, m.run.Agents[0].Pending.Attempt)
				assert.Equal(t, t0.Add(5*time.Second), m.notBefore["main"])
			}},
		{name: "fourth transient failure fails the agent", wantStatus: state.AgentFailed,
			setup: func(m *Machine) { m.run.Agents[0].Pending.Attempt = 4 },
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.APIError, Text: "overloaded"}}
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				assert.Contains(t, m.run.Agents[0].LastError, "gave up after 3 retries")
			}},
		{name: "usage limit makes the run wait for the reset", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.UsageLimit, Text: "limit", ResetAt: t0.Add(time.Hour)}}
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				require.NotNil(t, m.run.Wait)
				assert.Equal(t, t0.Add(time.Hour+resetMargin), m.run.Wait.Until)
				assert.Equal(t, 1, m.run.Agents[0].Pending.Attempt, "a usage limit is not a failed attempt")
			}},
		{name: "usage limit without a reset backs off 5 minutes", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.UsageLimit, Text: "limit"}}
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				assert.Equal(t, t0.Add(5*time.Minute), m.run.Wait.Until)
			}},
		{name: "session not found fails the agent at once", wantStatus: state.AgentFailed,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.SessionNotFound}}
			}},
		{name: "root refusal stops the run", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.InvocationError, RootRefused: true}}
			},
			check: func(t *testing.T, m *Machine, effects []effect) {
				require.Len(t, effects, 1)
				assert.Equal(t, effectStop, effects[0].kind)
				assert.Contains(t, effects[0].line, "IS_SANDBOX")
			}},
		{name: "a missing claude stops the run", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", startErr: claude.ErrNotFound}
			},
			check: func(t *testing.T, m *Machine, effects []effect) {
				assert.Equal(t, effectStop, effects[0].kind)
			}},
		{name: "a canceled step runs again", wantStatus: state.AgentReady,
			ev: func(t *testing.T) stepDone {
				return stepDone{agent: "main", res: &claude.Result{Outcome: claude.Canceled}}
			},
			check: func(t *testing.T, m *Machine, _ []effect) {
				assert.Equal(t, 1, m.run.Agents[0].Pending.Attempt)
				assert.Empty(t, m.notBefore)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := oneAgent(state.SessionResume)
			if tt.setup != nil {
				tt.setup(m)
			}
			effects := m.apply(tt.ev(t), t0)
			assert.Equal(t, tt.wantStatus, m.run.Agents[0].Status)
			if tt.check != nil {
				tt.check(t, m, effects)
			}
		})
	}
}

func TestApplyFailedStepStillCosts(t *testing.T) {
	m := oneAgent(state.SessionResume)
	cost := 0.07
	m.apply(stepDone{agent: "main", res: &claude.Result{Outcome: claude.Exhausted, HasResult: true, SessionID: "s1", CallCostUSD: &cost}}, t0)
	assert.InDelta(t, 0.07, m.run.TotalCostUSD, 1e-12)
}

func TestAgentPrefix(t *testing.T) {
	for in, want := range map[string]string{"WORKER.md": "worker", "1_START.md": "1start", "___.md": "agent", "A-Very_Long_State_Name_Here.md": "averylongstatena"} {
		assert.Equal(t, want, agentPrefix(in), in)
	}
}

// A usage limit whose announced reset has already passed (a clock that
// drifted, a stale rate_limit_event, "resets 3pm" read a few minutes after
// 3pm) must still pause the run: re-running at once would hit the limit again
// and spin, starting claude over and over.
func TestUsageLimitResetInThePastStillWaits(t *testing.T) {
	tests := []struct {
		ago  time.Duration
		want time.Time
	}{
		// Within the margin the announced reset still counts.
		{ago: time.Second, want: t0.Add(resetMargin - time.Second)},
		// Past it, the run backs off as for a limit without a reset.
		{ago: resetMargin, want: t0.Add(limitBackoff)},
		{ago: 5 * time.Minute, want: t0.Add(limitBackoff)},
		{ago: 3 * time.Hour, want: t0.Add(limitBackoff)},
	}
	for _, tt := range tests {
		m := oneAgent(state.SessionResume)
		m.apply(stepDone{agent: "main", res: &claude.Result{Outcome: claude.UsageLimit, Text: "limit", ResetAt: t0.Add(-tt.ago)}}, t0)
		require.NotNil(t, m.run.Wait)
		assert.Equal(t, tt.want, m.run.Wait.Until, "reset %s ago", tt.ago)
	}
}

// TestCapOf: a cap is rounded down to the micro-dollar and never 0, which
// would lift the cap (issue 20: Claude Code compares it with the call's own
// spend, not the session's, so no session cost is added).
func TestCapOf(t *testing.T) {
	assert.InDelta(t, 0.6, capOf(1-0.4), 1e-9)
	assert.InDelta(t, 0.036, capOf(0.1-0.064), 1e-9)
	assert.InDelta(t, 0.033333, capOf(0.1/3), 1e-12)
	assert.InDelta(t, 1e-6, capOf(0), 1e-12, "never 0, which would lift the cap")
}

// Issue 9 item 4: steps start in the order they became ready. A parent
// that forks more workers than may run at once runs its own next step
// first, not after all of them.
func TestForkingParentIsNotStarved(t *testing.T) {
	m := oneAgent(state.SessionResume)
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "<fork next=\"J.md\" item=\"w%d\">W.md</fork>\n", i)
	}
	m.apply(success(t, b.String(), 0), t0)
	var order []string
	for _, e := range m.Apply(Tick{Now: t0}) {
		if p, ok := e.(Prepare); ok {
			order = append(order, p.Agent)
		}
	}
	require.Len(t, order, 8, "max_parallel 8")
	assert.Equal(t, []string{"main", "main_w1", "main_w2", "main_w3", "main_w4", "main_w5", "main_w6", "main_w7"}, order)

	// A retried step joins the queue when its back-off ends, behind the
	// agents already waiting.
	m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main_w1", SessionID: "w1"}}})
	m.apply(stepDone{agent: "main_w1", res: &claude.Result{Outcome: claude.Crash, ExitCode: 1}}, t0)
	var next []string
	for _, e := range m.Apply(Tick{Now: t0.Add(time.Minute)}) {
		if p, ok := e.(Prepare); ok {
			next = append(next, p.Agent)
		}
	}
	assert.Equal(t, []string{"main_w8"}, next)
}

// Issue 9 item 6: a fork that would make more agents alive than the run's
// limit fails the forking agent and forks nothing; agents that have ended
// do not count. A call past the depth limit fails its agent.
func TestLimits(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.Options.MaxAgents = 4
	m.apply(success(t, `<fork item="a">W.md</fork><fork item="b">W.md</fork><fork item="c">W.md</fork><goto>J.md</goto>`, 0), t0)
	require.Len(t, m.run.Agents, 4, "main and three workers: at the limit, not past it")
	m.running["main"] = true
	m.run.Agents[0].Status = state.AgentRunning
	effects := m.apply(success(t, `<fork item="d">W.md</fork><goto>J.md</goto>`, 0), t0)
	assert.Len(t, m.run.Agents, 4, "nothing forked")
	assert.Equal(t, state.AgentFailed, m.run.Agents[0].Status)
	assert.Contains(t, m.run.Agents[0].LastError, "forking 1 agents would make 5 alive at once, over the run's limit of 4")
	require.NotEmpty(t, effects)
	assert.Equal(t, "agent_failed", effects[0].event.Type)

	// Once a worker has ended, there is room for one more.
	m = oneAgent(state.SessionResume)
	m.run.Options.MaxAgents = 2
	m.apply(success(t, `<fork item="a">W.md</fork><goto>J.md</goto>`, 0), t0)
	m.running["main_w1"] = true
	m.run.Agents[1].Status = state.AgentRunning
	m.apply(stepDone{agent: "main_w1", res: &claude.Result{Outcome: claude.Success, HasResult: true, Text: "<result>a</result>"},
		tr: mustParse(t, "<result>a</result>")}, t0)
	m.running["main"] = true
	m.run.Agents[0].Status = state.AgentRunning
	m.apply(success(t, `<fork item="b">W.md</fork><goto>J.md</goto>`, 0), t0)
	assert.Len(t, m.run.Agents, 3)
	assert.Equal(t, state.AgentReady, m.run.Agents[0].Status)

	// A call that would stack a frame past the depth limit.
	m = oneAgent(state.SessionResume, state.Frame{Session: "c1", Ref: state.Ref{State: "R.md"}}, state.Frame{Session: "c2", Ref: state.Ref{State: "R.md"}})
	m.run.Options.MaxDepth = 2
	m.apply(success(t, `<call return="R.md">C.md</call>`, 0), t0)
	a := m.run.Agents[0]
	assert.Equal(t, state.AgentFailed, a.Status)
	assert.Len(t, a.Stack, 2, "no frame pushed")
	assert.Contains(t, a.LastError, "<call> would stack 3 frames, over the run's limit of 2")
}

func mustParse(t *testing.T, text string) parsing.Transition {
	t.Helper()
	tr, err := parsing.Parse(text)
	require.NoError(t, err)
	return tr
}

// A chain of forks many generations deep keeps its ids bounded: an id that
// would pass 64 bytes starts again from the root, and stays unique.
func TestAgentIDsStayBounded(t *testing.T) {
	parent := "main"
	seen := map[string]bool{}
	for seq := 1; seq <= 400; seq++ {
		id := agentID(parent, "WORKER.md", seq)
		assert.LessOrEqual(t, len(id), maxAgentID, id)
		assert.False(t, seen[id], id)
		assert.True(t, strings.HasPrefix(id, "main_"), id)
		seen[id] = true
		parent = id
	}
	assert.Equal(t, "main_worker3", agentID("main", "WORKER.md", 3), "short ids are as the protocol says")
	assert.Equal(t, "main_w1_review2", agentID("main_w1", "REVIEW.md", 2))
}

// A run stops forking at its lifetime limit even when its agents end as
// fast as they fork, so few are alive at once.
func TestForkLimitOverARunsLife(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.Options.MaxForks = 3
	for i := range 3 {
		m.running["main"] = true
		m.run.Agents[0].Status = state.AgentRunning
		m.apply(success(t, `<fork item="x">W.md</fork><goto>J.md</goto>`, 0), t0)
		require.Equal(t, state.AgentReady, m.run.Agents[0].Status, "fork %d", i+1)
		m.end(&m.run.Agents[len(m.run.Agents)-1], state.AgentCompleted) // the worker ends at once
	}
	m.running["main"] = true
	m.run.Agents[0].Status = state.AgentRunning
	m.apply(success(t, `<fork item="x">W.md</fork><goto>J.md</goto>`, 0), t0)
	assert.Len(t, m.run.Agents, 4, "nothing forked")
	assert.Equal(t, state.AgentFailed, m.run.Agents[0].Status)
	assert.Contains(t, m.run.Agents[0].LastError, "forking 1 agents would make 4 forked in this run, over its limit of 3 (--max-forks, config max_forks)")
}

func TestStateReason(t *testing.T) {
	for _, tt := range []struct{ state, reason, want string }{
		{"POLL.sh", "POLL.sh exited with status 3", "POLL.sh exited with status 3"},
		{"POLL.sh", "no output for 10m (from --timeout)", "POLL.sh: no output for 10m (from --timeout)"},
		{"START.md", "claude exited with status 1", "START.md: claude exited with status 1"},
		{"POLL.sh", "POLL.shell broke", "POLL.sh: POLL.shell broke"},
	} {
		if got := stateReason(tt.state, tt.reason); got != tt.want {
			t.Errorf("stateReason(%q, %q) = %q, want %q", tt.state, tt.reason, got, tt.want)
		}
	}
}

// Issue 20 item 2: without --model, Claude Code's --resume and
// --fork-session stay on the session's last model, so a state that names
// none passes the run's model, else the one the run's first such step ran
// on, else, in a session an earlier step may have run on a state's model,
// Claude Code's own default ("default"); a new session before the run has
// learnt it passes none.
func TestStepModel(t *testing.T) {
	tests := []struct {
		name                  string
		mode                  state.SessionMode
		state, run, learnt    string
		continueSession, want string
		script                bool
	}{
		{name: "the state's", mode: state.SessionResume, state: "haiku", run: "sonnet", learnt: "m1", want: "haiku"},
		{name: "the run's", mode: state.SessionResume, run: "sonnet", learnt: "m1", want: "sonnet"},
		{name: "learnt", mode: state.SessionResume, learnt: "m1", want: "m1"},
		{name: "learnt, new session", mode: state.SessionNew, learnt: "m1", want: "m1"},
		{name: "nothing known, resumed", mode: state.SessionResume, want: ClaudeDefaultModel},
		{name: "nothing known, branch", mode: state.SessionBranch, want: ClaudeDefaultModel},
		{name: "nothing known, new session", mode: state.SessionNew, want: ""},
		{name: "nothing known, the user's session", mode: state.SessionBranch, continueSession: "s0", want: ""},
		{name: "a script", mode: state.SessionResume, run: "sonnet", learnt: "m1", script: true, want: ""},
	}
	for _, tt := range tests {
		m := oneAgent(tt.mode)
		m.run.Options.Model, m.run.DefaultModel, m.run.ContinueSession = tt.run, tt.learnt, tt.continueSession
		m.running["main"] = true
		starts := effectsOf[Start](m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main", SessionID: "n1", Model: tt.state, Script: tt.script}}}))
		require.Len(t, starts, 1, tt.name)
		assert.Equal(t, tt.want, starts[0].Request.Step.Model, tt.name)
	}
}

// TestLearnModel: the model the first step that named none (or named
// "default") ran on is kept in the run; a state's own model, a synthetic
// one and a later step do not replace it.
func TestLearnModel(t *testing.T) {
	ran := func(asked, got, learnt string) string {
		m := oneAgent(state.SessionResume)
		m.run.DefaultModel = learnt
		m.agent("main").Pending.Model = asked
		m.apply(stepDone{agent: "main", res: &claude.Result{Outcome: claude.Crash, Model: got}}, t0)
		return m.run.DefaultModel
	}
	assert.Equal(t, "claude-x", ran("", "claude-x", ""))
	assert.Equal(t, "claude-x", ran(ClaudeDefaultModel, "claude-x", ""))
	assert.Empty(t, ran("haiku", "claude-haiku", ""))
	assert.Empty(t, ran("", "<synthetic>", ""))
	assert.Empty(t, ran("", "", ""))
	assert.Equal(t, "claude-y", ran("", "claude-x", "claude-y"))
}

// TestStartShortOfDescriptorsNeverFails: a step that cannot start because
// the machine is out of descriptors (pipe2: too many open files) waits and
// tries again, backing off up to a minute, however long it lasts: nothing
// ran, so no attempt is spent and the agent never fails of it.
func TestStartShortOfDescriptorsNeverFails(t *testing.T) {
	m := oneAgent(state.SessionResume)
	emfile := fmt.Errorf("start claude: %w", os.NewSyscallError("pipe2", syscall.EMFILE))
	now := t0
	var waits []time.Duration
	for range 2*maxRetries + 4 {
		effects := m.apply(stepDone{agent: "main", startErr: emfile}, now)
		a := m.run.Agents[0]
		require.Equal(t, state.AgentReady, a.Status, "after %d starts short of descriptors", len(waits)+1)
		assert.Equal(t, 1, a.Pending.Attempt, "no attempt is spent")
		require.Len(t, effects, 1)
		assert.Contains(t, effects[0].line, "could not start (start claude: pipe2: too many open files); trying again in")
		waits = append(waits, m.notBefore["main"].Sub(now))
		now = m.notBefore["main"]
	}
	assert.Equal(t, []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second,
		time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute}, waits)

	// A step that then runs and fails transiently has its full retries.
	m.apply(stepDone{agent: "main", res: &claude.Result{Outcome: claude.APIError, Text: "overloaded"}}, now)
	assert.Equal(t, 5*time.Second, m.notBefore["main"].Sub(now))
	assert.Equal(t, 2, m.run.Agents[0].Pending.Attempt)
}

// TestSalvagedOnce: the salvage of a step cut short is saved with the agent
// no longer running, so that a driver killed before the step runs again does
// not leave it to be salvaged, and its spend booked, a second time.
func TestSalvagedOnce(t *testing.T) {
	m := oneAgent(state.SessionNew)
	m.running = map[string]bool{}
	m.Apply(Begin{Now: t0})
	effects := m.Apply(Salvaged{Agent: "main", Now: t0,
		Result: step.Result{Billed: true, Unreported: true, CostUSD: 0.2, SessionCostUSD: 0.2, SessionID: "s1"}})
	var save *Save
	for _, e := range effects {
		if s, ok := e.(Save); ok {
			save = &s
		}
	}
	require.NotNil(t, save, "the salvage is saved")
	assert.Contains(t, save.Agents, "main", "with the agent, now ready")
	assert.Equal(t, state.AgentReady, m.Run().Agents[0].Status)
	assert.InDelta(t, 0.2, m.Run().TotalCostUSD, 1e-9)
}
