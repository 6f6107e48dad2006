package machine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// maxCycle is the longest cycle of states the cycle check looks for: an
// agent going round A → B → C → D → A with the same answers each time is
// caught, a longer round is not.
const maxCycle = 4

// cycle records the fingerprint of a step that ended in an accepted
// transition (its state and a hash of its final answer) in the agent's
// history and, when the history now ends with the same cycle of 1 to
// maxCycle fingerprints cycle_stop times in a row, returns the effects
// that stop the agent: a cycle event and its failure. It returns nil
// otherwise.
//
// A polling state legitimately answers alike round after round, so a
// script step, a state with cycle_check: false and an ask (a person
// answers in between) each empty the history: a cycle must not pass
// through them. A failure empties it too, so that a resume gives the
// agent cycle_stop rounds again.
func (m *Machine) cycle(a *state.Agent, ev StepEnded) []Effect {
	k := m.run.Options.CycleStop
	s := a.Pending
	if k <= 0 || ev.Script || s.NoCycleCheck || ev.Transition.Tag.Name == parsing.Ask && len(ev.Transition.Forks) == 0 {
		a.Recent = nil
		return nil
	}
	a.Recent = append(a.Recent, fingerprint(s.Ref, ev.Result.Text))
	if keep := maxCycle * k; len(a.Recent) > keep {
		a.Recent = append(a.Recent[:0], a.Recent[len(a.Recent)-keep:]...)
	}
	l := repeating(a.Recent, k)
	if l == 0 {
		return nil
	}
	round := a.Recent[len(a.Recent)-l:]
	names := make([]string, 0, l+1)
	for _, f := range round {
		names = append(names, stateOf(f))
	}
	names = append(names, names[0])
	what := fmt.Sprintf("%s repeated %d times with identical answers", strings.Join(names, " → "), k)
	a.Recent = nil
	out := []Effect{note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventCycle, Step: ev.Name, State: s.State, Message: what, Count: k})}
	return append(out, m.fail(a, ev.Now, fmt.Sprintf("%s: %s: stopped (cycle_stop %d); change the prompts so the agent makes progress, "+
		"or give a state that repeats on purpose cycle_check: false, then `raymond resume %s`", s.State, what, k, m.run.WorkflowID))...)
}

// fingerprint identifies a step for the cycle check: its state's name,
// then a hash of the state's identity and the step's final answer.
func fingerprint(ref state.Ref, answer string) string {
	h := sha256.New()
	for _, part := range []string{ref.Scope, ref.URL, ref.State, answer} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return ref.State + "#" + hex.EncodeToString(h.Sum(nil)[:8])
}

// stateOf is the state's name in a fingerprint.
func stateOf(f string) string {
	if i := strings.LastIndexByte(f, '#'); i >= 0 {
		return f[:i]
	}
	return f
}

// repeating returns the length of the shortest cycle (1 to maxCycle) that
// the history h ends with k times in a row, 0 when there is none.
func repeating(h []string, k int) int {
	n := len(h)
	for l := 1; l <= maxCycle; l++ {
		if l*k > n {
			return 0
		}
		same := true
		for i := n - l*k; i < n-l && same; i++ {
			same = h[i] == h[i+l]
		}
		if same {
			return l
		}
	}
	return 0
}
