package scripted

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
)

func TestRunCanceledDuringDelay(t *testing.T) {
	r := parse(t, `
replies:
  S.md:
    - {text: one, say: [one], delay: 1h}
    - two
    - three
`)
	// Step A takes "one" and waits in its delay.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting := make(chan struct{})
	recA := &recorder{onEvent: func(e claude.Event) {
		if e.Kind == claude.EventText { // "one", the last line before the delay
			close(waiting)
		}
	}}
	done := make(chan *claude.Result, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		res, err := r.play(ctx, request("S.md", nil), recA.handler())
		assert.NoError(t, err)
		done <- res
	})
	<-waiting

	// Step B asks meanwhile and gets the next reply; then A is canceled.
	assert.Equal(t, "two", answer(t, r, "S.md"))
	cancel()
	res := <-done
	wg.Wait()
	assert.Equal(t, claude.Canceled, res.Outcome)
	assert.False(t, res.HasResult)
	assert.Nil(t, res.CallCostUSD)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "SIGTERM", res.Signal)
	assert.Equal(t, testSession, res.SessionID, "the session id comes from the init line, as for a real process")
	assert.Equal(t, 2, res.Lines)
	assert.Len(t, recA.lines, 2)

	// "one" went back to the front of the queue: the step run again gets it,
	// not "three". This one is canceled as soon as it starts.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	rec := &recorder{onEvent: func(e claude.Event) {
		if e.Kind == claude.EventInit {
			cancel2()
		}
	}}
	res, err := r.play(ctx2, request("S.md", nil), rec.handler())
	require.NoError(t, err)
	assert.Equal(t, claude.Canceled, res.Outcome)
	assert.Equal(t, []string{"one"}, rec.texts(claude.EventText))

	assert.Equal(t, []Unused{
		{State: "S.md", Index: 1, Text: "one", Used: 0, Times: 1},
		{State: "S.md", Index: 3, Text: "three", Used: 0, Times: 1},
	}, r.Unused(), "a canceled step uses no reply")
}

func TestRunCanceledBeforeStart(t *testing.T) {
	r := parse(t, "replies:\n  S.md: [one]\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &recorder{}
	res, err := r.play(ctx, request("S.md", nil), rec.handler())
	require.NoError(t, err)
	assert.Equal(t, claude.Canceled, res.Outcome)
	assert.Equal(t, -1, res.ExitCode)
	assert.Empty(t, rec.lines)
	assert.Empty(t, rec.events)
	assert.Equal(t, "one", answer(t, r, "S.md"))
}

// TestRunConcurrent runs many agents at once on shared queues, half of
// their steps canceled during a delay, under -race. SLOW offers one step per
// agent, so it never runs out while every agent has one in flight.
func TestRunConcurrent(t *testing.T) {
	const agents, steps = 8, 25
	r := parse(t, fmt.Sprintf(`
replies:
  WORKER.md:
    - {text: "{{item}} done", times: %d, say: ["{{item}}…"], tools: [{name: Bash, input: {command: "ls {{item}}"}}]}
    - last
  SLOW.md:
    - {text: slow, times: %d, delay: 1h}
`, agents*steps, agents))

	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() {
			item := fmt.Sprintf("item%d", i)
			for range steps {
				res, rec := run(t, r, request("WORKER.md", map[string]string{"item": item}))
				assert.Equal(t, item+" done", res.Text)
				assert.Equal(t, []string{item + "…", item + " done"}, rec.texts(claude.EventText))

				ctx, cancel := context.WithCancel(context.Background())
				rec = &recorder{onEvent: func(e claude.Event) {
					if e.Kind == claude.EventInit {
						cancel()
					}
				}}
				res, err := r.play(ctx, request("SLOW.md", nil), rec.handler())
				cancel()
				assert.NoError(t, err)
				assert.Equal(t, claude.Canceled, res.Outcome)
			}
		})
	}
	wg.Wait()

	assert.Equal(t, []Unused{
		{State: "WORKER.md", Index: 2, Text: "last", Used: 0, Times: 1},
		{State: "SLOW.md", Index: 1, Text: "slow", Used: 0, Times: agents},
	}, r.Unused())
	assert.Equal(t, "last", answer(t, r, "WORKER.md"))
	assert.Equal(t, "[invocation error]", answer(t, r, "WORKER.md"))
}
