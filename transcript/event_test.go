package transcript

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fullEvent has every field set.
func fullEvent() Event {
	until := time.Date(2026, 1, 15, 19, 0, 0, 0, time.UTC)
	return Event{
		Time: time.Date(2026, 1, 15, 14, 30, 22, 123_000_000, time.UTC), Type: EventStepEnded,
		Agent: "main", Step: "main_START_001", State: "START.md", Tag: "goto", Target: "NEXT.md",
		Child: "main_worker1", Parent: "main", Session: "7c0e", Attempt: 2, Outcome: "usage limit",
		CostUSD: ptr(0.05), TotalCostUSD: ptr(0.0), DurationMS: 1500, InputTokens: 10, OutputTokens: 20,
		Depth: 1, Until: &until, Payload: ptr("<done/> & more"), Status: "paused", Message: "limit",
	}
}

func TestEventsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	want := []Event{
		{Time: time.Date(2026, 1, 15, 14, 30, 0, 0, time.UTC), Type: EventRunStarted},
		fullEvent(),
		{Time: time.Date(2026, 1, 15, 14, 31, 0, 0, time.UTC), Type: EventRunEnded, Status: "completed"},
	}
	for _, e := range want {
		w.Event(e)
	}
	must(t, w.Close())

	got, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i, we := range want {
		ge := got[i]
		if !ge.Time.Equal(we.Time) {
			t.Errorf("event %d: time %v, want %v", i, ge.Time, we.Time)
		}
		if (ge.Until == nil) != (we.Until == nil) || ge.Until != nil && !ge.Until.Equal(*we.Until) {
			t.Errorf("event %d: until %v, want %v", i, ge.Until, we.Until)
		}
		ge.Time, ge.Until = we.Time, we.Until
		equal(t, ge, we, "event")
	}
}

// TestEventSchema pins the JSON names: raymond transcript and users' scripts
// read them.
func TestEventSchema(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	w.Event(fullEvent())
	w.Event(Event{Time: time.Date(2026, 1, 15, 14, 30, 0, 0, time.UTC), Type: EventWarning})
	must(t, w.Close())

	want := `{"time":"2026-01-15T14:30:22.123Z","type":"step_ended","agent":"main",` +
		`"step":"main_START_001","state":"START.md","tag":"goto","target":"NEXT.md",` +
		`"child":"main_worker1","parent":"main","session":"7c0e","attempt":2,` +
		`"outcome":"usage limit","cost_usd":0.05,"total_cost_usd":0,"duration_ms":1500,` +
		`"input_tokens":10,"output_tokens":20,"depth":1,"until":"2026-01-15T19:00:00Z",` +
		`"payload":"<done/> & more","status":"paused","message":"limit"}` + "\n" +
		`{"time":"2026-01-15T14:30:00Z","type":"warning"}` + "\n"
	equal(t, readFile(t, dir, EventsFile), want, EventsFile)
}

func TestEventTimeDefaultsToNow(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	before := time.Now()
	w.Event(Event{Type: EventPaused})
	after := time.Now()
	must(t, w.Close())

	got, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(got) != 1 || got[0].Time.Before(before) || got[0].Time.After(after) {
		t.Fatalf("events %+v, want one between %v and %v", got, before, after)
	}
}

func TestReadEvents(t *testing.T) {
	line := func(typ string) string {
		return `{"time":"2026-01-15T14:30:00Z","type":"` + typ + `"}`
	}
	tests := []struct {
		name    string
		content string
		want    []string // types
		wantErr string
	}{
		{name: "empty", content: ""},
		{name: "complete", content: line("a") + "\n" + line("b") + "\n", want: []string{"a", "b"}},
		{name: "torn last line", content: line("a") + "\n" + line("b")[:20], want: []string{"a"}},
		{name: "only a torn line", content: `{"time":"20`},
		{name: "last line whole but no newline", content: line("a") + "\n" + line("b"), want: []string{"a"}},
		{name: "blank lines", content: "\n" + line("a") + "\n\n  \n" + line("b") + "\n", want: []string{"a", "b"}},
		{name: "corrupt line in the middle", content: line("a") + "\n{oops\n" + line("b") + "\n", wantErr: "line 2"},
		{name: "corrupt last line with newline", content: line("a") + "\n" + line("b")[:20] + "\n", wantErr: "line 2"},
		{name: "wrong type", content: `{"time":"2026-01-15T14:30:00Z","type":3}` + "\n", wantErr: "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), EventsFile)
			must(t, os.WriteFile(path, []byte(tt.content), 0o644))
			events, err := ReadEvents(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			must(t, err)
			var types []string
			for _, e := range events {
				types = append(types, e.Type)
			}
			equal(t, types, tt.want, "types")
		})
	}
}

func TestReadEventsMissingFile(t *testing.T) {
	_, err := ReadEvents(filepath.Join(t.TempDir(), EventsFile))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %v, want a missing file", err)
	}
}

func TestEventEncodeError(t *testing.T) {
	var warnings []error
	w := Open(t.TempDir(), func(err error) { warnings = append(warnings, err) })
	defer w.Close()
	w.Event(Event{Type: EventStepEnded, CostUSD: ptr(math.NaN())})
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "step_ended") {
		t.Fatalf("warnings %v, want one about the step_ended event", warnings)
	}
}

// TestLiveEventsDropped: the writer keeps the events a reader of
// events.jsonl needs, drops the live ones, and never writes the run id (the
// folder is named for it); the fields added with the live stream round-trip.
func TestLiveEventsDropped(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	at := time.Date(2026, 1, 15, 14, 30, 0, 0, time.UTC)
	started := Event{Time: at, Type: EventStepStarted, Run: "r1", Agent: "main", State: "START.md",
		Seq: 2, Mode: "resume", Model: "opus", Reminder: true, Attempt: 1}
	retry := Event{Time: at, Type: EventRetry, Agent: "main", State: "START.md", Attempt: 2, Max: 3, DelayMS: 5000}
	spawn := Event{Time: at, Type: EventSpawn, Agent: "main", Child: "main_w2", State: "W.md", Vars: map[string]string{"k": "v"}}
	ended := Event{Time: at, Type: EventRunEnded, Status: "completed"}
	for _, e := range []Event{
		started,
		{Time: at, Type: EventText, Agent: "main", Message: "thinking"},
		retry, spawn, ended,
		{Time: at, Type: EventSummary, Run: "r1", Steps: 2, Agents: 1, Failures: []Failure{{Agent: "main"}}},
	} {
		w.Event(e)
	}
	must(t, w.Close())
	if got := readFile(t, dir, EventsFile); strings.Contains(got, "r1") || strings.Contains(got, "thinking") {
		t.Errorf("events.jsonl holds the run id or a live event:\n%s", got)
	}
	got, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	started.Run = ""
	equal(t, got, []Event{started, retry, spawn, ended}, "events")
}
