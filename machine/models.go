package machine

import (
	"slices"
	"time"

	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// Why a step goes on with another model, as its fallback event says.
const (
	whyOverloaded = "overloaded"
	whyLimit      = "hit a usage limit"
)

// models is the list of models a step may run on, the first tried first:
// the state's own (or its workflow's manifest's), else the run's --model
// list, else the model learnt for the run; none for Claude Code's default.
func (m *Machine) models(p PreparedStep) []string {
	r := m.run
	switch {
	case p.Model != "":
		return append([]string{p.Model}, p.Fallbacks...)
	case r.Options.Model != "":
		return append([]string{r.Options.Model}, r.Options.FallbackModels...)
	case r.DefaultModel != "":
		return []string{r.DefaultModel}
	}
	return nil
}

// chooseModel settles the model of agent a's step s about to start: the
// first of its list that the step has not given up and that no usage
// limit holds, the rest of those as its fallbacks. When every model it
// may use is held, the step does not start: the agent is parked until
// the first hold ends, and chooseModel returns what says so.
func (m *Machine) chooseModel(a *state.Agent, s *state.Step, p PreparedStep, now time.Time) []Effect {
	s.Model, s.Fallbacks = "", nil
	if p.Script {
		return nil
	}
	list := m.models(p)
	var usable []string
	for _, model := range list {
		if !slices.Contains(s.Skipped, model) {
			usable = append(usable, model)
		}
	}
	if len(usable) == 0 && len(list) > 0 {
		usable = list[len(list)-1:] // the last model is never given up; a list that changed under the step
	}
	m.pruneHolds(now)
	var open []string
	for _, model := range usable {
		if m.hold(model, now) == nil {
			open = append(open, model)
		}
	}
	if len(usable) > 0 && len(open) == 0 {
		return m.park(a, now, usable)
	}
	if len(open) > 0 {
		s.Model = open[0]
		if len(open) > 1 {
			s.Fallbacks = open[1:]
		}
	}
	return nil
}

// hold returns the usage limit that holds model at now, nil for none.
func (m *Machine) hold(model string, now time.Time) *state.Wait {
	for i := range m.run.Holds {
		if h := &m.run.Holds[i]; h.Model == model && now.Before(h.Until) {
			return h
		}
	}
	return nil
}

// pruneHolds drops the holds that have ended.
func (m *Machine) pruneHolds(now time.Time) {
	r := m.run
	r.Holds = slices.DeleteFunc(r.Holds, func(h state.Wait) bool { return !now.Before(h.Until) })
	if len(r.Holds) == 0 {
		r.Holds = nil
	}
}

// holdModel records a usage limit of model until the given time.
func (m *Machine) holdModel(model string, until time.Time, reason string) {
	r := m.run
	for i := range r.Holds {
		if h := &r.Holds[i]; h.Model == model {
			if until.After(h.Until) {
				h.Until, h.Reason = until, reason
			}
			return
		}
	}
	r.Holds = append(r.Holds, state.Wait{Until: until, Reason: reason, Model: model})
}

// park holds back agent a, ready, until the first of the holds of models
// ends.
func (m *Machine) park(a *state.Agent, now time.Time, models []string) []Effect {
	var first *state.Wait
	for _, model := range models {
		if h := m.hold(model, now); h != nil && (first == nil || h.Until.Before(first.Until)) {
			first = h
		}
	}
	a.Status = state.AgentReady
	m.touch(a.ID)
	m.notBefore[a.ID] = first.Until
	m.held[a.ID] = *first
	// The run shows the wait (the latest one, as for the account's limit),
	// and with --no-wait pauses at it.
	if w := m.run.Wait; w == nil || first.Until.After(w.Until) {
		m.run.Wait = &state.Wait{Until: first.Until, Reason: first.Reason, Model: first.Model}
	}
	return []Effect{deferred(a, now, "usage limit")}
}

// modelOf is the model step s ran on, as far as the run knows: "" when
// it named none and none was learnt.
func (m *Machine) modelOf(s *state.Step) string {
	if s.Model != "" && s.Model != ClaudeDefaultModel {
		return s.Model
	}
	return m.run.DefaultModel
}

// nextModel is the model agent a's step goes on with after res: the first
// of its fallbacks, past those claude took by itself during the step, that
// no usage limit holds; "" for none.
func (m *Machine) nextModel(s *state.Step, res step.Result, now time.Time) string {
	rest := s.Fallbacks[min(len(res.FellBack), len(s.Fallbacks)):] // claude went on with those already
	if res.Overloaded && len(res.FellBack) > 0 {
		return "" // claude went through its list: the last was overloaded too
	}
	for _, model := range rest {
		if m.hold(model, now) == nil && !slices.Contains(s.Skipped, model) {
			return model
		}
	}
	return ""
}

// fellBack has agent a's step start again at once on model next, after
// its model failed it (why: overloaded, a usage limit). The models given
// up for overload are kept on the step, so its next attempts skip them;
// a model with a usage limit is held (Run.Holds) until its reset.
func (m *Machine) fellBack(a *state.Agent, ev StepEnded, why, next string) Effect {
	s := a.Pending
	res := ev.Result
	from := s.Model
	if res.Model != "" && res.Model != "<synthetic>" {
		from = res.Model
	}
	// An overloaded model is given up for this step; a limited one is
	// held for every step until its reset, and taken again after it.
	if why == whyOverloaded || len(res.FellBack) > 0 {
		s.Skipped = append(s.Skipped, s.Model) // claude left it overloaded
	}
	if n := min(len(res.FellBack), len(s.Fallbacks)); n > 0 {
		skipped := s.Fallbacks[:n]
		if why != whyOverloaded {
			skipped = skipped[:n-1] // the last one claude took hit the limit: it is held
		}
		s.Skipped = append(s.Skipped, skipped...)
		from = res.FellBack[len(res.FellBack)-1]
	}
	delete(m.notBefore, a.ID)
	m.ready(a)
	a.LastError = res.Reason
	return note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventFallback, Step: ev.Name, State: s.State,
		Attempt: s.Attempt, Model: from, Target: next, Outcome: why, Message: transcript.FallbackMessage(from, why, next)})
}
