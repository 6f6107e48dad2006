package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"raymond/transcript"
)

func ptr[T any](v T) *T { return &v }

// TestProgress pins each event's progress line to what the orchestrator
// printed before the lines were worded here (orchestrator/apply.go,
// transition.go, report.go, progress.go, drive.go, schedule.go), and its
// follow line to what --follow printed, except where the two were made one.
func TestProgress(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	until := at.Add(3*time.Hour + 29*time.Second)
	tick := until.Add(-(2*time.Hour + 10*time.Minute + 20*time.Second))
	tests := []struct {
		name      string
		ev        transcript.Event
		progress  string // "" for none
		important bool
		follow    string // after the time and the agent's tag
	}{
		// asks (protocol §15)
		{"ask", transcript.Event{Type: transcript.EventAsk, Time: at, Agent: "main", AskID: "ask_main_1", State: "2_REVIEW.md",
			Target: "3_DONE.md", Message: "Approve Acme?", Deadline: ptr(at.Add(48 * time.Hour))},
			"asks ask_main_1: Approve Acme? (answer within 48h)", true, "[main] asks ask_main_1: Approve Acme? (answer within 48h)"},
		{"ask, no timeout", transcript.Event{Type: transcript.EventAsk, Time: at, Agent: "main", AskID: "ask_main_1", Message: "Approve Acme?"},
			"asks ask_main_1: Approve Acme?", true, "[main] asks ask_main_1: Approve Acme?"},
		{"still running", transcript.Event{Type: transcript.EventStillRunning, Agent: "main", State: "TEST.md", DurationMS: 185000, Tool: "Bash", Message: "go test ./...\nmore"},
			"TEST.md: still running after 3m05s (last tool: Bash go test ./...)", true, "[main] TEST.md: still running after 3m05s (last tool: Bash go test ./...)"},
		{"waiting for", transcript.Event{Type: transcript.EventWaitingFor, Message: "main TEST.md (3m5s)"},
			"waiting for main TEST.md (3m5s) to end", true, "waiting for main TEST.md (3m5s) to end"},
		{"ask answered", transcript.Event{Type: transcript.EventAnswered, Agent: "main", AskID: "ask_main_1", Payload: ptr("yes"), Target: "3_DONE.md"},
			"ask_main_1 answered: yes; goes on at 3_DONE.md", true, "[main] ask_main_1 answered: yes; goes on at 3_DONE.md"},
		{"ask answered on several lines", transcript.Event{Type: transcript.EventAnswered, Agent: "main", AskID: "ask_main_1", Payload: ptr("multi\nline\n"), Target: "3_DONE.md"},
			"ask_main_1 answered: multi line; goes on at 3_DONE.md", true, "[main] ask_main_1 answered: multi line; goes on at 3_DONE.md"},
		{"ask expired", transcript.Event{Type: transcript.EventAskExpired, Agent: "main", AskID: "ask_main_1", Target: "ESCALATE.md"},
			"ask_main_1 expired unanswered; goes on at ESCALATE.md", true, "[main] ask_main_1 expired unanswered; goes on at ESCALATE.md"},
		{"ask expired, fails", transcript.Event{Type: transcript.EventAskExpired, Agent: "main", AskID: "ask_main_1"},
			"ask_main_1 expired unanswered", true, "[main] ask_main_1 expired unanswered"},
		{"asking", transcript.Event{Type: transcript.EventAsking, Status: "asking", Message: "2 asks wait for an answer"},
			"", false, "waiting for answers: 2 asks wait for an answer"},
		// visit caps
		{"visit cap, goto", transcript.Event{Type: transcript.EventVisitCap, Agent: "main", State: "REVISE.md", Visits: 2, Max: 2, Tag: "goto", Target: "ASK.md"},
			"REVISE.md: visit cap 2 reached; goto ASK.md", true, "[main] REVISE.md: visit cap 2 reached; goto ASK.md"},
		{"visit cap, result", transcript.Event{Type: transcript.EventVisitCap, Agent: "main", State: "W.md", Visits: 1, Max: 1, Tag: "result", Payload: ptr("gave up")},
			`W.md: visit cap 1 reached; result "gave up"`, true, `[main] W.md: visit cap 1 reached; result "gave up"`},
		{"visit cap, fails", transcript.Event{Type: transcript.EventVisitCap, Agent: "main", State: "W.md", Visits: 3, Max: 3},
			"W.md: visit cap 3 reached; the agent fails", true, "[main] W.md: visit cap 3 reached; the agent fails"},

		// drive.go
		{"run started", transcript.Event{Type: transcript.EventRunStarted, Run: "r1", State: "START.md", Message: "/wf"},
			"run r1 started at START.md: /wf", true, "run r1 started at START.md: /wf"},
		{"run started, from the file", transcript.Event{Type: transcript.EventRunStarted, State: "START.md", Message: "/wf"},
			"run started at START.md: /wf", true, "run started at START.md: /wf"},
		{"run resumed", transcript.Event{Type: transcript.EventRunResumed, Run: "r1", State: "START.md", Message: "/wf"},
			"run r1 resumed: /wf", true, "run r1 resumed: /wf"},
		{"transcript failed", transcript.Event{Type: transcript.EventTranscriptFailed, Message: "write transcript: no space left on device"},
			"warning: cannot write the transcript (write transcript: no space left on device); the run goes on without it", true,
			"warning: cannot write the transcript (write transcript: no space left on device); the run goes on without it"},
		{"stopping", transcript.Event{Type: transcript.EventStopping},
			"stopping: no new steps start; the steps running now finish first (interrupt again to kill them)", true,
			"stopping: no new steps start; the steps running now finish first (interrupt again to kill them)"},
		{"stopping, save failed", transcript.Event{Type: transcript.EventStopping, Message: "write state: disk full"},
			"cannot save the run's state: write state: disk full; stopping", true,
			"cannot save the run's state: write state: disk full; stopping"},
		{"paused", transcript.Event{Type: transcript.EventPaused, Agent: "main", Message: "claude cannot run steps"},
			"", false, "[main] paused: claude cannot run steps"},
		{"budget exceeded", transcript.Event{Type: transcript.EventBudgetExceeded, Message: "budget reached: $0.0200 spent of $0.0100"},
			"", false, "stopped at the budget: budget reached: $0.0200 spent of $0.0100"},
		{"run ended", transcript.Event{Type: transcript.EventRunEnded, Status: "completed", TotalCostUSD: ptr(0.5)},
			"", false, "run ended: completed, $0.5000"},

		// progress.go: stepStarted and live
		{"step started", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", Step: "main_START_001", State: "START.md", Seq: 1, Mode: "new", Attempt: 1},
			"START.md: step 1 (new session)", false, "[main] START.md: step 1 (new session)"},
		{"step started, resumed, model, retry", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "NEXT.md", Seq: 4, Mode: "resume", Model: "sonnet", Attempt: 3},
			"NEXT.md: step 4 (resumed session, sonnet, retry 2)", false, "[main] NEXT.md: step 4 (resumed session, sonnet, retry 2)"},
		{"step started, Claude Code's default", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "B.md", Seq: 2, Mode: "resume", Model: "default", Attempt: 1},
			"B.md: step 2 (resumed session, Claude Code's default model)", false, "[main] B.md: step 2 (resumed session, Claude Code's default model)"},
		{"step started, branch", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "SUB.md", Seq: 2, Mode: "branch", Attempt: 1},
			"SUB.md: step 2 (branch of the caller's session)", false, "[main] SUB.md: step 2 (branch of the caller's session)"},
		{"script step", transcript.Event{Type: "step_started", Agent: "main", State: "POLL.sh", Seq: 3, Mode: "script", Attempt: 1},
			"POLL.sh: step 3 (script)", false, "[main] POLL.sh: step 3 (script)"},
		{"step started, script", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "POLL.sh", Seq: 2, Mode: "resume", Attempt: 1},
			"POLL.sh: step 2 (script)", false, "[main] POLL.sh: step 2 (script)"},
		{"step started, reminder", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "START.md", Seq: 2, Mode: "resume", Model: "opus", Reminder: true, Attempt: 1},
			"START.md: step 2 (reminder)", false, "[main] START.md: step 2 (reminder)"},
		{"step started, from an old file", transcript.Event{Type: transcript.EventStepStarted, Agent: "main", Step: "main_START_002", State: "START.md", Attempt: 2},
			"START.md: step main_START_002 started (attempt 2)", false, "[main] START.md: step main_START_002 started (attempt 2)"},
		{"text", transcript.Event{Type: transcript.EventText, Agent: "main", State: "START.md", Message: "\n  Looking at the code.  \nMore."},
			"START.md: Looking at the code.", false, "[main] START.md: Looking at the code."},
		{"text, long", transcript.Event{Type: transcript.EventText, Agent: "main", State: "S.md", Message: strings.Repeat("é", 150)},
			"S.md: " + strings.Repeat("é", 99) + "…", false, "[main] S.md: " + strings.Repeat("é", 99) + "…"},
		{"text, blank", transcript.Event{Type: transcript.EventText, Agent: "main", State: "S.md", Message: " \n "},
			"", false, "[main] "},
		{"tool use", transcript.Event{Type: transcript.EventToolUse, Agent: "main", State: "S.md", Tool: "Bash", Message: "go test ./..."},
			"S.md: Bash go test ./...", false, "[main] S.md: Bash go test ./..."},
		{"tool failed", transcript.Event{Type: transcript.EventToolFailed, Agent: "main", State: "S.md", Tool: "Read", Message: strings.Repeat("x", 90)},
			"S.md: Read failed: " + strings.Repeat("x", 79) + "…", false, "[main] S.md: Read failed: " + strings.Repeat("x", 79) + "…"},
		{"print", transcript.Event{Type: transcript.EventPrint, Agent: "main", Message: "line one\nline two"},
			"line one\nline two", true, "[main] line one"},
		{"api retry", transcript.Event{Type: transcript.EventAPIRetry, Agent: "main", State: "S.md", Code: 529, Attempt: 2},
			"S.md: API error 529, claude retries (attempt 2)", false, "[main] S.md: API error 529, claude retries (attempt 2)"},

		// apply.go
		{"step deferred, canceled", transcript.Event{Type: transcript.EventStepDeferred, Agent: "main", State: "S.md", Outcome: "canceled"},
			"S.md: step stopped; it runs again on resume", true, "[main] S.md: step stopped; it runs again on resume"},
		{"step deferred, usage limit", transcript.Event{Type: transcript.EventStepDeferred, Agent: "main", State: "S.md", Outcome: "usage limit"},
			"S.md: usage limit reached; the step runs again after the reset", true, "[main] S.md: usage limit reached; the step runs again after the reset"},
		{"step deferred, budget", transcript.Event{Type: transcript.EventStepDeferred, Agent: "main", State: "S.md", Outcome: "exhausted"},
			"S.md: stopped at the run's budget; it runs again when the run is resumed with a higher --budget", true,
			"[main] S.md: stopped at the run's budget; it runs again when the run is resumed with a higher --budget"},
		{"agent failed", transcript.Event{Type: transcript.EventAgentFailed, Agent: "main", State: "S.md", Message: "S.md: claude exited with status 1 without an answer (gave up after 3 retries)"},
			"failed: S.md: claude exited with status 1 without an answer (gave up after 3 retries)", true,
			"[main] failed: S.md: claude exited with status 1 without an answer (gave up after 3 retries)"},
		{"retry", transcript.Event{Type: transcript.EventRetry, Agent: "main", Step: "main_S_001", State: "S.md", Attempt: 2, Max: 3, DelayMS: 5000, Outcome: "crash", Message: "claude exited with status 1 without an answer"},
			"S.md: claude exited with status 1 without an answer; retry 1 of 3 in 5s", true,
			"[main] S.md: claude exited with status 1 without an answer; retry 1 of 3 in 5s"},
		{"retry, from an old file", transcript.Event{Type: transcript.EventRetry, Agent: "main", State: "S.md", Attempt: 3, Message: "crash"},
			"S.md: crash; retry 2", true, "[main] S.md: crash; retry 2"},
		{"reminder", transcript.Event{Type: transcript.EventReminder, Agent: "main", State: "S.md", Attempt: 2, Max: 2, Message: "the answer has no transition tag"},
			"S.md: the answer has no transition tag; reminder 1 of 2", true, "[main] S.md: the answer has no transition tag; reminder 1 of 2"},

		// transition.go
		{"transition", transcript.Event{Type: transcript.EventTransition, Agent: "main", State: "START.md", Tag: "goto", Target: "NEXT.md", CostUSD: ptr(0.05), TotalCostUSD: ptr(0.15)},
			"START.md -> NEXT.md (goto)  $0.0500, total $0.1500", true, "[main] START.md -> NEXT.md (goto)  $0.0500, total $0.1500"},
		{"transition to done", transcript.Event{Type: transcript.EventTransition, Agent: "main", State: "END.md", Tag: "result", CostUSD: ptr(0.0), TotalCostUSD: ptr(0.0), Payload: ptr("ok")},
			"END.md -> done (result)  $0.0000, total $0.0000", true, "[main] END.md -> done (result)  $0.0000, total $0.0000"},
		{"agent completed", transcript.Event{Type: transcript.EventAgentCompleted, Agent: "main_w1", State: "W.md", Payload: ptr("b done\nmore")},
			"", false, "[main_w1] completed at W.md: b done"},
		{"spawn", transcript.Event{Type: transcript.EventSpawn, Agent: "main", Child: "main_worker1", Parent: "main", State: "WORKER.md"},
			"started main_worker1 at WORKER.md", false, "[main] started main_worker1 at WORKER.md"},
		{"spawn with vars", transcript.Event{Type: transcript.EventSpawn, Agent: "main", Child: "main_worker2", State: "WORKER.md", Vars: map[string]string{"topic": "b", "item": "x y"}},
			`started main_worker2 at WORKER.md (item="x y" topic="b")`, false, `[main] started main_worker2 at WORKER.md`},

		// begin.go
		{"warning", transcript.Event{Type: transcript.EventWarning, Agent: "main", State: "START.md", Message: `START.md: unknown frontmatter key "modle" ignored`},
			`warning: START.md: unknown frontmatter key "modle" ignored`, true, `[main] warning: START.md: unknown frontmatter key "modle" ignored`},

		// report.go: waiting and summary; schedule.go: wait over
		{"wait", transcript.Event{Type: transcript.EventWait, Until: &until, Message: "You've hit your session limit · resets 1pm"},
			"usage limit reached (You've hit your session limit · resets 1pm); no new step starts until " + until.Local().Format("Jan 2 15:04:05") +
				" (in 3h0m0s). Ctrl-C pauses the run; resume it later.", true,
			"usage limit reached (You've hit your session limit · resets 1pm); no new step starts until " + until.Local().Format("Jan 2 15:04:05") + " (in 3h0m0s)"},
		{"wait tick", transcript.Event{Type: transcript.EventWaitTick, Time: tick, Until: &until},
			"waiting for the usage limit to reset: 2h10m0s left (until " + until.Local().Format("15:04:05") + ")", true,
			"waiting for the usage limit to reset: 2h10m0s left (until " + until.Local().Format("15:04:05") + ")"},
		{"wait over", transcript.Event{Type: transcript.EventWaitOver},
			"usage limit wait over; steps start again", true, "usage limit wait over; steps start again"},
		{"summary", transcript.Event{Type: transcript.EventSummary, Run: "pf", Status: "completed", DurationMS: 1234, Steps: 5, Agents: 4, TotalCostUSD: ptr(0.1)},
			"run pf completed in 1.234s: 5 steps, 4 agents, $0.1000", true, "run pf completed in 1.234s: 5 steps, 4 agents, $0.1000"},
		{"summary, failed", transcript.Event{Type: transcript.EventSummary, Run: "f1", Status: "failed", DurationMS: 20, Steps: 1, Agents: 1, TotalCostUSD: ptr(0.0), BudgetUSD: 1,
			Message: "some error", Failures: []transcript.Failure{{Agent: "main", State: "START.md", Error: "START.md: boom"}}},
			"run f1 failed in 20ms: 1 step, 1 agent, $0.0000 of $1.0000\nsome error\n  main failed at START.md: boom", true,
			"run f1 failed in 20ms: 1 step, 1 agent, $0.0000 of $1.0000"},
		{"summary, failed, the workflow named", transcript.Event{Type: transcript.EventSummary, Run: "f2", Status: "failed", DurationMS: 20, Steps: 1, Agents: 2, TotalCostUSD: ptr(0.0),
			Failures: []transcript.Failure{{Agent: "main", State: "START.md", Error: "workflow wf: START.md:2: bad"}, {Agent: "main_w1", State: "W.md", Error: "workflow wf: ask a1: no answer"}}},
			"run f2 failed in 20ms: 1 step, 2 agents, $0.0000\n  main failed: workflow wf: START.md:2: bad\n  main_w1 failed at W.md: workflow wf: ask a1: no answer", true,
			"run f2 failed in 20ms: 1 step, 2 agents, $0.0000"},
		{"unknown", transcript.Event{Type: "from_the_future"}, "", false, "from_the_future"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tt.ev
			if ev.Time.IsZero() {
				ev.Time = at
			}
			line, important := Progress(&ev)
			assert.Equal(t, tt.progress, line)
			assert.Equal(t, tt.important, important)
			assert.Equal(t, ev.Time.Local().Format("15:04:05")+" "+tt.follow, FollowLine(&ev))
		})
	}
}

