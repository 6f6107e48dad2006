package claude

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// FuzzDecodeLine feeds arbitrary bytes to the decoder as stdout lines, then
// settles the result as Run does. Whatever the CLI writes, decoding must not
// panic, the outcome must be one of the named ones, and the step cost must be
// a finite number, not negative. The seed corpus is in testdata/fuzz/FuzzDecodeLine.
func FuzzDecodeLine(f *testing.F) {
	f.Add([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":0.1}`), 0)
	ended := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte, exit int) {
		res := &Result{Ended: ended, ExitCode: exit}
		st := newStream(res, func(e Event) {
			if e.Kind.String() == "" {
				t.Errorf("event with an unnamed kind %d", int(e.Kind))
			}
		})
		for line := range bytes.Lines(data) {
			res.Lines++
			st.decode(bytes.TrimSuffix(line, []byte("\n")))
		}
		res.settle(ending{}, st.resetAt)
		if _, ok := outcomeNames[res.Outcome]; !ok {
			t.Fatalf("settled to %v", res.Outcome)
		}
		if !res.HasResult && res.Outcome != Crash && res.Outcome != InvocationError && res.Outcome != SessionNotFound {
			t.Errorf("outcome %v without a result line", res.Outcome)
		}
		for _, known := range []bool{false, true} {
			if c := StepCost(res, 0.5, known); c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
				t.Errorf("StepCost(known=%v) = %v", known, c)
			}
		}
	})
}
