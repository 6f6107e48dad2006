package state

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	s := openStore(t)
	want := fullRun("run-1")
	requireNoZeroFields(t, want)

	must(t, s.Write(want))
	got, err := s.Read("run-1")
	must(t, err)
	if !reflect.DeepEqual(want, got) {
		w, _ := json.MarshalIndent(want, "", " ")
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("round trip changed the run\nwant %s\ngot  %s", w, g)
	}
}

func TestWriteStamps(t *testing.T) {
	s := openStore(t)
	r := &Run{WorkflowID: "x", Status: StatusCreated}
	before := time.Now().Truncate(time.Microsecond)
	must(t, s.Write(r))

	if r.Version != Version {
		t.Errorf("version = %d, want %d", r.Version, Version)
	}
	if r.UpdatedAt.Before(before) || r.UpdatedAt.Location() != time.UTC {
		t.Errorf("updated_at = %v, want UTC and not before %v", r.UpdatedAt, before)
	}
	if !r.CreatedAt.Equal(r.UpdatedAt) {
		t.Errorf("created_at = %v, want it set to updated_at %v", r.CreatedAt, r.UpdatedAt)
	}

	created := r.CreatedAt
	must(t, s.Write(r))
	if !r.CreatedAt.Equal(created) {
		t.Errorf("second write changed created_at from %v to %v", created, r.CreatedAt)
	}
}

func TestWriteInvalidID(t *testing.T) {
	s := openStore(t)
	for _, id := range []string{"", "../escape", "a/b"} {
		wantErr(t, s.Write(&Run{WorkflowID: id}), "run id")
		wantErr(t, s.Create(&Run{WorkflowID: id}), "run id")
	}
	if names := dirNames(t, s.Dir); len(names) != 0 {
		t.Errorf("files written for invalid ids: %q", names)
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		json    string
		want    time.Duration
		wantErr string
	}{
		{json: `"10m0s"`, want: 10 * time.Minute},
		{json: `"90s"`, want: 90 * time.Second},
		{json: `"0s"`, want: 0},
		{json: `"1h2m3.5s"`, want: time.Hour + 2*time.Minute + 3500*time.Millisecond},
		{json: `"ten"`, wantErr: `invalid duration "ten"`},
		{json: `""`, wantErr: `invalid duration ""`},
		{json: `600`, wantErr: "cannot unmarshal number"},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			var d Duration
			err := json.Unmarshal([]byte(tt.json), &d)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			must(t, err)
			if time.Duration(d) != tt.want {
				t.Errorf("got %v, want %v", time.Duration(d), tt.want)
			}
		})
	}

	out, err := json.Marshal(Options{Timeout: Duration(10 * time.Minute)})
	must(t, err)
	if !strings.Contains(string(out), `"timeout":"10m0s"`) {
		t.Errorf("marshalled options %s lack \"timeout\":\"10m0s\"", out)
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		s                   Status
		terminal, resumable bool
	}{
		{StatusCreated, false, true},
		{StatusRunning, false, true},
		{StatusPaused, false, true},
		{StatusWaiting, false, true},
		{StatusCompleted, true, false},
		{StatusFailed, true, true},
		{StatusBudgetExceeded, true, true},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := tt.s.Terminal(); got != tt.terminal {
			t.Errorf("%q.Terminal() = %v", tt.s, got)
		}
		if got := tt.s.Resumable(); got != tt.resumable {
			t.Errorf("%q.Resumable() = %v", tt.s, got)
		}
	}

	for s, ended := range map[AgentStatus]bool{AgentReady: false, AgentRunning: false, AgentCompleted: true, AgentFailed: true} {
		if s.Ended() != ended {
			t.Errorf("%q.Ended() = %v", s, !ended)
		}
	}
}

func TestRunAgent(t *testing.T) {
	r := &Run{Agents: []Agent{{ID: "main"}, {ID: "main_w1"}}}
	a := r.Agent("main_w1")
	if a == nil {
		t.Fatal("agent main_w1 not found")
	}
	a.Steps = 3
	if r.Agents[1].Steps != 3 {
		t.Error("a change through Agent's pointer did not reach the run")
	}
	if r.Agent("nobody") != nil {
		t.Error("Agent(nobody) is not nil")
	}
}
