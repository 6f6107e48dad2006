package orchestrator

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"raymond/claude"
	"raymond/parsing"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
	"raymond/workflow"
)

// launch is a step ready to run: decided, persisted, handed to a goroutine.
type launch struct {
	req step.Request
	st  *workflow.State
	log *transcript.StepLog
}

// begin turns an agent's pending step into a launch: it loads the state,
// fixes the model, effort and a fresh session id, renders the prompt and
// marks the agent running. A state that cannot be loaded fails the agent.
func (m *machine) begin(a *state.Agent) (*launch, []effect) {
	r := m.run
	s := a.Pending
	st, err := m.scope.Load(s.State)
	if err != nil {
		return nil, m.fail(a, err.Error())
	}
	var effects []effect
	for _, w := range st.Warnings {
		if !slices.Contains(r.Warned, w) {
			r.Warned = append(r.Warned, w)
			effects = append(effects, note(a.ID, transcript.Event{Type: transcript.EventWarning, State: s.State, Message: w}, "warning: "+w, true))
		}
	}
	s.Model = firstOf(st.Policy.Model, r.Options.Model)
	s.Effort = firstOf(st.Policy.Effort, r.Options.Effort)
	if s.Mode != state.SessionResume {
		// Claude Code refuses an id already in use, and a step that ran
		// before (then crashed or was interrupted) may have used this one.
		s.SessionID = newSessionID()
	}
	if s.Attempt == 0 {
		s.Attempt = 1
	}
	a.Steps++
	a.Status = state.AgentRunning
	a.CurrentState = s.State
	if a.Attempts == 0 {
		a.Attempts = 1
	}
	m.running[a.ID] = true
	m.touch(a.ID)

	vars := map[string]string{
		"run_id": r.WorkflowID, "workflow_id": r.WorkflowID,
		"agent_id": a.ID, "state": s.State,
	}
	for k, v := range s.Vars {
		vars[k] = v
	}
	if s.Input != nil {
		vars["input"] = *s.Input
	}
	prompt := s.Reminder
	if prompt == "" {
		prompt = workflow.Render(st.Body, vars)
	}
	return &launch{
		st: st,
		req: step.Request{
			RunID: r.WorkflowID, Agent: a.ID, Seq: a.Steps, Step: *s, Prompt: prompt,
			Vars: vars, Options: r.Options, MaxBudgetUSD: m.stepCap(s),
		},
	}, effects
}

// stepCap is the --max-budget-usd of a step: what is left of the run's
// budget, so that one long step cannot overrun it; 0 without a budget.
//
// A resumed or branched step's cap also holds what its session lineage has
// cost so far. Whether Claude Code compares the cap with this call's cost or
// with the lineage's cumulative total_cost_usd is not documented; with the
// lineage's cost added, a cumulative comparison stops the step at the same
// point as a per-call one would without it, and a per-call comparison is
// still bounded. Without it, a cumulative CLI would stop every resumed step
// of an expensive session at once.
func (m *machine) stepCap(s *state.Step) float64 {
	r := m.run
	if r.BudgetUSD <= 0 {
		return 0
	}
	left := r.BudgetUSD - r.TotalCostUSD
	if s.Mode != state.SessionNew && s.ResumeSession != "" {
		left += r.SessionCosts[s.ResumeSession]
	}
	// Whole micro-dollars, rounded down (after rounding away the float
	// noise of the sum), and never 0, which would mean no cap.
	return max(math.Floor(math.Round(left*1e9)/1e3)/1e6, 1e-6)
}

// firstOf returns the first non-empty string.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runStep runs one launched step and reports it. It runs in its own
// goroutine; it never touches the run.
func runStep(ctx context.Context, runner step.Runner, scope *workflow.Scope, l *launch, h claude.Handler) stepDone {
	req := l.req
	done := stepDone{agent: req.Agent, seq: req.Seq, name: req.Name(), policy: l.st.Policy, req: req}
	done.started = nowFunc()
	res, err := runner.Run(ctx, req, h)
	done.res, done.startErr = res, err
	if err != nil || res == nil {
		if err == nil {
			done.startErr = fmt.Errorf("the step runner returned no result")
		}
		return done
	}
	if res.Outcome != claude.Success {
		return done
	}
	done.tr, done.decideErr = workflow.Decide(scope, l.st, res.Text)
	if done.decideErr == nil {
		done.cwds, done.decideErr = resolveCwds(req.Step.Cwd, done.tr)
	}
	return done
}

// resolveCwds resolves the cd attributes of a transition against the
// agent's working directory: index 0 for the tag itself (reset), then one
// per fork. "" means unchanged. A cd that is not an existing folder is an
// error the model is reminded of.
func resolveCwds(cwd string, tr parsing.Transition) ([]string, error) {
	resolve := func(t parsing.Tag) (string, error) {
		dir, ok := t.Attr("cd")
		if !ok {
			return "", nil
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		dir = filepath.Clean(dir)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return "", fmt.Errorf("cd=%q names %s, which is not an existing folder", mustAttr(t, "cd"), dir)
		}
		return dir, nil
	}
	cwds := make([]string, 1+len(tr.Forks))
	var err error
	if tr.Tag.Name != parsing.Fork {
		if cwds[0], err = resolve(tr.Tag); err != nil {
			return nil, err
		}
	}
	for i, f := range tr.Forks {
		if cwds[i+1], err = resolve(f); err != nil {
			return nil, err
		}
	}
	return cwds, nil
}

func mustAttr(t parsing.Tag, key string) string {
	v, _ := t.Attr(key)
	return v
}
