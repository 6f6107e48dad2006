package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A line that names the state itself says it once, whether the error was
// led by the workflow and the state, as a raymond writes it now, or by the
// state alone, as an older one did.
func TestFailureReason(t *testing.T) {
	for _, tc := range []struct{ state, err, want string }{
		{"NEXT.md", "workflow wf: NEXT.md: the answer has no transition tag", "the answer has no transition tag"},
		{"NEXT.md", "NEXT.md: the answer has no transition tag", "the answer has no transition tag"},
		{"NEXT.sh", "workflow wf: NEXT.sh exited with status 3", "NEXT.sh exited with status 3"},
		{"CHECK.md", "workflow https://example.com/wf/review-aa.zip: CHECK.md: no output for 10m", "no output for 10m"},
		{"A.md", "workflow wf: ask ask_main_1: no answer within 48h", "workflow wf: ask ask_main_1: no answer within 48h"},
		{"", "workflow wf: something", "workflow wf: something"},
	} {
		assert.Equal(t, tc.want, Failure{State: tc.state, Error: tc.err}.Reason(), tc.err)
	}
}
