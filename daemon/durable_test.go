package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"raymond/state"
)

// An answer to a run the daemon drives is acknowledged only once it is in
// the run's state on disk: a daemon killed just after the acknowledgement
// must not lose it. The run's loop is held (its live stream is locked) once
// it has taken the answer, before it saves it; Answer must not return until
// the loop has saved.
func TestAnswerIsOnDiskWhenAcknowledged(t *testing.T) {
	p, wf, r := testProject(t, map[string]string{
		"START.md": "Ask.\n",
		"END.md":   "Use {{input}}.\n",
	}, `replies:
  START.md: ["<ask next=\"END.md\">Which colour?</ask>"]
  END.md: ["<result>{{input}}</result>"]
`)
	d := openDaemon(t, p, r)
	go func() { _ = d.Watch(t.Context()) }()
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	var asks []PendingAsk
	require.Eventually(t, func() bool {
		asks = d.Asks()
		return len(asks) == 1
	}, 20*time.Second, 5*time.Millisecond)
	d.mu.Lock()
	rd := d.runs[id]
	d.mu.Unlock()
	require.NotNil(t, rd, "the daemon drives the asking run")

	// answered reports, as Answer returns, whether the state on disk
	// holds the answer.
	type answered struct {
		err    error
		onDisk bool
	}
	done := make(chan answered, 1)
	rd.stream.mu.Lock()
	go func() {
		err := d.Answer(id, asks[0].AskID, "blue")
		got, rerr := p.Store.Read(id)
		require.NoError(t, rerr)
		onDisk := false
		for _, a := range got.Agents {
			if a.Ask != nil && a.Ask.ID == asks[0].AskID && a.Ask.Answer != nil && *a.Ask.Answer == "blue" {
				onDisk = true
			}
		}
		done <- answered{err, onDisk}
	}()
	taken := func() bool {
		rd.asker.mu.Lock()
		defer rd.asker.mu.Unlock()
		return rd.asker.given[asks[0].AskID] && len(rd.asker.answers) == 0
	}
	var got answered
	for waiting := true; waiting; {
		select {
		case got = <-done: // returned while the loop cannot save
			rd.stream.mu.Unlock()
			waiting = false
		case <-time.After(time.Millisecond): // polling interval
			if taken() {
				rd.stream.mu.Unlock()
				got = <-done
				waiting = false
			}
		}
	}
	require.NoError(t, got.err)
	require.True(t, got.onDisk, "the answer was acknowledged before it was saved")
	final := waitStatus(t, d, id, state.StatusCompleted)
	require.Equal(t, "blue", *final.Result)
}

// Alive answers while the state folder's watch loop and its reader do,
// and fails once the reader is stuck (here on the index's lock): the
// watchdog then stops pinging systemd.
func TestAlive(t *testing.T) {
	p, _, r := testProject(t, twoSteps, twoStepReplies)
	d := openDaemon(t, p, r)
	require.NoError(t, d.Alive(context.Background()), "no watch loop: nothing to ask")
	ctx, stop := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		_ = d.Watch(ctx)
	}()
	defer func() {
		stop()
		<-watched
	}()
	require.Eventually(t, d.index.watching.Load, 20*time.Second, time.Millisecond)
	require.NoError(t, d.Alive(context.Background()))

	d.index.touch("20261128-000000-000000-abcdef") // the reader reads it, and blocks on the lock
	d.index.mu.Lock()
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		return d.Alive(ctx) != nil
	}, 20*time.Second, time.Millisecond, "a stuck reader is taken for alive")
	d.index.mu.Unlock()
	require.NoError(t, d.Alive(context.Background()))
}
