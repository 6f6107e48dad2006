package script

import (
	"context"

	"raymond/step"
)

// Or returns the runner of a run whose workflow may have script states: it
// runs script steps (step.Request.Script set) with r and every other step
// with prompts (the claude runner). It is named as prompts is, describes and
// salvages prompt steps as prompts does (a script step's Result carries its
// own Runner and Argv), and sweeps a marker with both runners.
func (r *Runner) Or(prompts step.Runner) step.Runner {
	return &either{script: r, prompts: prompts}
}

// either is the runner Or returns.
type either struct {
	script  *Runner
	prompts step.Runner
}

var (
	_ step.Named     = (*either)(nil)
	_ step.Describer = (*either)(nil)
	_ step.Salvager  = (*either)(nil)
	_ step.Sweeper   = (*either)(nil)
)

// Run implements step.Runner.
func (e *either) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	if req.Script != nil {
		return e.script.Run(ctx, req, h)
	}
	return e.prompts.Run(ctx, req, h)
}

// Name implements step.Named.
func (e *either) Name() string { return step.RunnerName(e.prompts) }

// Argv implements step.Describer.
func (e *either) Argv(req step.Request) []string {
	if req.Script != nil {
		return e.script.Argv(req)
	}
	if d, ok := e.prompts.(step.Describer); ok {
		return d.Argv(req)
	}
	return nil
}

// Salvage implements step.Salvager: a script step is never salvaged (it
// costs nothing, and its end is not in lines).
func (e *either) Salvage(req step.Request, lines []byte) (step.Result, bool) {
	if s, ok := e.prompts.(step.Salvager); ok && req.Script == nil {
		return s.Salvage(req, lines)
	}
	return step.Result{}, false
}

// Sweep implements step.Sweeper. The sweeps find the same processes (those
// that carry the marker), so the second finds only what the first missed.
func (e *either) Sweep(marker string) ([]int, error) {
	pids, err := e.script.Sweep(marker)
	if s, ok := e.prompts.(step.Sweeper); ok && err == nil {
		more, err := s.Sweep(marker)
		return append(pids, more...), err
	}
	return pids, err
}
