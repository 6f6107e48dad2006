package analysis

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The critical path of a long run, with long step names and hours of
// steps and gaps, fits 80 columns, its title on one line.
func TestCriticalPathFits80Columns(t *testing.T) {
	const agent = "main_reviewer_frontend_components3"
	t0 := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	clock := func(s int) string { return t0.Add(time.Duration(s) * time.Second).Format(time.RFC3339) }
	var ev strings.Builder
	ev.WriteString(`{"time":"2026-01-15T10:00:00Z","type":"run_started","state":"START.md"}` + "\n")
	at := 0
	for i := 1; i <= 12; i++ {
		st := fmt.Sprintf("STATE_%d_WITH_A_RATHER_LONG_NAME.md", i)
		name := fmt.Sprintf("%s_STATE_%d_WITH_A_RATHER_LONG_NAME_%03d", agent, i, i)
		fmt.Fprintf(&ev, `{"time":"%s","type":"step_started","agent":"%s","step":"%s","state":"%s","attempt":1,"seq":%d}`+"\n",
			clock(at), agent, name, st, i)
		at += 12345
		fmt.Fprintf(&ev, `{"time":"%s","type":"step_ended","agent":"%s","step":"%s","state":"%s","attempt":1,"outcome":"success","duration_ms":12345000}`+"\n",
			clock(at), agent, name, st)
		at += 600
	}
	fmt.Fprintf(&ev, `{"time":"%s","type":"run_ended","status":"completed"}`+"\n", clock(at))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"events.jsonl": ev.String()})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{Width: 80}))
	out := b.String()
	i := strings.Index(out, "\nCritical path: ")
	require.GreaterOrEqual(t, i, 0, out)
	section := strings.Split(strings.TrimSpace(out[i:]), "\n")
	assert.Equal(t, "Critical path: 12 steps, 1d17h in steps + 1h50m between, of 1d19h wall", section[0])
	for _, l := range section {
		assert.LessOrEqual(t, width(l), 80, "%q", l)
	}
}