// TestFollowStepEnded: the follow line of a step says plainly how it
// ended; a successful step whose answer was refused does not read as a
// success, and a step under a millisecond does not read as "0s".
func TestFollowStepEnded(t *testing.T) {
	tests := []struct {
		name string
		ev   transcript.Event
		want string
	}{
		{"success", transcript.Event{Outcome: "success", DurationMS: 1500, CostUSD: ptr(0.5), TotalCostUSD: ptr(1.0)},
			"[main] START.md: success in 1.50s  $0.5000, total $1.0000"},
		{"refused", transcript.Event{Outcome: "success", Message: "the answer has no transition tag"},
			"[main] START.md: answered in under 1ms, but the answer was refused: the answer has no transition tag"},
		{"crash", transcript.Event{Outcome: "crash", DurationMS: 20, Message: "claude exited with status 1\nstderr"},
			"[main] START.md: crash in 20ms: claude exited with status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tt.ev
			ev.Type, ev.Agent, ev.State = transcript.EventStepEnded, "main", "START.md"
			line, _ := Progress(&ev)
			assert.Empty(t, line, "a step's end has no progress line: its transition or failure says it")
			assert.True(t, strings.HasSuffix(FollowLine(&ev), " "+tt.want), FollowLine(&ev))
		})
	}
}

