package wftest

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"raymond/analysis"
	"raymond/orchestrator"
	"raymond/rewind"
	"raymond/script"
	"raymond/scripted"
	"raymond/state"
)

// Rewind is a case's rewind: to just before Step (AGENT:N, or a bare N for
// main's), with the step's model, effort or input changed, the new run
// answered from its own replies.
type Rewind struct {
	Step          string
	Model, Effort string
	Input         *string
	replies       any
}

// rewindKeys are the keys of a case's rewind, as error messages list them.
const rewindKeys = "step, model, effort, input, replies"

// rewind reads a case's rewind: block.
func (p *parser) rewind(c *Case, v any, at []any, label string) {
	fields, ok := p.mapping(v, at, label+": rewind", "rewind", rewindKeys)
	if !ok {
		return
	}
	rw := &Rewind{replies: fields["replies"]}
	text := func(k string) (string, bool) {
		val, given := fields[k]
		if !given {
			return "", false
		}
		s, isText := val.(string)
		if !isText {
			p.fail(sub(at, k), "%s: rewind: %s: %s is not a text", label, k, scripted.Describe(val))
		}
		return s, isText
	}
	rw.Step, _ = text("step")
	rw.Model, _ = text("model")
	rw.Effort, _ = text("effort")
	if s, ok := text("input"); ok {
		rw.Input = &s
	}
	if _, _, err := stepSpec(rw.Step); err != nil {
		p.fail(sub(at, "step"), "%s: rewind: %v", label, err)
	}
	if _, err := scripted.ParseValue(c.ID+" rewind", rw.replies); err != nil {
		p.fail(sub(at, "replies"), "%s: rewind: %v", label, err)
	}
	c.Rewind = rw
}

// stepSpec reads AGENT:N, or N for main's N-th step.
func stepSpec(spec string) (agent string, seq int, err error) {
	agent, n, ok := strings.Cut(spec, ":")
	if !ok {
		agent, n = orchestrator.MainAgent, spec
	}
	seq, err = strconv.Atoi(n)
	if err != nil || seq < 1 || agent == "" {
		return "", 0, fmt.Errorf("step: %q is not AGENT:N (main:3) or N", spec)
	}
	return agent, seq, nil
}

// rewindRun makes the rewound run of a case whose first run, run, ended
// (its transcript in debug), and drives it with d answered from the
// rewind's replies. It returns the new run as it ended and the runner that
// answered it, for the checks.
func rewindRun(ctx context.Context, c *Case, d orchestrator.Driver, store *state.Store, debug, scope string, run *analysis.Run, costs map[string]float64) (*state.Run, *scripted.Runner, error) {
	agent, seq, err := stepSpec(c.Rewind.Step)
	if err != nil {
		return nil, nil, err
	}
	s := run.Find(agent, seq)
	if s == nil {
		return nil, nil, fmt.Errorf("rewind: the run has no step %s", c.Rewind.Step)
	}
	id := state.NewID()
	r, _, err := rewind.Build(filepath.Join(debug, run.ID), s.Name, id,
		rewind.Options{Model: c.Rewind.Model, Effort: c.Rewind.Effort, Input: c.Rewind.Input, Costs: costs})
	if err != nil {
		return nil, nil, fmt.Errorf("rewind to %s: %w", s.Name, err)
	}
	if err := store.Create(r); err != nil {
		return nil, nil, err
	}
	runner, err := scripted.ParseValue(c.ID+" rewind", c.Rewind.replies)
	if err != nil {
		return nil, nil, err
	}
	runner.InWorkflow(scope)
	steps := runner.Scripts(&script.Runner{})
	d.Runner, d.Scripts = steps, steps
	final, err := d.Drive(ctx, id, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("run the rewound run: %w", err)
	}
	return final, runner, nil
}
