package machine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// capSpec is the visit cap of one state, as its frontmatter would give it.
type capSpec struct {
	max      int
	fallback *parsing.Tag
}

// capRun drives a machine whose states have the caps given, answering
// Prepare effects as the orchestrator would.
type capRun struct {
	t      *testing.T
	m      *Machine
	caps   map[string]capSpec
	events []transcript.Event
}

// newCapRun is a new run whose main agent starts at START.md.
func newCapRun(t *testing.T, caps map[string]capSpec) *capRun {
	r := &state.Run{
		WorkflowID: "r1", ScopeDir: "/wf", Status: state.StatusCreated,
		Options: state.Options{MaxParallel: 8},
		Agents: []state.Agent{{ID: "main", CurrentState: "START.md", Cwd: "/work", Stack: []state.Frame{}, Status: state.AgentReady,
			Pending: &state.Step{Ref: state.Ref{State: "START.md"}, Mode: state.SessionNew, Cwd: "/work", Entry: true}}},
	}
	c := &capRun{t: t, m: New(r), caps: caps}
	c.apply(Begin{Now: t0})
	return c
}

// apply applies ev and keeps the events it emits.
func (c *capRun) apply(ev Event) []Effect {
	out := c.m.Apply(ev)
	for _, e := range out {
		if e, ok := e.(Emit); ok {
			c.events = append(c.events, e.Event)
		}
	}
	return out
}

// tick prepares what may start, until steps start or nothing is left to
// prepare (a fallback makes its agent ready again at once), and returns
// the states that started, by agent.
func (c *capRun) tick() map[string]string {
	started := map[string]string{}
	for range 20 {
		prepares := effectsOf[Prepare](c.apply(Tick{Now: t0}))
		if len(prepares) == 0 {
			return started
		}
		var ps []PreparedStep
		for _, p := range prepares {
			cs := c.caps[p.Step.State]
			ps = append(ps, PreparedStep{Agent: p.Agent, SessionID: "new-" + p.Agent, MaxVisits: cs.max, OnMaxVisits: cs.fallback})
		}
		for _, s := range effectsOf[Start](c.apply(Prepared{Now: t0, Steps: ps})) {
			started[s.Request.Agent] = s.Request.Step.State
		}
		if len(started) > 0 {
			return started
		}
	}
	c.t.Fatal("fallbacks never settled")
	return nil
}

// emit ends agent's running step with the tag t.
func (c *capRun) emit(agent string, t parsing.Tag, forks ...parsing.Tag) {
	ev := ended(t, t0, forks...)
	ev.Agent = agent
	c.apply(ev)
}

func (c *capRun) agent(id string) *state.Agent { return c.m.agent(id) }

// capEvents returns the visit_cap events emitted so far.
func (c *capRun) capEvents() []transcript.Event {
	var out []transcript.Event
	for _, e := range c.events {
		if e.Type == transcript.EventVisitCap {
			out = append(out, e)
		}
	}
	return out
}

func gotoTag(target string) *parsing.Tag { return &parsing.Tag{Name: parsing.Goto, Target: target} }

func TestVisitCapStopsAGotoLoop(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"REVISE.md": {max: 2, fallback: gotoTag("ASK.md")}})
	require.Equal(t, "START.md", c.tick()["main"])
	c.emit("main", tag(parsing.Goto, "REVISE.md", "input", "fix it"))
	for i := range 2 {
		require.Equal(t, "REVISE.md", c.tick()["main"], "entry %d runs the state", i+1)
		assert.Equal(t, i+1, c.agent("main").Visits["REVISE.md"])
		c.emit("main", tag(parsing.Goto, "REVISE.md", "input", "fix it"))
	}
	// The third entry takes the fallback, keeping the session and input.
	require.Equal(t, "ASK.md", c.tick()["main"])
	a := c.agent("main")
	assert.Equal(t, 2, a.Visits["REVISE.md"], "the entry past the cap is not counted")
	assert.Equal(t, state.SessionResume, a.Pending.Mode)
	assert.Equal(t, "s1", a.Pending.ResumeSession)
	assert.Equal(t, ptr("fix it"), a.Pending.Input)
	assert.False(t, a.Pending.Entry, "counted once started")
	assert.Empty(t, a.Pending.Capped, "the chain ends with a step that runs")
	evs := c.capEvents()
	require.Len(t, evs, 1)
	assert.Equal(t, transcript.Event{Time: t0, Type: transcript.EventVisitCap, Agent: "main", State: "REVISE.md", Visits: 2, Max: 2,
		Tag: parsing.Goto, Target: "ASK.md"}, evs[0])
}

