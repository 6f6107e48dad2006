package step

import (
	"context"

	"raymond/claude"
	"raymond/state"
)

// Claude runs steps as `claude -p` processes.
type Claude struct {
	// Env is the child's environment; nil means raymond's own.
	Env []string
}

// Request returns the claude invocation of req.
func (c Claude) Request(req Request) claude.Request {
	s := req.Step
	o := req.Options
	r := claude.Request{
		Executable:      o.ClaudePath,
		Prompt:          req.Prompt,
		Cwd:             s.Cwd,
		Model:           s.Model,
		Effort:          s.Effort,
		PermissionMode:  o.PermissionMode,
		SkipPermissions: o.SkipPermissions,
		MaxBudgetUSD:    req.MaxBudgetUSD,
		Env:             c.Env,
		IdleTimeout:     o.Timeout.Std(),
	}
	switch s.Mode {
	case state.SessionNew:
		r.SessionID = s.SessionID
	case state.SessionResume:
		r.Resume = s.ResumeSession
	case state.SessionBranch:
		r.Resume = s.ResumeSession
		r.Fork = true
		r.SessionID = s.SessionID
	}
	return r
}

// Run runs req as a claude process.
func (c Claude) Run(ctx context.Context, req Request, h claude.Handler) (*claude.Result, error) {
	return claude.Run(ctx, c.Request(req), h)
}

// Argv returns the command line of req, the executable first.
func (c Claude) Argv(req Request) []string {
	r := c.Request(req)
	argv, _ := claude.Args(r)
	exe := r.Executable
	if exe == "" {
		exe = "claude"
	}
	return append([]string{exe}, argv...)
}
