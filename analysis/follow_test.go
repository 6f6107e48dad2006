package analysis

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
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

// followAsync runs Follow in a goroutine and returns a function that waits
// for its next line and one that waits for its end.
func followAsync(t *testing.T, dir string, o FollowOptions) (next func() string, end func() (string, error)) {
	t.Helper()
	w := &lineWriter{lines: make(chan string, 100)}
	type result struct {
		status string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		status, err := Follow(context.Background(), dir, w, o)
		done <- result{status, err}
	}()
	next = func() string {
		t.Helper()
		select {
		case l := <-w.lines:
			return l
		case <-time.After(time.Minute):
			t.Fatal("Follow printed nothing")
		}
		return ""
	}
	end = func() (string, error) {
		t.Helper()
		select {
		case r := <-done:
			return r.status, r.err
		case <-time.After(time.Minute):
			t.Fatal("Follow did not return")
		}
		return "", nil
	}
	return next, end
}

// TestFollowWatches: Follow learns of new events from the file system, not
// by looking again and again: with an hour between its checks of the
// driver, it still prints each event as it is written, in a folder that
// did not exist when it started.
func TestFollowWatches(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".raymond", "debug", "r9")
	var checks atomic.Int32
	next, end := followAsync(t, dir, FollowOptions{ID: "r9", Interval: time.Hour,
		Driven: func() bool { checks.Add(1); return true }})

	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "events.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md","message":"/wf"}`+"\n"), 0o644))
	assert.Equal(t, "10:00:00 run started at START.md: /wf", next())
	appendFile(t, path, `{"time":"2026-11-21T10:00:01Z","type":"spawn","agent":"main",`)
	appendFile(t, path, `"child":"main_w1","state":"W.md"}`+"\n")
	assert.Equal(t, "10:00:01 [main] started main_w1 at W.md", next())
	appendFile(t, path, `{"time":"2026-11-21T10:00:02Z","type":"run_ended","status":"failed","total_cost_usd":0}`+"\n")
	assert.Equal(t, "10:00:02 run ended: failed, $0.0000", next())
	assert.Equal(t, "raymond: run r9 ended: failed", next())
	status, err := end()
	require.NoError(t, err)
	assert.Equal(t, "failed", status)
	assert.Equal(t, int32(1), checks.Load(), "the driver is checked once an interval, not once a change")
}

// TestFollowResumed: the run_ended of an earlier process does not end the
// follow of a run driven again; the one its new process writes does.
func TestFollowResumed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2026-11-21T10:00:00Z","type":"run_ended","status":"paused"}`+"\n"), 0o644))
	next, end := followAsync(t, dir, FollowOptions{ID: "r9", Interval: time.Hour, Driven: func() bool { return true }})
	assert.Equal(t, "10:00:00 run ended: paused", next())
	appendFile(t, path, `{"time":"2026-11-21T11:00:00Z","type":"run_resumed","message":"/wf"}`+"\n")
	assert.Equal(t, "11:00:00 run resumed: /wf", next())
	appendFile(t, path, `{"time":"2026-11-21T11:00:01Z","type":"run_ended","status":"completed"}`+"\n")
	assert.Equal(t, "11:00:01 run ended: completed", next())
	assert.Equal(t, "raymond: run r9 ended: completed", next())
	status, err := end()
	require.NoError(t, err)
	assert.Equal(t, "completed", status)
}

// TestFollowDriverGone: a driver killed without writing run_ended ends the
// follow at the next check, after the events it did write.
func TestFollowDriverGone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2026-11-21T10:00:00Z","type":"run_started"}`+"\n"), 0o644))
	var gone atomic.Bool
	next, end := followAsync(t, dir, FollowOptions{ID: "r9", Interval: time.Millisecond, Driven: func() bool { return !gone.Load() }})
	assert.Equal(t, "10:00:00 run started", next())
	appendFile(t, path, `{"time":"2026-11-21T10:00:01Z","type":"wait_over"}`+"\n")
	gone.Store(true)
	assert.Equal(t, "10:00:01 usage limit wait over; steps start again", next())
	assert.Equal(t, "raymond: no process drives run r9 any more and it has not ended: it stopped without ending (crashed or killed); `raymond resume r9` continues it", next())
	status, err := end()
	require.NoError(t, err)
	assert.Empty(t, status)
}

// TestFollowPolls: where folders cannot be watched, Follow reads the file
// now and then instead.
func TestFollowPolls(t *testing.T) {
	defer func(f func() (*fsnotify.Watcher, error)) { newWatcher = f }(newWatcher)
	newWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") }
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	next, end := followAsync(t, dir, FollowOptions{ID: "r9", Interval: time.Hour, Driven: func() bool { return true }})
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2026-11-21T10:00:00Z","type":"run_started"}`+"\n"), 0o644))
	assert.Equal(t, "10:00:00 run started", next())
	appendFile(t, path, `{"time":"2026-11-21T10:00:01Z","type":"run_ended","status":"completed"}`+"\n")
	assert.Equal(t, "10:00:01 run ended: completed", next())
	assert.Equal(t, "raymond: run r9 ended: completed", next())
	_, err := end()
	require.NoError(t, err)
}

// BenchmarkFollowLatency is the time from an event's write to its line
// from Follow: one op is one event appended and printed.
func BenchmarkFollowLatency(b *testing.B) {
	for _, tc := range []struct {
		name  string
		watch bool
	}{{"watch", true}, {"poll", false}} {
		b.Run(tc.name, func(b *testing.B) {
			if !tc.watch {
				defer func(f func() (*fsnotify.Watcher, error)) { newWatcher = f }(newWatcher)
				newWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("no watching") }
			}
			dir := b.TempDir()
			path := filepath.Join(dir, "events.jsonl")
			require.NoError(b, os.WriteFile(path, nil, 0o644))
			w := &lineWriter{lines: make(chan string, 100)}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = Follow(ctx, dir, w, FollowOptions{Interval: time.Hour, Driven: func() bool { return true }})
			}()
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(b, err)
			defer f.Close()
			line := []byte(`{"time":"2026-11-21T10:00:00Z","type":"wait_over"}` + "\n")
			for b.Loop() {
				_, err := f.Write(line)
				require.NoError(b, err)
				<-w.lines
			}
			cancel()
			<-done
		})
	}
}