func TestVisitCapWithoutFallbackFailsTheAgent(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"START.md": {max: 1}})
	c.tick()
	c.emit("main", tag(parsing.Goto, "START.md"))
	assert.Empty(t, c.tick())
	a := c.agent("main")
	assert.Equal(t, state.AgentFailed, a.Status)
	assert.Contains(t, a.LastError, "START.md: visit cap reached (max_visits: 1, from frontmatter); add on_max_visits to go elsewhere")
	assert.Equal(t, state.StatusFailed, c.m.Run().Status)
	require.Len(t, c.capEvents(), 1)
	assert.Empty(t, c.capEvents()[0].Tag)

	// A resume fails the same way: the cap still holds.
	c.m = New(c.m.Run())
	c.apply(Begin{Now: t0})
	assert.Empty(t, c.tick())
	assert.Equal(t, state.AgentFailed, c.agent("main").Status)
	assert.Equal(t, 1, c.agent("main").Visits["START.md"])
}

func TestVisitCountsSurviveResetsAndCalls(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"WORK.md": {max: 3, fallback: &parsing.Tag{Name: parsing.Result, Payload: "gave up"}},
		"BACK.md": {max: 5}})
	c.tick()
	c.emit("main", tag(parsing.Reset, "WORK.md"))
	require.Equal(t, "WORK.md", c.tick()["main"])
	c.emit("main", tag(parsing.Call, "WORK.md", "return", "BACK.md"))
	require.Equal(t, "WORK.md", c.tick()["main"])
	c.emit("main", tag(parsing.Function, "WORK.md", "return", "BACK.md"))
	require.Equal(t, "WORK.md", c.tick()["main"])
	assert.Equal(t, 3, c.agent("main").Visits["WORK.md"])
	// The fourth entry, by a reset, takes the result fallback: it returns
	// to the innermost caller with the payload.
	c.emit("main", tag(parsing.Reset, "WORK.md"))
	require.Equal(t, "BACK.md", c.tick()["main"])
	a := c.agent("main")
	assert.Len(t, a.Stack, 1)
	assert.Equal(t, ptr("gave up"), a.Pending.Input)
	assert.True(t, a.Pending.Returned)
	assert.Equal(t, 1, a.Visits["BACK.md"], "a return state reached by a result is an entry")
	// A result fallback on an empty stack completes the agent.
	c.emit("main", tag(parsing.Result, "x"))
	require.Equal(t, "BACK.md", c.tick()["main"])
	assert.Equal(t, 2, a.Visits["BACK.md"])
	c.emit("main", tag(parsing.Goto, "WORK.md"))
	assert.Empty(t, c.tick())
	assert.Equal(t, state.AgentCompleted, a.Status)
	assert.Equal(t, ptr("gave up"), a.Result)
}

func TestVisitCountsOfAForkStartAtZero(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"W.md": {max: 1}})
	c.tick()
	c.emit("main", tag(parsing.Goto, "W.md"))
	c.tick()
	assert.Equal(t, 1, c.agent("main").Visits["W.md"])
	c.emit("main", tag(parsing.Fork, "W.md", "next", "J.md"))
	started := c.tick()
	assert.Equal(t, "J.md", started["main"])
	child := c.m.Run().Agents[1].ID
	assert.Equal(t, "W.md", started[child], "the forked agent has its own counts")
	assert.Equal(t, 1, c.agent(child).Visits["W.md"])
	// main entering W.md again is over its own cap.
	c.emit("main", tag(parsing.Goto, "W.md"))
	c.tick()
	assert.Equal(t, state.AgentFailed, c.agent("main").Status)
	assert.NotEqual(t, state.AgentFailed, c.agent(child).Status, "other agents go on")
}

