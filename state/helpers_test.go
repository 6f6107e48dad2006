package state

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// fullRun returns a run with every field of every struct set, so a round trip
// shows that each one survives.
func fullRun(id string) *Run {
	return &Run{
		Version:           Version,
		Gen:               3,
		WorkflowID:        id,
		ScopeDir:          "/p/wf",
		ScopeURL:          "https://example.com/wf-0123.zip",
		EntryState:        "START.md",
		TaskFolderPattern: "/p/.raymond/tasks/{{run_id}}/{{agent_id}}",
		ContinueSession:   "s-user",
		AskSeq:            2,
		Status:            StatusWaiting,
		CreatedAt:         time.Date(2026, 11, 21, 15, 40, 12, 123456789, time.UTC),
		UpdatedAt:         time.Date(2026, 11, 21, 15, 41, 0, 0, time.UTC),
		Options: Options{
			Input:           ptr("do it"),
			Model:           "sonnet",
			FallbackModels:  []string{"haiku"},
			Effort:          "high",
			MaxParallel:     4,
			MaxAgents:       100,
			MaxForks:        500,
			Scripted:        true,
			Replies:         "/home/u/replies.yaml",
			MaxDepth:        10,
			Timeout:         Duration(90 * time.Second),
			StepTimeout:     Duration(2 * time.Hour),
			MaxTurns:        30,
			LoopWarn:        5,
			LoopStop:        10,
			CycleStop:       3,
			NoWait:          true,
			PermissionMode:  "acceptEdits",
			SkipPermissions: true,
			ClaudePath:      "/usr/bin/claude",
			ClaudeFrom:      "RAYMOND_CLAUDE",
			Debug:           true,
			ProjectDir:      "/p",
			Confine:         true,
			OnAsk:           "pause",
			Env:             map[string]string{"DEPLOY_ENV": "staging"},
		},
		Agents: []Agent{{
			ID:           "main_worker1",
			Scope:        "/p/lib",
			CurrentState: "WORKER.md",
			SessionID:    "s-1",
			Cwd:          "/p/sub",
			Stack: []Frame{{Session: "s-0", Ref: Ref{Scope: "/p/wf", URL: "https://example.com/wf-0123.zip", State: "JOIN.md"}, Cwd: "/p",
				TaskFolder: "/p/.raymond/tasks/r/main", Chain: []string{"/p/wf"},
				Workspace: &AgentWorkspace{Dir: "/p/.raymond/worktrees/r/main", Branch: "raymond/r", Owner: "main", Head: "def456",
					PendingMerges: []string{"main_w2"}, Conflicts: []MergeConflict{{Agent: "main_w3", Branch: "raymond/r.main_w3", Paths: []string{"a"}}}}}},
			Status: AgentRunning,
			Pending: &Step{
				Ref:             Ref{Scope: "/p/lib", URL: "https://example.com/lib-0123.zip", State: "WORKER.md"},
				Timeout:         ptr(Duration(5 * time.Minute)),
				Returned:        true,
				AskID:           "ask_main_worker1_1",
				Mode:            SessionBranch,
				ResumeAt:        "94410686-2bd9-45fe-8e70-5ad4a9c92411",
				Override:        &Override{Model: "opus", Effort: "high"},
				ResumeSession:   "s-0",
				SessionID:       "s-2",
				Input:           ptr(""),
				Vars:            map[string]string{"item": "a"},
				StepTimeout:     ptr(Duration(45 * time.Minute)),
				Cwd:             "/p/sub",
				Reminder:        "one tag, please",
				Attempt:         2,
				Model:           "opus",
				Fallbacks:       []string{"sonnet"},
				Skipped:         []string{"claude-opus-5-5"},
				MCPConfig:       "/p/.raymond/state/r/mcp/0123.json",
				MCPServers:      []string{"github"},
				Effort:          "low",
				Entry:           true,
				AllowedTools:    []string{"Read", "Bash(git log:*)"},
				DisallowedTools: []string{"Write"},
				PermissionMode:  "plan",
				MaxTurns:        ptr(12),
				LoopWarn:        ptr(0),
				LoopStop:        ptr(4),
				NoCycleCheck:    true,
				Capped:          []string{"/p/lib/REVISE.md"},
				Process:         &Process{PID: 4242, Start: 123456789, Started: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)},
			},
			Steps:      7,
			Attempts:   2,
			LastError:  "no result line",
			Result:     ptr("partial"),
			Parent:     "main",
			ScopeURL:   "https://example.com/lib-0123.zip",
			TaskFolder: "/p/.raymond/tasks/r/main_worker1",
			TaskSeq:    1,
			Chain:      []string{"/p/wf", "/p/lib"},
			Visits:     map[string]int{"REVISE.md": 2},
			Recent:     []string{"A.md#0123456789abcdef", "B.md#fedcba9876543210"},
			Ask: &Ask{ID: "ask_main_worker1_1", Question: "Approve?", State: "REVIEW.md", Next: "GO.md", TimeoutNext: "STOP.md",
				Timeout: "48h", AskedAt: time.Date(2026, 11, 21, 15, 40, 0, 0, time.UTC),
				Deadline: ptr(time.Date(2026, 11, 23, 15, 40, 0, 0, time.UTC)), Session: "s-1",
				Answer: ptr("yes"), AnsweredAt: ptr(time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)), Expired: true},
			Workspace: &AgentWorkspace{Dir: "/p/.raymond/worktrees/r/main_worker1", Branch: "raymond/r/main_worker1",
				Owner: "main_worker1", Head: "c0ffee", PendingMerges: []string{"main_worker1_worker2"},
				Conflicts: []MergeConflict{{Agent: "main_worker1_worker3", Branch: "raymond/r/main_worker1_worker3", Paths: []string{"a.go"}}}},
		}},
		Result:       ptr("done"),
		TotalCostUSD: 1.25,
		BudgetUSD:    10,
		SessionCosts: map[string]float64{"s-1": 0.5},
		DefaultModel: "claude-opus-5-5",
		NextAgentSeq: 2,
		Wait:         &Wait{Until: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC), Reason: "usage limit", Model: "opus"},
		Holds:        []Wait{{Until: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC), Reason: "Opus limit", Model: "opus"}},
		Error:        "agent main_worker1 failed",
		Warned:       []string{"unknown key foo in START.md"},
		PID:          4242,
		Workspace: &Workspace{Mode: WorkspaceWorktree, Repo: "/p", BaseBranch: "main", BaseCommit: "abc123",
			Branch: "raymond/r", Dir: "/p/.raymond/worktrees/r/main", Merge: MergeNone, Status: DraftPublished,
			Published: "def456", Into: "main", Head: "cba987", Squash: true, At: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)},
		Rewound: &Rewound{Run: "r0", Step: "main_START_003", Agent: "main", PriorCostUSD: 0.25,
			Cuts: map[string]string{"s1": "u1"}, Only: true},
	}
}

// requireNoZeroFields fails when some field reachable from v (through
// structs, pointers to structs and slices) is zero: a test fixture must set
// them all. A non-nil pointer to a zero scalar counts as set.
func requireNoZeroFields(t *testing.T, v any) {
	t.Helper()
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.IsZero() {
			t.Errorf("%s is zero: set it in the fixture", path)
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.Elem().Kind() == reflect.Struct {
				walk(path, v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return
			}
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		}
	}
	walk(reflect.TypeOf(v).Elem().Name(), reflect.ValueOf(v))
}

// openStore returns a store in a fresh temp folder.
func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// wantErr fails unless err is non-nil and its message holds every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// must fails the test at once on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
