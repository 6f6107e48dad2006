// Package machine is a run's state machine: protocol.md's rules for tags,
// policy, retries, usage limits, budgets and the end of a run, as a plain
// value that does no I/O.
//
// Everything that happens to a run comes in as an [Event] (the driver began,
// a step was prepared or ended, a timer fired, the user asked to stop, a
// save failed) and everything the machine wants done goes out as an
// [Effect] (prepare a step, start it, save, publish an event, wake me at,
// done). Times, session ids and the text of prompts come in with events;
// the package reads no clock, no file and no environment, so the same
// events always give the same run and the same effects. The local driver
// (raymond/orchestrator) carries the effects out with goroutines, files and
// processes; a distributed driver could carry them out otherwise.
package machine
