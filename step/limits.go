package step

// MaxTurns is the most turns a claude step may take, 0 for no limit, and
// where it was set: the state's own max_turns when it has one, else the
// run's (--max-turns, the manifest's or the config's).
func (r Request) MaxTurns() (n int, from string) {
	if t := r.Step.MaxTurns; t != nil {
		return *t, "max_turns of " + r.Step.State
	}
	return r.Options.MaxTurns, "--max-turns"
}

// LoopLimits are how many identical tool calls in the step print a
// warning and stop it, 0 for never: the state's own loop_warn and
// loop_stop when it has them, else the run's.
func (r Request) LoopLimits() (warn, stop int) {
	warn, stop = r.Options.LoopWarn, r.Options.LoopStop
	if w := r.Step.LoopWarn; w != nil {
		warn = *w
	}
	if s := r.Step.LoopStop; s != nil {
		stop = *s
	}
	return warn, stop
}