// TestLiveEventsAreNotPersisted: whatever the stream publishes after
// run_ended must be live, or readers would not see the run as ended.
func TestLiveEventsAreNotPersisted(t *testing.T) {
	for _, typ := range []string{transcript.EventText, transcript.EventToolUse, transcript.EventToolFailed,
		transcript.EventPrint, transcript.EventAPIRetry, transcript.EventWaitTick, transcript.EventTranscriptFailed, transcript.EventSummary,
		transcript.EventStepDeferred} {
		assert.True(t, (&transcript.Event{Type: typ}).Live(), typ)
	}
	for _, typ := range []string{transcript.EventRunStarted, transcript.EventStepStarted,
		transcript.EventStopping, transcript.EventRunEnded, transcript.EventWait} {
		assert.False(t, (&transcript.Event{Type: typ}).Live(), typ)
	}
}

// Issue 9 item 17: a tag in what the model writes is cut from the progress
// line; the prose before it stays.
func TestTextLineLeavesTagsOut(t *testing.T) {
	for in, want := range map[string]string{
		"Moving on. <goto>NEXT.md</goto>":   "Moving on.",
		"<result>done</result>":             "",
		"Reading <fork next=\"J\">W</fork>": "Reading",
		"Use <gotoX> and <results> freely":  "Use <gotoX> and <results> freely",
		"Plain text":                        "Plain text",
	} {
		line, _ := Progress(&transcript.Event{Type: transcript.EventText, State: "S.md", Message: in})
		if want == "" {
			assert.Empty(t, line, in)
			continue
		}
		assert.Equal(t, "S.md: "+want, line, in)
	}
}
