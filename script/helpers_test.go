package script

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"raymond/state"
	"raymond/step"
)

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// request returns a step request that runs body as POLL.sh from a file in
// a temporary folder, in another temporary folder as its working directory.
func request(t *testing.T, body string) step.Request {
	t.Helper()
	path := filepath.Join(t.TempDir(), "POLL.sh")
	must(t, os.WriteFile(path, []byte(body), 0o644))
	return step.Request{
		RunID: "run-test-" + strconv.FormatInt(time.Now().UnixNano(), 36), Agent: "main", Seq: 1,
		Step:    state.Step{Ref: state.Ref{State: "POLL.sh"}, Cwd: t.TempDir()},
		Options: state.Options{Timeout: state.Duration(time.Minute)},
		Script:  &step.Script{Path: path, Body: []byte(body)},
	}
}

// withTimeout sets the state's own idle timeout of req.
func withTimeout(req step.Request, d time.Duration) step.Request {
	sd := state.Duration(d)
	req.Step.Timeout = &sd
	return req
}

// recorder keeps what a step hands its handler.
type recorder struct {
	mu     sync.Mutex
	stdout []byte
	stderr []byte
	prints []string
}

func (r *recorder) handler() step.Handler {
	return step.Handler{
		OnOutput: func(stderr bool, chunk []byte) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if stderr {
				r.stderr = append(r.stderr, chunk...)
			} else {
				r.stdout = append(r.stdout, chunk...)
			}
		},
		OnEvent: func(e step.Event) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if e.Kind == step.EventPrint {
				r.prints = append(r.prints, e.Text)
			}
		},
	}
}

func (r *recorder) sortedPrints() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.prints))
}

// run runs req with a runner whose grace period is short.
func run(t *testing.T, ctx context.Context, req step.Request, h step.Handler) step.Result {
	t.Helper()
	r := &Runner{KillGrace: 200 * time.Millisecond}
	return r.Run(ctx, req, h)
}

// envOf reads the lines of `env` into a map.
func envOf(text string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if ok {
			m[k] = v
		}
	}
	return m
}
