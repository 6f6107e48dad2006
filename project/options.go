package project

import (
	"fmt"

	"raymond/state"
)

// Given is what a caller gives for a new run: the settings it sets (the
// flags of raymond run), the input, and the value of RAYMOND_CLAUDE. The
// caller has checked the settings and made its paths absolute (AbsPath).
type Given struct {
	Settings
	// Input is the text of {{input}}; nil when none was given, which is
	// not the same as an empty input.
	Input *string
	// ClaudeEnv is RAYMOND_CLAUDE, "" when unset.
	ClaudeEnv string
}

// NewOptions merges what the caller gave, RAYMOND_CLAUDE, the project's
// config and the defaults, in that order of precedence, into the options
// and budget (USD, 0 for none) of a new run of the project.
func (p *Project) NewOptions(g Given) (state.Options, float64) {
	cfg := p.config()
	o := state.Options{
		Effort:          pick(g.Effort, cfg.Effort, ""),
		MaxParallel:     pick(g.MaxParallel, cfg.MaxParallel, state.DefaultMaxParallel),
		MaxAgents:       pick(g.MaxAgents, cfg.MaxAgents, 0), // 0: the default (Options.Limits)
		MaxDepth:        pick(g.MaxDepth, cfg.MaxDepth, 0),
		MaxForks:        pick(g.MaxForks, cfg.MaxForks, 0),
		Timeout:         state.Duration(pick(g.Timeout, cfg.Timeout, state.DefaultTimeout)),
		StepTimeout:     state.Duration(pick(g.StepTimeout, cfg.StepTimeout, state.DefaultStepTimeout)),
		NoWait:          pick(g.NoWait, cfg.NoWait, false),
		MaxTurns:        pick(g.MaxTurns, cfg.MaxTurns, 0),
		LoopWarn:        pick(g.LoopWarn, cfg.LoopWarn, state.DefaultLoopWarn),
		LoopStop:        pick(g.LoopStop, cfg.LoopStop, state.DefaultLoopStop),
		CycleStop:       pick(g.CycleStop, cfg.CycleStop, state.DefaultCycleStop),
		PermissionMode:  pick(g.PermissionMode, cfg.PermissionMode, state.DefaultPermissionMode),
		SkipPermissions: pick(g.SkipPermissions, cfg.SkipPermissions, false),
		Debug:           pick(g.Debug, cfg.Debug, true),
		Confine:         pick(g.Confine, cfg.Confine, false),
		OnAsk:           pick(g.OnAsk, cfg.OnAsk, ""),
		Input:           g.Input,
		ProjectDir:      p.Dir,
	}
	o.Model, o.FallbackModels = modelList(pick(g.Model, cfg.Model, ""))
	// The claude executable: the caller's, else RAYMOND_CLAUDE, else the
	// config's, whose relative path is taken from the project folder.
	// Where it came from, unless the caller gave it, is kept to be shown.
	switch {
	case g.Claude != nil:
		o.ClaudePath = *g.Claude
	case g.ClaudeEnv != "":
		o.ClaudePath, o.ClaudeFrom = g.ClaudeEnv, "RAYMOND_CLAUDE"
	case cfg.Claude != nil && *cfg.Claude != "":
		o.ClaudePath, o.ClaudeFrom = AbsPath(*cfg.Claude, p.Dir), ConfigPath(p.Dir)
	}
	if o.SkipPermissions && g.PermissionMode == nil {
		o.PermissionMode = ""
	}
	return o, pick(g.Budget, cfg.Budget, 0)
}

// Quiet says whether progress is quiet: as given, else as the project's
// config says, else not.
func (p *Project) Quiet(given Settings) bool {
	return pick(given.Quiet, p.config().Quiet, false)
}

// config returns the project's config, empty when it has none.
func (p *Project) config() *Settings {
	if p.Config == nil {
		return &Settings{}
	}
	return p.Config
}

// Override applies the settings given, and only those, to a stored run (raymond
// resume): neither the config nor RAYMOND_CLAUDE applies again.
func Override(r *state.Run, given Settings) {
	o := &r.Options
	if given.Model != nil {
		o.Model, o.FallbackModels = modelList(*given.Model)
	}
	set(given.Effort, &o.Effort)
	set(given.MaxParallel, &o.MaxParallel)
	set(given.MaxAgents, &o.MaxAgents)
	set(given.MaxDepth, &o.MaxDepth)
	set(given.MaxForks, &o.MaxForks)
	if given.Timeout != nil {
		o.Timeout = state.Duration(*given.Timeout)
	}
	if given.StepTimeout != nil {
		o.StepTimeout = state.Duration(*given.StepTimeout)
	}
	set(given.NoWait, &o.NoWait)
	set(given.MaxTurns, &o.MaxTurns)
	set(given.LoopWarn, &o.LoopWarn)
	set(given.LoopStop, &o.LoopStop)
	set(given.CycleStop, &o.CycleStop)
	if given.PermissionMode != nil {
		o.PermissionMode, o.SkipPermissions = *given.PermissionMode, false
	}
	if given.SkipPermissions != nil {
		o.SkipPermissions = *given.SkipPermissions
		if o.SkipPermissions {
			o.PermissionMode = ""
		} else if o.PermissionMode == "" {
			o.PermissionMode = state.DefaultPermissionMode
		}
	}
	if given.Claude != nil {
		o.ClaudePath, o.ClaudeFrom = *given.Claude, ""
	}
	set(given.Debug, &o.Debug)
	set(given.Confine, &o.Confine)
	set(given.OnAsk, &o.OnAsk)
	set(given.Budget, &r.BudgetUSD)
}

// NewSession makes the next step of agent id in run r start a new session
// at the same state, with the same input, variables and working directory
// (raymond resume --new-session): the way on for an agent whose session
// claude no longer has. The step sends the state's whole prompt, not a
// reminder meant for the lost conversation.
func NewSession(r *state.Run, id string) error {
	a := r.Agent(id)
	switch {
	case a == nil:
		return fmt.Errorf("run %s has no agent %q", r.WorkflowID, id)
	case a.Pending == nil:
		return fmt.Errorf("agent %s of run %s has no step left to run (it is %s)", id, r.WorkflowID, a.Status)
	}
	p := a.Pending
	p.Mode, p.ResumeSession, p.SessionID, p.Reminder = state.SessionNew, "", "", ""
	return nil
}

// pick returns the given value when there is one, else the config's when it
// has one, else the default.
func pick[T any](given, cfg *T, def T) T {
	switch {
	case given != nil:
		return *given
	case cfg != nil:
		return *cfg
	}
	return def
}

// set stores the given value, if any, in dst.
func set[T any](given *T, dst *T) {
	if given != nil {
		*dst = *given
	}
}

// Workspace returns the workspace mode and merge rule of a new run: the
// caller's mode, else the config's; "" where neither says (the workflow's
// manifest may, else shared and auto).
func (p *Project) Workspace(given Settings) (mode, merge string) {
	cfg := p.config()
	return pick(given.Workspace, cfg.Workspace, ""), pick(given.WorkspaceMerge, cfg.WorkspaceMerge, "")
}
