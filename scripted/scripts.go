package scripted

import (
	"context"

	"raymond/step"
)

// Scripts returns a runner for a run with replies whose workflow has
// script states: it answers every markdown step from r, and a script step
// (step.Request.Script set) from r when r has a reply left for it (for its
// agent at its state, or for the state), else it runs the real script with
// real. So a replies file may script a .sh state, and a workflow test of a
// workflow with scripts needs replies only for its prompts.
//
// The returned runner is named as r is ("scripted"; a step the real script
// ran says so in its Result.Runner), salvages as r does, and sweeps as real
// does when real is a step.Sweeper.
func (r *Runner) Scripts(real step.Runner) step.Runner {
	return &scripts{r: r, real: real}
}

// scripts is the runner Scripts returns.
type scripts struct {
	r    *Runner
	real step.Runner
}

var (
	_ step.Sweeper  = (*scripts)(nil)
	_ step.Salvager = (*scripts)(nil)
	_ step.Named    = (*scripts)(nil)
)

// Run implements step.Runner.
func (s *scripts) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	if req.Script == nil {
		return s.r.Run(ctx, req, h)
	}
	q, rep := s.r.take(req)
	if rep == nil {
		return s.real.Run(ctx, req, h)
	}
	return s.r.run(ctx, req, h, q, rep)
}

// Name implements step.Named.
func (s *scripts) Name() string { return s.r.Name() }

// Salvage implements step.Salvager.
func (s *scripts) Salvage(req step.Request, lines []byte) (step.Result, bool) {
	return s.r.Salvage(req, lines)
}

// Sweep implements step.Sweeper: the real scripts' processes are ended as
// real ends them; a scripted step starts none.
func (s *scripts) Sweep(marker string) ([]int, error) {
	if sw, ok := s.real.(step.Sweeper); ok {
		return sw.Sweep(marker)
	}
	return nil, nil
}
