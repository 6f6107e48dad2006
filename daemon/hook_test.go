package daemon

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/project"
)

func testHooks(t *testing.T, d *Daemon, cat *fakeCatalog, filter ...string) *Hooks {
	t.Helper()
	tmpl, err := project.ParseInputTemplate("Fix #{{.issue.number}}: {{.issue.title}}")
	require.NoError(t, err)
	h := project.Hook{Name: "gh", Workflow: "wf", Input: tmpl}
	for _, f := range filter {
		c, err := project.ParseCondition(f)
		require.NoError(t, err)
		h.Filter = append(h.Filter, c)
	}
	return d.NewHooks([]project.Hook{h}, map[string][]byte{"gh": []byte("s3cret")}, cat)
}

const issuePayload = `{"action": "labeled", "label": {"name": "raymond"}, "issue": {"number": 42, "title": "Crash"}}`

func TestHookLaunchesOnceADelivery(t *testing.T) {
	d, cat, _, _ := scheduleDaemon(t, quickReplies)
	h := testHooks(t, d, cat, "action == labeled", "label.name == raymond")
	res, err := h.Deliver("gh", "d-1", []byte(issuePayload))
	require.NoError(t, err)
	assert.Equal(t, "launched", res.Result)
	runs := launched(t, d)
	require.Len(t, runs, 1)
	assert.Equal(t, runs[0].WorkflowID, res.RunID)
	assert.Equal(t, "Fix #42: Crash", *runs[0].Options.Input)

	res, err = h.Deliver("gh", "d-1", []byte(issuePayload))
	require.NoError(t, err)
	assert.Equal(t, "duplicate", res.Result)
	// Remembered across a restart.
	res, err = testHooks(t, d, cat).Deliver("gh", "d-1", []byte(issuePayload))
	require.NoError(t, err)
	assert.Equal(t, "duplicate", res.Result)
	assert.Len(t, launched(t, d), 1)

	res, err = h.Deliver("gh", "d-2", []byte(`{"action": "opened", "issue": {"number": 1, "title": "x"}}`))
	require.NoError(t, err)
	assert.Equal(t, "filtered", res.Result)
	assert.Contains(t, res.Message, `"action == labeled"`)

	_, err = h.Deliver("gh", "d-3", []byte(`{"action": "labeled", "label": {"name": "raymond"}}`))
	assert.ErrorIs(t, err, ErrInvalid, "no issue in the payload: the input cannot be made")
	_, err = h.Deliver("gh", "d-4", []byte(`not json`))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Len(t, launched(t, d), 1)
}

func TestHookBounds(t *testing.T) {
	d, cat, clock, _ := scheduleDaemon(t, quickReplies)
	h := testHooks(t, d, cat)
	for i := range hookBurst {
		_, err := h.Deliver("gh", "burst-"+string(rune('a'+i)), []byte(issuePayload))
		require.NoError(t, err)
	}
	_, err := h.Deliver("gh", "one-more", []byte(issuePayload))
	var tm *TooManyError
	require.ErrorAs(t, err, &tm)
	assert.True(t, errors.Is(err, ErrTooMany))
	assert.Equal(t, hookRefill, tm.Retry)
	clock.advance(hookRefill)
	res, err := h.Deliver("gh", "one-more", []byte(issuePayload))
	require.NoError(t, err, "refused, it was not remembered: sent again later, it launches")
	assert.Equal(t, "launched", res.Result)

	// The ids kept are bounded.
	h.mu.Lock()
	for i := range maxDeliveries + 5 {
		h.add(delivery{Hook: "gh", ID: fmt.Sprint("x", i), At: clock.Now()})
	}
	assert.Len(t, h.seen, maxDeliveries)
	assert.Len(t, h.ids, maxDeliveries)
	h.add(delivery{Hook: "gh", ID: "late", At: clock.Now().Add(deliveryAge + time.Second)})
	assert.Len(t, h.seen, 1, "ids older than a week are dropped")
	h.mu.Unlock()
}

// BenchmarkRememberFull measures keeping one more delivery id when the
// hooks keep the most they do: the file of ids is written and synced whole.
func BenchmarkRememberFull(b *testing.B) {
	p, _, r := testProject(b, map[string]string{"START.md": "Go.\n"}, quickReplies)
	d, err := Open(Config{Project: p, Runner: r})
	require.NoError(b, err)
	b.Cleanup(func() { d.Close() })
	h := d.NewHooks(nil, nil, &fakeCatalog{})
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range maxDeliveries {
		h.add(delivery{Hook: "github", ID: fmt.Sprintf("%08x-0000-0000-0000-000000000000", i), At: now})
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		h.remember(delivery{Hook: "github", ID: fmt.Sprintf("next-%d", i), At: now})
	}
}
