package scripted

import (
	"context"
	"errors"

	"raymond/claude"
	"raymond/orchestrator/step"
)

// Runner answers steps from a replies file. It is safe for concurrent use.
type Runner struct{}

// Load reads a replies file.
func Load(path string) (*Runner, error) { return nil, errors.New("scripted: not implemented yet") }

// Run answers one step with the next reply for its state.
func (r *Runner) Run(ctx context.Context, req step.Request, h claude.Handler) (*claude.Result, error) {
	return nil, errors.New("scripted: not implemented yet")
}

var _ step.Runner = (*Runner)(nil)
