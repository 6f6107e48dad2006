package analysis

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineWriter sends each line written to it on a channel.
type lineWriter struct {
	mu    sync.Mutex
	part  []byte
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- string(w.part[:i])
		w.part = w.part[i+1:]
	}
}

func TestFollowLive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	var driven atomic.Bool
	driven.Store(true)
	w := &lineWriter{lines: make(chan string, 100)}
	done := make(chan error, 1)
	var status string
	go func() {
		var err error
		status, err = Follow(context.Background(), dir, w, FollowOptions{Driven: driven.Load, Interval: time.Millisecond, ID: "r9"})
		done <- err
	}()
	next := func() string {
		t.Helper()
		select {
		case l := <-w.lines:
			return l
		case <-time.After(time.Minute):
			t.Fatal("Follow printed nothing")
		}
		return ""
	}

	// The file appears after Follow started; a line comes in two writes.
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md","message":"/wf"}`+"\n"), 0o644))
	assert.Equal(t, "10:00:00 run started at START.md: /wf", next())
	appendFile(t, path, `{"time":"2026-11-21T10:00:01Z","type":"transition","agent":"main",`)
	appendFile(t, path, `"state":"START.md","tag":"goto","target":"END.md","cost_usd":0.5,"total_cost_usd":0.5}`+"\n")
	assert.Equal(t, "10:00:01 [main] START.md -> END.md (goto)  $0.5000, total $0.5000", next())
	appendFile(t, path, "garbage\n")
	assert.Equal(t, "(a line of events.jsonl does not decode; skipped)", next())

	// run_ended while the process still holds the lock ends the follow.
	appendFile(t, path, `{"time":"2026-11-21T10:00:02Z","type":"run_ended","status":"completed","total_cost_usd":0.5}`+"\n")
	assert.Equal(t, "10:00:02 run ended: completed, $0.5000", next())
	assert.Equal(t, "raymond: run r9 ended: completed", next())
	require.NoError(t, <-done)
	assert.Equal(t, "completed", status)
}

func TestFollowStops(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events string
		want   string
		status string
	}{
		{"no events", "", "raymond: no process drives run r9 and it has no events yet", ""},
		{"crashed", `{"time":"2026-11-21T10:00:00Z","type":"run_started"}` + "\n",
			"raymond: no process drives run r9 any more and it has not ended: it stopped without ending (crashed or killed); `raymond resume r9` continues it", ""},
		{"torn", `{"time":"2026-11-21T10:00:00Z","type":"run_started"}` + "\n" + `{"ti`,
			"raymond: no process drives run r9 any more; its events end in a torn line (4 bytes): it stopped without ending (crashed or killed); `raymond resume r9` continues it", ""},
		{"paused", `{"time":"2026-11-21T10:00:00Z","type":"paused"}` + "\n" + `{"time":"2026-11-21T10:00:00Z","type":"run_ended","status":"paused"}` + "\n",
			"raymond: run r9 ended: paused", "paused"},
		{"failed", `{"time":"2026-11-21T10:00:00Z","type":"run_ended","status":"failed"}` + "\n", "raymond: run r9 ended: failed", "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.events != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(tc.events), 0o644))
			}
			var b bytes.Buffer
			status, err := Follow(context.Background(), dir, &b, FollowOptions{ID: "r9"})
			require.NoError(t, err)
			assert.Equal(t, tc.status, status)
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			assert.Equal(t, tc.want, lines[len(lines)-1])
			// An event without a message says what happened, no more.
			assert.NotContains(t, b.String(), ": \n")
		})
	}
}

func TestFollowCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Follow(ctx, t.TempDir(), &bytes.Buffer{}, FollowOptions{Driven: func() bool { return true }})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestFollowARun(t *testing.T) {
	rn := forkRun(t)
	var b bytes.Buffer
	status, err := Follow(context.Background(), rn.dir, &b, FollowOptions{})
	require.NoError(t, err)
	assert.Equal(t, "completed", status)
	out := b.String()
	assert.Contains(t, out, " [main] started main_worker1 at WORKER.md\n")
	assert.Contains(t, out, " [main_worker2] completed at WORKER.md: b done\n")
	assert.True(t, strings.HasSuffix(out, "raymond: run r1 ended: completed\n"), out)
}
