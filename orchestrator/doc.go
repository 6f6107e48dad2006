// Package orchestrator drives runs: it creates a run of a workflow (Create)
// and drives it step by step until every agent has ended or the run pauses
// (Driver.Drive), following protocol.md.
//
// One goroutine, the loop, owns the run. Each step runs in a goroutine of its
// own (a step.Runner: claude, or scripted replies) and reports back on a
// channel; the loop applies the report with machine.apply, a plain function
// of the run and the event that returns the effects to carry out, persists
// what changed through the run's state.Journal, and starts whatever may start
// next. A step's pending record is saved before the step starts, so a process
// that dies mid-step runs exactly that step again on resume.
//
// The loop starts no step while the run waits for a usage-limit reset, once
// its cost has reached its budget, or once Driver.Quiesce is closed; when no
// step is left in flight it sets the run's status (completed, failed, paused,
// budget_exceeded) and Drive returns. Waits and back-offs read a Clock, so
// tests run hours of waiting in no time.
package orchestrator
