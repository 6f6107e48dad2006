package scripted

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/state"
	"raymond/step"
	"raymond/workflow"
)

// testSession is the pre-minted session id of the requests the tests make.
const testSession = "11111111-2222-4333-8444-555555555555"

// parse parses a replies file named replies.yaml that must be valid.
func parse(t testing.TB, yaml string) *Runner {
	t.Helper()
	r, err := Parse("replies.yaml", []byte(yaml))
	require.NoError(t, err)
	return r
}

// request returns a new-session step of stateName with the given template
// values.
func request(stateName string, vars map[string]string) step.Request {
	return step.Request{
		RunID: "run1",
		Agent: "main",
		Seq:   1,
		Step: state.Step{
			Ref:       state.Ref{State: stateName},
			Mode:      state.SessionNew,
			SessionID: testSession,
			Cwd:       "/work/project",
			Attempt:   1,
		},
		Prompt: "Do the work of " + stateName,
		Vars:   vars,
	}
}

// recorder records what a step hands its handler. It is used by one step
// at a time, so it needs no lock.
type recorder struct {
	lines  []string
	events []claude.Event
	stderr []string
	// onEvent, if set, is called after each event is recorded.
	onEvent func(claude.Event)
}

func (rec *recorder) handler() claude.Handler {
	return claude.Handler{
		OnLine: func(raw []byte) { rec.lines = append(rec.lines, string(raw)) },
		OnEvent: func(e claude.Event) {
			rec.events = append(rec.events, e)
			if rec.onEvent != nil {
				rec.onEvent(e)
			}
		},
		OnStderr: func(line string) { rec.stderr = append(rec.stderr, line) },
	}
}

// texts returns the Text of the recorded events of kind k.
func (rec *recorder) texts(k claude.EventKind) []string {
	var out []string
	for _, e := range rec.events {
		if e.Kind == k {
			out = append(out, e.Text)
		}
	}
	return out
}

// run runs req on r to its end and returns the result and what the handler
// saw.
func run(t testing.TB, r *Runner, req step.Request) (*claude.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	res, err := r.play(context.Background(), req, rec.handler())
	require.NoError(t, err)
	require.NotNil(t, res)
	return res, rec
}

// answer runs one step of stateName and returns its final text, or its
// outcome in brackets when the step did not succeed.
func answer(t testing.TB, r *Runner, stateName string) string {
	t.Helper()
	res, _ := run(t, r, request(stateName, nil))
	if res.Outcome != claude.Success {
		return "[" + res.Outcome.String() + "]"
	}
	return res.Text
}

// openScope opens the workflow folder dir, closed when the test ends.
func openScope(t *testing.T, dir string) *workflow.Scope {
	t.Helper()
	s, err := workflow.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
