package analysis

import "time"

// times settles the run's start and end, the processes, each step's
// duration and the waits. Every time comes from the events (the meta
// files only for a step the events lack), so that a step's start, its
// duration and the gaps between steps add up. A run a process drives now
// runs until src.Now: its wall time, its open wait and its running steps
// count until then.
func (b *builder) times(src Source) {
	r := b.r
	for _, s := range r.Steps {
		if r.Started.IsZero() || (!s.Started.IsZero() && s.Started.Before(r.Started)) {
			r.Started = s.Started
		}
		if s.Ended.After(b.lastEvent) {
			b.lastEvent = s.Ended
		}
		if s.Started.After(b.lastEvent) {
			b.lastEvent = s.Started
		}
	}
	if !b.lastEnded || r.Ended.IsZero() {
		r.Ended = b.lastEvent
	}
	live := src.Running && !b.lastEnded
	if live {
		now := src.Now
		if now.IsZero() {
			now = time.Now()
		}
		if now.After(r.Ended) {
			r.Ended = now
		}
		b.closeProcess(r.Ended, false)
	} else {
		b.closeProcess(b.lastEvent, true)
	}
	r.Started, r.Ended = r.Started.UTC(), r.Ended.UTC()
	r.Wall = max(r.Ended.Sub(r.Started), 0)
	r.WallMS, r.DrivenMS = millis(r.Wall), millis(r.Driven)

	for _, s := range r.Steps {
		if s.Ended.IsZero() {
			b.openStep(s, live)
		}
		s.DurationMS = millis(s.Duration)
	}
	for i := range r.Waits {
		w := &r.Waits[i]
		end := w.Ended
		if end.IsZero() {
			end = r.Ended
		}
		r.WaitTime += max(end.Sub(w.Started), 0)
	}
	r.WaitMS = millis(r.WaitTime)
}

// openStep settles how long a step that never ended ran: until now when
// the process that started it drives the run still, else until that
// process stopped, which is as far as the transcript can tell; the step
// was then cut short.
func (b *builder) openStep(s *Step, live bool) {
	r := b.r
	if s.Started.IsZero() {
		s.CutShort = !live // known from its files alone: when it ran is unknown
		return
	}
	end := r.Ended
	p := processAt(r.Processes, s.Started)
	last := p == nil || p == &r.Processes[len(r.Processes)-1]
	if !live || !last {
		s.CutShort = true
		if p != nil {
			end = p.Ended
		}
	}
	s.Duration = max(end.Sub(s.Started), 0)
}

// processAt returns the process that drove the run at t: the last one to
// start before it; nil when there is none.
func processAt(ps []Process, t time.Time) *Process {
	var p *Process
	for i := range ps {
		if ps[i].Started.After(t) {
			break
		}
		p = &ps[i]
	}
	return p
}

// endOf is when a step ended, or, for one that never did, how far it is
// known to have run (see Step.Duration).
func endOf(s *Step) time.Time {
	if !s.Ended.IsZero() {
		return s.Ended
	}
	return s.Started.Add(s.Duration)
}
