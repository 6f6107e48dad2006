// Package step is the seam between the orchestrator and whatever runs one
// step: the claude subprocess ([Claude]), the scripted runner of
// raymond/scripted, and later script states.
//
// A [Runner] gets a fully determined [Request] (the state, the prompt after
// templates, the session to start, resume or branch, the working directory)
// and returns a *claude.Result however it produced it, so the orchestrator
// reads every kind of step the same way: outcome, final text, session id,
// cost, tokens.
package step
