// Package step is the seam between the orchestrator and whatever runs one
// step: a `claude -p` process (raymond/claude), the replies-file runner of
// raymond/scripted, and the script of a script state (raymond/script).
//
// A [Runner] gets a fully determined [Request] (the state, the prompt after
// templates, the session to start, resume or branch, the working directory)
// and returns a [Result] in neutral terms: an [Outcome] the orchestrator acts
// on (succeeded, transient, usage limit, budget exhausted, unusable, canceled,
// failed), the final text, the session and its cost, and the facts a
// transcript records. Each runner classifies its own failures, so the
// orchestrator never needs to know which runner ran a step.
package step
