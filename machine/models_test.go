package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/state"
	"raymond/transcript"
)

// prepareModels prepares main's pending step with the state's models and
// returns the step it starts, nil when none starts.
func prepareModels(t *testing.T, m *Machine, now time.Time, models ...string) *state.Step {
	t.Helper()
	m.running["main"] = true
	p := PreparedStep{Agent: "main", SessionID: "n1"}
	if len(models) > 0 {
		p.Model, p.Fallbacks = models[0], models[1:]
	}
	starts := effectsOf[Start](m.Apply(Prepared{Now: now, Steps: []PreparedStep{p}}))
	if len(starts) == 0 {
		return nil
	}
	require.Len(t, starts, 1)
	return &starts[0].Request.Step
}

// TestModelFallback: a step whose model fails it (overloaded after claude's
// retries, a usage limit, a 429 claude did not retry) goes on at once with
// the next model of its list, saying so; the list used up, it is retried
// or waits as a step with one model does.
func TestModelFallback(t *testing.T) {
	overloaded := &claude.Result{Outcome: claude.APIError, HasResult: true, IsError: true, APIErrorStatus: 529, APIErrorKind: "overloaded",
		Text: "API Error: 529 Overloaded", Model: "claude-opus-5-5"}
	limit := &claude.Result{Outcome: claude.UsageLimit, HasResult: true, IsError: true, Text: "You've hit your Opus limit", ResetAt: t0.Add(time.Hour), Model: "claude-opus-5-5"}
	rejected := &claude.Result{Outcome: claude.UsageLimit, HasResult: true, IsError: true, APIErrorStatus: 429, Text: "API Error: Request rejected (429)"}
	tests := []struct {
		name   string
		models []string
		res    *claude.Result
		// what follows: the event, and the model of the next attempt ("" none)
		event, line, next string
		attempt           int
	}{
		{name: "overloaded", models: []string{"opus", "sonnet"}, res: overloaded, event: transcript.EventFallback,
			line: "A.md: claude-opus-5-5 overloaded: going on with sonnet", next: "sonnet", attempt: 1},
		{name: "usage limit", models: []string{"opus", "sonnet"}, res: limit, event: transcript.EventFallback,
			line: "A.md: claude-opus-5-5 hit a usage limit: going on with sonnet", next: "sonnet", attempt: 1},
		{name: "rejected", models: []string{"opus", "haiku"}, res: rejected, event: transcript.EventFallback,
			line: "A.md: opus hit a usage limit: going on with haiku", next: "haiku", attempt: 1},
		{name: "overloaded, list used up", models: []string{"sonnet"}, res: overloaded, event: transcript.EventRetry, next: "sonnet", attempt: 2},
		{name: "limit, list used up", models: []string{"opus"}, res: limit, event: transcript.EventStepDeferred},
	}
	for _, tt := range tests {
		m := oneAgent(state.SessionResume)
		s := prepareModels(t, m, t0, tt.models...)
		require.NotNil(t, s, tt.name)
		assert.Equal(t, tt.models[0], s.Model, tt.name)
		effects := m.apply(stepDone{agent: "main", seq: 1, name: "main_A_001", res: tt.res}, t0)
		require.NotEmpty(t, effects, tt.name)
		assert.Equal(t, tt.event, effects[0].event.Type, tt.name)
		if tt.line != "" {
			assert.Equal(t, tt.line, effects[0].line, tt.name)
		}
		later := t0.Add(time.Minute) // past a retry's back-off, before the limit's reset
		next := prepareModels(t, m, later, tt.models...)
		if tt.next == "" {
			assert.Nil(t, next, tt.name)
			continue
		}
		require.NotNil(t, next, tt.name)
		assert.Equal(t, tt.next, next.Model, tt.name)
		assert.Equal(t, tt.attempt, next.Attempt, tt.name)
		assert.Equal(t, state.SessionResume, next.Mode, tt.name+": same session rules as a retry")
	}
}

