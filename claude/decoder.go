package claude

import "time"

// Decoder decodes a stream-json stream that was written down, line by
// line, by the rules Run applies to a live one: the same events, the same
// raw Result fields. raymond transcript uses it to show a step from its
// transcript, so what the report shows is what the run saw.
type Decoder struct {
	res *Result
	st  *stream
}

// NewDecoder returns a Decoder that reports each event to emit (nil
// discards them).
func NewDecoder(emit func(Event)) *Decoder {
	res := &Result{}
	return &Decoder{res: res, st: newStream(res, emit)}
}

// Watch counts the stream's identical tool calls as [Run] does for a
// Request's LoopWarn and LoopStop: the warn-th is reported as an
// EventLoopWarning, and at the stop-th Result().Loop is set, for the
// caller to stop writing and Finish with End.Looped. 0 turns each off.
func (d *Decoder) Watch(warn, stop int) { d.st.loops = loops{warn: warn, stop: stop} }

// Line decodes one line; lines that are not JSON objects are ignored, as
// Run ignores them.
func (d *Decoder) Line(line []byte) {
	d.res.Lines++
	d.st.decode(line)
}

// Result returns what the lines so far said of the step: the result
// line's fields (HasResult, Text, IsError, Subtype, Errors, costs and
// usage), the session, model and version. The outcome is not classified:
// that needs the process's ending, which a stream does not hold.
func (d *Decoder) Result() *Result { return d.res }

// End is how the process behind the lines ended, for [Decoder.Finish].
type End struct {
	ExitCode int
	Signal   string
	// Stderr is the tail of what it wrote on stderr.
	Stderr string
	// TimedOut means it was stopped for printing nothing for too long;
	// Canceled that the caller stopped it.
	TimedOut, Canceled bool
	// StepTimedOut means it ran for its whole step timeout, Limit, set where
	// LimitFrom says.
	StepTimedOut bool
	Limit        time.Duration
	LimitFrom    string
	// Looped means it was stopped for making the same tool call loop_stop
	// times (Result().Loop, see Watch).
	Looped bool
}

// Finish classifies the step from the lines decoded so far and how its
// process ended, exactly as [Run] does for a real claude, and returns the
// Result. A runner that produces stream-json lines itself (the scripted
// runner) gets the same outcomes as the real CLI would give it.
func (d *Decoder) Finish(e End) *Result {
	r := d.res
	r.ExitCode, r.Signal, r.Stderr = e.ExitCode, e.Signal, e.Stderr
	if r.Ended.IsZero() {
		r.Ended = time.Now()
	}
	r.LimitFrom = e.LimitFrom
	r.settle(ending{timedOut: e.TimedOut, canceled: e.Canceled, stepTimedOut: e.StepTimedOut, looped: e.Looped, limit: e.Limit}, d.st.resetAt)
	return r
}