func TestVisitCountsSurviveAResume(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"LOOP.md": {max: 2, fallback: gotoTag("DONE.md")}})
	c.tick()
	c.emit("main", tag(parsing.Goto, "LOOP.md"))
	c.tick()
	// The driver dies with LOOP.md in flight: the state file as saved is
	// all a resume has.
	data, err := json.Marshal(c.m.Run())
	require.NoError(t, err)
	var saved state.Run
	require.NoError(t, json.Unmarshal(data, &saved))
	assert.Equal(t, map[string]int{"LOOP.md": 1}, saved.Agents[0].Visits)

	c.m = New(&saved)
	c.apply(Begin{Now: t0})
	require.Equal(t, "LOOP.md", c.tick()["main"], "the step in flight runs again")
	assert.Equal(t, 1, c.agent("main").Visits["LOOP.md"], "running it again is no new entry")
	c.emit("main", tag(parsing.Goto, "LOOP.md"))
	require.Equal(t, "LOOP.md", c.tick()["main"])
	c.emit("main", tag(parsing.Goto, "LOOP.md"))
	require.Equal(t, "DONE.md", c.tick()["main"])
	assert.Equal(t, 2, c.agent("main").Visits["LOOP.md"])
}

func TestRetriesAndRemindersAreNoEntries(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"A.md": {max: 1}})
	c.tick()
	c.emit("main", tag(parsing.Goto, "A.md"))
	c.tick()
	// A refused answer gets a reminder: the same state, asked again.
	ev := ended(tag(parsing.Goto, "X.md"), t0)
	ev.DecideErr, ev.Restricted, ev.Reminder = assert.AnError, true, "one tag, please"
	c.apply(ev)
	require.Equal(t, "A.md", c.tick()["main"])
	assert.Equal(t, state.AgentRunning, c.agent("main").Status)
	assert.Equal(t, 1, c.agent("main").Visits["A.md"])
}

func TestFallbackChains(t *testing.T) {
	t.Run("a fallback into a capped state takes its fallback", func(t *testing.T) {
		c := newCapRun(t, map[string]capSpec{
			"A.md": {max: 1, fallback: gotoTag("B.md")},
			"B.md": {max: 1, fallback: gotoTag("C.md")},
		})
		c.tick()
		c.emit("main", tag(parsing.Goto, "A.md"))
		c.tick()
		c.emit("main", tag(parsing.Goto, "B.md"))
		c.tick()
		c.emit("main", tag(parsing.Goto, "A.md"))
		assert.Equal(t, "C.md", c.tick()["main"])
		assert.Len(t, c.capEvents(), 2)
	})
	t.Run("fallbacks looping between capped states fail the agent", func(t *testing.T) {
		c := newCapRun(t, map[string]capSpec{
			"A.md": {max: 1, fallback: gotoTag("B.md")},
			"B.md": {max: 1, fallback: &parsing.Tag{Name: parsing.Reset, Target: "A.md"}},
		})
		c.tick()
		c.emit("main", tag(parsing.Goto, "A.md"))
		c.tick()
		c.emit("main", tag(parsing.Goto, "B.md"))
		c.tick()
		c.emit("main", tag(parsing.Goto, "A.md"))
		assert.Empty(t, c.tick())
		a := c.agent("main")
		assert.Equal(t, state.AgentFailed, a.Status)
		assert.Contains(t, a.LastError, "A.md → B.md → A.md")
		assert.Len(t, c.capEvents(), 3)
	})
}

func TestVisitKeysTellWorkflowsApart(t *testing.T) {
	m := New(&state.Run{ScopeDir: "/wf"})
	assert.Equal(t, "REVIEW.md", m.visitKey(state.Ref{State: "REVIEW.md"}))
	assert.Equal(t, "REVIEW.md", m.visitKey(state.Ref{Scope: "/wf", State: "REVIEW.md"}))
	assert.Equal(t, "/lib/review/REVIEW.md", m.visitKey(state.Ref{Scope: "/lib/review", State: "REVIEW.md"}))
}

func TestAnAnswerEntersTheAsksNext(t *testing.T) {
	c := newCapRun(t, map[string]capSpec{"ANS.md": {max: 1, fallback: gotoTag("DONE.md")}})
	c.tick()
	c.emit("main", tag(parsing.Goto, "ANS.md"))
	require.Equal(t, "ANS.md", c.tick()["main"])
	c.emit("main", tag(parsing.Ask, "Again?", "next", "ANS.md"))
	require.Equal(t, state.AgentAsking, c.agent("main").Status)
	c.apply(Answered{Now: t0, AskID: c.agent("main").Ask.ID, Answer: "yes"})
	assert.Equal(t, "DONE.md", c.tick()["main"], "the answer's entry into ANS.md is past its cap")
}