// TestModelHold: a usage limit holds that model only. A step of another
// agent on a held model starts on the next of its list; one whose models
// are all held does not start and waits for the first to reset; a step on
// another model starts meanwhile; once the limit ends, its model is used
// again.
func TestModelHold(t *testing.T) {
	m := oneAgent(state.SessionResume)
	prepareModels(t, m, t0, "opus")
	limit := &claude.Result{Outcome: claude.UsageLimit, HasResult: true, IsError: true, Text: "Opus limit", ResetAt: t0.Add(time.Hour)}
	m.apply(stepDone{agent: "main", seq: 1, name: "main_A_001", res: limit}, t0)
	require.Len(t, m.run.Holds, 1)
	assert.Equal(t, "opus", m.run.Holds[0].Model)
	require.NotNil(t, m.run.Wait)
	assert.Equal(t, "opus", m.run.Wait.Model)
	until := m.run.Holds[0].Until

	// main waits: nothing starts it before the reset.
	now := t0.Add(time.Minute)
	assert.Empty(t, effectsOf[Prepare](m.Apply(Tick{Now: now})))

	// Its list had a model not held: it would go on with it.
	s := prepareModels(t, m, now, "opus", "sonnet")
	require.NotNil(t, s)
	assert.Equal(t, "sonnet", s.Model)
	assert.Empty(t, s.Fallbacks)

	// A step on sonnet only starts while opus is held.
	m = oneAgent(state.SessionResume)
	m.run.Holds = []state.Wait{{Model: "opus", Until: until}}
	s = prepareModels(t, m, now, "sonnet")
	require.NotNil(t, s)
	assert.Equal(t, "sonnet", s.Model)

	// A step on opus only does not start before the reset, and does after.
	s = prepareModels(t, oneAgentHeld(until), now, "opus")
	assert.Nil(t, s)
	m = oneAgentHeld(until)
	s = prepareModels(t, m, until, "opus")
	require.NotNil(t, s)
	assert.Equal(t, "opus", s.Model)
	assert.Empty(t, m.run.Holds, "an ended hold is dropped")
}

func oneAgentHeld(until time.Time) *Machine {
	m := oneAgent(state.SessionResume)
	m.run.Holds = []state.Wait{{Model: "opus", Until: until}}
	return m
}

// TestClaudeFellBackItself: claude gets the rest of the list as
// --fallback-model and goes through it by itself on overload; a step that
// ends overloaded after that has none left and is retried, while one that
// hit a usage limit on the model claude took goes on past it.
func TestClaudeFellBackItself(t *testing.T) {
	m := oneAgent(state.SessionResume)
	s := prepareModels(t, m, t0, "opus", "sonnet", "haiku")
	require.Equal(t, []string{"sonnet", "haiku"}, s.Fallbacks)
	overloaded := &claude.Result{Outcome: claude.APIError, HasResult: true, IsError: true, APIErrorStatus: 529, APIErrorKind: "overloaded",
		Model: "claude-opus-5-5", FellBack: []string{"claude-sonnet-5-5"}}
	effects := m.apply(stepDone{agent: "main", seq: 1, name: "main_A_001", res: overloaded}, t0)
	require.NotEmpty(t, effects)
	assert.Equal(t, transcript.EventRetry, effects[0].event.Type)

	m = oneAgent(state.SessionResume)
	prepareModels(t, m, t0, "opus", "sonnet", "haiku")
	limit := &claude.Result{Outcome: claude.UsageLimit, HasResult: true, IsError: true, Text: "Sonnet limit",
		Model: "claude-opus-5-5", FellBack: []string{"claude-sonnet-5-5"}}
	effects = m.apply(stepDone{agent: "main", seq: 1, name: "main_A_001", res: limit}, t0)
	require.NotEmpty(t, effects)
	assert.Equal(t, "A.md: claude-sonnet-5-5 hit a usage limit: going on with haiku", effects[0].line)
	require.Len(t, m.run.Holds, 1)
	assert.Equal(t, "sonnet", m.run.Holds[0].Model, "the limit is the model claude took")
	next := prepareModels(t, m, t0, "opus", "sonnet", "haiku")
	require.NotNil(t, next)
	assert.Equal(t, "haiku", next.Model)
	assert.Empty(t, next.Fallbacks)
}

// TestRunModelList: --model a,b is the list of states that name none.
func TestRunModelList(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.Options.Model, m.run.Options.FallbackModels = "opus", []string{"sonnet"}
	s := prepareModels(t, m, t0)
	require.NotNil(t, s)
	assert.Equal(t, "opus", s.Model)
	assert.Equal(t, []string{"sonnet"}, s.Fallbacks)
}
