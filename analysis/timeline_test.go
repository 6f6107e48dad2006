package analysis

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A timeline with more agents than rows draws those worth seeing: main,
// the agents of the critical path and those with a failed step, however
// late they come in the path's order, and says what it left out.
func TestTimelineDrawsTheTellingAgents(t *testing.T) {
	r := htmlWideRun(60)
	for _, i := range []int{44, 52} {
		s := htmlStepNamed(r, r.Agents[i].StepNames[0])
		s.Outcome, s.Retried = "crash", true
	}
	onPath := r.Agents[57]
	r.CriticalPath = []string{"main_START_001", onPath.StepNames[0], "main_REPORT_002"}
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{Width: 100}))
	out := b.String()
	timeline := out[strings.Index(out, "\nTimeline"):strings.Index(out, "\nCritical path")]
	rows := regexp.MustCompile(`(?m)^  (main\S*) `).FindAllStringSubmatch(timeline, -1)
	assert.Len(t, rows, maxTimelineRows)
	var ids []string
	for _, m := range rows {
		ids = append(ids, m[1])
	}
	assert.Equal(t, "main", ids[0])
	assert.Subset(t, ids, []string{"main_worker44", "main_worker52", onPath.ID})
	assert.Contains(t, timeline, "… 40 more agents not drawn; drawn are main, the agents of the critical path and of\n")
}

// One agent more than the rows is drawn rather than left out.
func TestTimelineDrawsOneMoreRow(t *testing.T) {
	r := htmlWideRun(maxTimelineRows + 1)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	assert.NotContains(t, b.String(), "not drawn")
	assert.Contains(t, b.String(), "\n  main_worker20 ")
}
