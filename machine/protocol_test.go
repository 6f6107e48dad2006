package machine

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/parsing"
	"raymond/state"
	"raymond/step"
)

// The tests of this file drive the machine with StepEnded events whose
// transition is written out, as the orchestrator hands it over once
// workflow.Decide has resolved it: the tags of issue 11 (ask, the
// cross-workflow tags, task=) and script steps.

func tag(name, body string, attrs ...string) parsing.Tag {
	t := parsing.Tag{Name: name, Target: body, Raw: fmt.Sprintf("<%s>%s</%s>", name, body, name)}
	if name == parsing.Ask || name == parsing.Result {
		t.Target, t.Payload = "", body
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		t.Attrs = append(t.Attrs, parsing.Attr{Key: attrs[i], Value: attrs[i+1]})
	}
	return t
}

// ended is the successful end of main's step, in session "s1", emitting t.
func ended(t parsing.Tag, now time.Time, forks ...parsing.Tag) StepEnded {
	tr := parsing.Transition{Tag: t, Forks: forks}
	if (t.Name == parsing.Fork || t.Name == parsing.ForkWorkflow) && forks == nil {
		tr.Forks = []parsing.Tag{t}
	}
	return StepEnded{Agent: "main", Seq: 1, Name: "main_A_001", Now: now, Transition: tr,
		Result: step.Result{Outcome: step.Succeeded, Class: "success", SessionID: "s1"}}
}

// askRun is a machine whose main agent has just run A.md in session s1,
// driven with the given --on-ask mode.
func askRun(t *testing.T, mode string) *Machine {
	t.Helper()
	m := oneAgent(state.SessionResume)
	m.onAsk = mode
	return m
}

func effectsOf[T Effect](effects []Effect) []T {
	var out []T
	for _, e := range effects {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func eventTypes(effects []Effect) []string {
	var out []string
	for _, e := range effects {
		if x, ok := e.(Emit); ok {
			out = append(out, x.Event.Type)
		}
	}
	return out
}

func TestAskWaitsAndTheRunSettlesAsking(t *testing.T) {
	m := askRun(t, AskPause)
	out := m.Apply(ended(tag(parsing.Ask, "Approve Acme?", "next", "B.md", "timeout", "1h", "timeout_next", "C.md"), t0))
	a := m.run.Agents[0]
	require.Equal(t, state.AgentAsking, a.Status)
	require.NotNil(t, a.Ask)
	assert.Equal(t, "ask_main_1", a.Ask.ID)
	assert.Equal(t, "Approve Acme?", a.Ask.Question)
	assert.Equal(t, "A.md", a.Ask.State)
	assert.Equal(t, "B.md", a.Ask.Next)
	assert.Equal(t, "C.md", a.Ask.TimeoutNext)
	assert.Equal(t, t0.Add(time.Hour), *a.Ask.Deadline)
	assert.Equal(t, "s1", a.Ask.Session)
	assert.Nil(t, a.Pending, "an asking agent has no step until it is answered")
	assert.Equal(t, 1, m.run.AskSeq)
	assert.Len(t, effectsOf[AskOpened](out), 1)
	assert.Contains(t, eventTypes(out), "ask")

	out = m.Apply(Tick{Now: t0})
	assert.Equal(t, state.StatusAsking, m.run.Status, "nothing else can progress: the run waits for answers")
	assert.NotEmpty(t, effectsOf[Done](out))
	assert.Contains(t, eventTypes(out), "asking")
	assert.Equal(t, []state.Ask{*m.run.Agents[0].Ask}, PendingAsks(m.run))
}

func TestAnswerResumesAtNextWithTheAnswer(t *testing.T) {
	m := askRun(t, AskPrompt)
	m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md", "timeout", "1h"), t0))
	out := m.Apply(Tick{Now: t0.Add(time.Minute)})
	assert.Empty(t, effectsOf[Done](out), "in prompt mode the run waits for the person")
	wakes := effectsOf[Wake](out)
	require.Len(t, wakes, 1)
	assert.Equal(t, t0.Add(time.Hour), wakes[0].At, "the deadline wakes the run")

	out = m.Apply(Answered{Now: t0.Add(2 * time.Minute), AskID: "ask_main_1", Answer: "yes"})
	assert.Contains(t, eventTypes(out), "ask_answered")
	a := &m.run.Agents[0]
	assert.Equal(t, state.AgentReady, a.Status)
	assert.Equal(t, &state.Step{Ref: state.Ref{State: "B.md"}, Mode: state.SessionResume, ResumeSession: "s1",
		Input: ptr("yes"), AskID: "ask_main_1", Cwd: "/work", Attempt: 1, Entry: true}, a.Pending)
	assert.Equal(t, "yes", *a.Ask.Answer, "the answer is kept, and saved before its step starts")
	vars := Vars(m.run, a)
	assert.Equal(t, "ask_main_1", vars["ask_id"])
	assert.Equal(t, "yes", vars["input"])

	out = m.Apply(Tick{Now: t0.Add(2 * time.Minute)})
	prepares := effectsOf[Prepare](out)
	require.Len(t, prepares, 1)
	assert.Equal(t, "B.md", prepares[0].Step.State)
}

func TestAskExpiry(t *testing.T) {
	t.Run("with timeout_next the agent goes on there", func(t *testing.T) {
		m := askRun(t, AskPrompt)
		m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md", "timeout", "90m", "timeout_next", "C.md"), t0))
		out := m.Apply(Tick{Now: t0.Add(90 * time.Minute)})
		assert.Contains(t, eventTypes(out), "ask_expired")
		a := &m.run.Agents[0]
		assert.True(t, a.Ask.Expired)
		assert.Equal(t, "C.md", a.Pending.State)
		assert.Equal(t, TimedOut, *a.Pending.Input)
		assert.Equal(t, "ask_main_1", a.Pending.AskID)
		assert.Len(t, effectsOf[Prepare](out), 1, "the agent starts at once")
	})
	t.Run("without it the agent fails and the run fails", func(t *testing.T) {
		m := askRun(t, AskPause)
		m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md", "timeout", "2d"), t0))
		m.Apply(Tick{Now: t0.Add(time.Hour)})
		assert.Equal(t, state.StatusAsking, m.run.Status)

		// A later drive finds the deadline passed.
		m = New(m.run)
		m.Apply(Begin{Now: t0.Add(49 * time.Hour), OnAsk: AskPause})
		out := m.Apply(Tick{Now: t0.Add(49 * time.Hour)})
		a := &m.run.Agents[0]
		assert.Equal(t, state.AgentFailed, a.Status)
		assert.Equal(t, "workflow wf: ask ask_main_1: no answer within 2d", a.LastError)
		assert.Equal(t, "A.md", a.Pending.State, "a resume asks again")
		assert.Equal(t, state.StatusFailed, m.run.Status)
		assert.NotEmpty(t, effectsOf[Done](out))
	})
	t.Run("an answer after the deadline is refused", func(t *testing.T) {
		m := askRun(t, AskPrompt)
		m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md", "timeout", "60", "timeout_next", "C.md"), t0))
		out := m.Apply(Answered{Now: t0.Add(time.Minute), AskID: "ask_main_1", Answer: "late"})
		assert.Contains(t, eventTypes(out), "warning")
		a := &m.run.Agents[0]
		assert.Nil(t, a.Ask.Answer)
		assert.Equal(t, "C.md", a.Pending.State)
	})
}

func TestAnswerRecordedWhileNobodyDroveTheRun(t *testing.T) {
	m := askRun(t, AskPause)
	m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md"), t0))
	m.Apply(Tick{Now: t0})
	require.Equal(t, state.StatusAsking, m.run.Status)
	// raymond answer writes the answer into the file.
	m.run.Agents[0].Ask.Answer = ptr("go")
	m.run.Agents[0].Ask.AnsweredAt = ptr(t0.Add(time.Hour))

	m = New(m.run)
	out := m.Apply(Begin{Now: t0.Add(2 * time.Hour), OnAsk: AskPause})
	assert.Contains(t, eventTypes(out), "ask_answered")
	assert.Empty(t, effectsOf[AskOpened](out))
	a := &m.run.Agents[0]
	assert.Equal(t, state.AgentReady, a.Status)
	assert.Equal(t, "B.md", a.Pending.State)
	assert.Equal(t, "go", *a.Pending.Input)
}

func TestTwoAgentsAskAtOnce(t *testing.T) {
	m := askRun(t, AskPause)
	m.Apply(ended(tag(parsing.Fork, "W.md", "next", "J.md"), t0))
	m.Apply(Tick{Now: t0})
	m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main", SessionID: "n1"}, {Agent: "main_w1", SessionID: "n2"}}})
	m.Apply(ended(tag(parsing.Ask, "main's question", "next", "B.md"), t0.Add(time.Second)))
	w := ended(tag(parsing.Ask, "worker's question", "next", "X.md"), t0.Add(2*time.Second))
	w.Agent = "main_w1"
	m.Apply(w)
	out := m.Apply(Tick{Now: t0.Add(3 * time.Second)})
	assert.Equal(t, state.StatusAsking, m.run.Status)
	assert.NotEmpty(t, effectsOf[Done](out))
	asks := PendingAsks(m.run)
	require.Len(t, asks, 2)
	assert.Equal(t, []string{"ask_main_1", "ask_main_w1_2"}, []string{asks[0].ID, asks[1].ID}, "oldest first")

	// A new drive opens both again; the worker is answered first.
	m = New(m.run)
	out = m.Apply(Begin{Now: t0.Add(time.Hour), OnAsk: AskPrompt})
	assert.Len(t, effectsOf[AskOpened](out), 2)
	m.Apply(Answered{Now: t0.Add(time.Hour), AskID: "ask_main_w1_2", Answer: "ok"})
	assert.Equal(t, state.AgentReady, m.run.Agent("main_w1").Status)
	assert.Equal(t, state.AgentAsking, m.run.Agent("main").Status)
}

func TestOnAskReject(t *testing.T) {
	m := askRun(t, AskReject)
	m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md"), t0))
	a := &m.run.Agents[0]
	assert.Equal(t, state.AgentFailed, a.Status)
	assert.Equal(t, "workflow wf: A.md: ask rejected by --on-ask reject", a.LastError)
	assert.Equal(t, "A.md", a.Pending.State)
}

func TestNoAnswersSettlesAsking(t *testing.T) {
	m := askRun(t, AskPrompt)
	m.Apply(ended(tag(parsing.Ask, "Approve?", "next", "B.md"), t0))
	assert.Empty(t, effectsOf[Done](m.Apply(Tick{Now: t0})))
	m.Apply(NoAnswers{})
	assert.NotEmpty(t, effectsOf[Done](m.Apply(Tick{Now: t0})))
	assert.Equal(t, state.StatusAsking, m.run.Status)
}

func TestScriptStepLeavesTheSessionAlone(t *testing.T) {
	script := func(m *Machine, out parsing.Tag) {
		ev := ended(out, t0)
		ev.Script = true
		ev.Result.SessionID = ""
		m.Apply(ev)
	}
	t.Run("resumed: the next step resumes the same session", func(t *testing.T) {
		m := oneAgent(state.SessionResume)
		script(m, tag(parsing.Goto, "B.md"))
		a := &m.run.Agents[0]
		assert.Equal(t, "s1", a.SessionID)
		assert.Equal(t, state.SessionResume, a.Pending.Mode)
		assert.Equal(t, "s1", a.Pending.ResumeSession)
	})
	t.Run("new: the agent has no session, the next step starts one", func(t *testing.T) {
		m := oneAgent(state.SessionNew)
		script(m, tag(parsing.Goto, "B.md"))
		a := &m.run.Agents[0]
		assert.Equal(t, "", a.SessionID)
		m.Apply(Tick{Now: t0})
		m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main", SessionID: "fresh"}}})
		assert.Equal(t, state.SessionNew, a.Pending.Mode)
		assert.Equal(t, "fresh", a.Pending.SessionID)
	})
	t.Run("branch: the next step branches instead", func(t *testing.T) {
		m := oneAgent(state.SessionBranch)
		script(m, tag(parsing.Goto, "B.md"))
		a := &m.run.Agents[0]
		assert.Equal(t, state.SessionBranch, a.Pending.Mode)
		assert.Equal(t, "s0", a.Pending.ResumeSession)
	})
	t.Run("an unacceptable output fails at once", func(t *testing.T) {
		m := oneAgent(state.SessionResume)
		ev := ended(tag(parsing.Goto, "B.md"), t0)
		ev.Script, ev.DecideErr, ev.Restricted = true, fmt.Errorf("no transition tag"), false
		m.Apply(ev)
		a := &m.run.Agents[0]
		assert.Equal(t, state.AgentFailed, a.Status)
		assert.Contains(t, a.LastError, "a script's output gets no reminder")
	})
}

func TestCrossWorkflowTags(t *testing.T) {
	lib := "/lib/review"
	t.Run("call-workflow branches into the scope and result comes back", func(t *testing.T) {
		m := oneAgent(state.SessionResume)
		m.run.TaskFolderPattern = "/p/.raymond/tasks/{{run_id}}/{{agent_id}}"
		m.run.Agents[0].TaskFolder = "/p/.raymond/tasks/r1/main"
		cw := tag(parsing.CallWorkflow, "CHECK.md", "return", "RET.md", "input", "x")
		cw.Scope, cw.Raw = lib, `<call-workflow return="RET.md">../lib/review/CHECK</call-workflow>`
		m.Apply(ended(cw, t0))
		a := &m.run.Agents[0]
		assert.Equal(t, lib, a.Scope)
		assert.Equal(t, []string{"/wf", lib}, a.Chain)
		assert.Equal(t, &state.Step{Ref: state.Ref{Scope: lib, State: "CHECK.md"}, Mode: state.SessionBranch, ResumeSession: "s1",
			Input: ptr("x"), Cwd: "/work", Attempt: 1, Entry: true}, a.Pending)
		require.Len(t, a.Stack, 1)
		assert.Equal(t, state.Frame{Session: "s1", Ref: state.Ref{State: "RET.md"}, Cwd: "/work", TaskFolder: "/p/.raymond/tasks/r1/main"}, a.Stack[0])

		// Inside the callee, a goto stays in its scope.
		m.Apply(Tick{Now: t0})
		m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main", SessionID: "b1"}}})
		m.Apply(ended(tag(parsing.Goto, "MORE.md"), t0))
		assert.Equal(t, state.Ref{Scope: lib, State: "MORE.md"}, a.Pending.Ref)

		m.Apply(Tick{Now: t0})
		m.Apply(Prepared{Now: t0, Steps: []PreparedStep{{Agent: "main"}}})
		m.Apply(ended(tag(parsing.Result, "ok"), t0))
		assert.Equal(t, "", a.Scope, "the caller's scope is back")
		assert.Nil(t, a.Chain)
		assert.Equal(t, state.Ref{State: "RET.md"}, a.Pending.Ref)
		assert.True(t, a.Pending.Returned)
		assert.Equal(t, "ok", Vars(m.run, a)["result"])
		assert.Equal(t, "/p/.raymond/tasks/r1/main", Vars(m.run, a)["task_folder"])
	})
	t.Run("fork-workflow names the agent after the workflow", func(t *testing.T) {
		m := oneAgent(state.SessionResume)
		fw := tag(parsing.ForkWorkflow, "1_START.md", "next", "J.md", "item", "a")
		fw.Scope = "/lib/review-" + fmt.Sprintf("%064x", 7) + ".zip"
		m.Apply(ended(fw, t0))
		w := m.run.Agent("main_review1")
		require.NotNil(t, w, "agents: %v", m.run.Agents)
		assert.Equal(t, fw.Scope, w.Scope)
		assert.Equal(t, []string{"/wf", fw.Scope}, w.Chain)
		assert.Equal(t, state.Ref{Scope: fw.Scope, State: "1_START.md"}, w.Pending.Ref)
		assert.Equal(t, map[string]string{"item": "a"}, w.Pending.Vars)
		assert.Equal(t, "J.md", m.run.Agents[0].Pending.State)
	})
	t.Run("reset-workflow empties the stack and starts the chain again", func(t *testing.T) {
		m := oneAgent(state.SessionResume, state.Frame{Session: "c", Ref: state.Ref{State: "RET.md"}})
		m.run.TaskFolderPattern = "/t/{{run_id}}/{{agent_id}}"
		rw := tag(parsing.ResetWorkflow, "START.md", "task", "new")
		rw.Scope = lib
		m.Apply(ended(rw, t0))
		a := &m.run.Agents[0]
		assert.Empty(t, a.Stack)
		assert.Equal(t, []string{lib}, a.Chain)
		assert.Equal(t, state.SessionNew, a.Pending.Mode)
		assert.Equal(t, "/t/r1/main_task1", a.TaskFolder)
	})
	t.Run("a cycle stops at the depth limit", func(t *testing.T) {
		m := oneAgent(state.SessionResume)
		a := &m.run.Agents[0]
		for i := range MaxWorkflowDepth {
			a.Chain = append(a.Chain, []string{"/wf/a", "/wf/b"}[i%2])
		}
		a.Chain = append([]string{"/wf"}, a.Chain...)
		a.Scope = "/wf/b"
		cw := tag(parsing.CallWorkflow, "START.md", "return", "R.md")
		cw.Scope, cw.Raw = "/wf/a", `<call-workflow return="R.md">../a/</call-workflow>`
		m.Apply(ended(cw, t0))
		assert.Equal(t, state.AgentFailed, a.Status)
		assert.Equal(t, "workflow wf: A.md: call-workflow ../a/: cycle wf → a → b → a → … reaches the depth limit 8", a.LastError)
	})
}

func TestForkTaskFolders(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.TaskFolderPattern = "/t/{{workflow_id}}/{{ agent_id }}"
	m.run.Agents[0].TaskFolder = "/t/r1/main"
	m.Apply(ended(tag(parsing.Fork, "W.md", "next", "J.md"), t0,
		tag(parsing.Fork, "W.md", "next", "J.md"), tag(parsing.Fork, "W.md", "next", "J.md", "task", "inherit")))
	assert.Equal(t, "/t/r1/main_w1", m.run.Agent("main_w1").TaskFolder)
	assert.Equal(t, "/t/r1/main", m.run.Agent("main_w2").TaskFolder)
}

func TestScopeName(t *testing.T) {
	hash := fmt.Sprintf("%064x", 1)
	for in, want := range map[string]string{
		"/lib/review":                        "review",
		"/lib/review.zip":                    "review",
		"/lib/review.yaml":                   "review",
		"/lib/review-" + hash + ".zip":       "review",
		"/lib/" + hash + ".zip":              "workflow",
		"https://h/x/tools_" + hash + ".zip": "tools",
	} {
		assert.Equal(t, want, ScopeName(in), in)
	}
}

// A reminder is the same step asked again: an implicit entry carrying
// input="{{input}}" taken after it must still find the step's input.
func TestReminderKeepsTheStepsInput(t *testing.T) {
	m := oneAgent(state.SessionResume)
	a := &m.run.Agents[0]
	a.Pending.Input = ptr("three reviews")
	a.Pending.Vars = map[string]string{"item": "x"}
	ev := ended(tag(parsing.Goto, "B.md"), t0)
	ev.DecideErr, ev.Restricted, ev.Reminder = fmt.Errorf("not allowed"), true, "answer with <goto>C.md</goto>"
	m.Apply(ev)
	require.Equal(t, "answer with <goto>C.md</goto>", a.Pending.Reminder)
	vars := Vars(m.run, a)
	assert.Equal(t, "three reviews", vars["input"])
	assert.Equal(t, "x", vars["item"])
}

// A run of a URL workflow names its URL when it starts or resumes, not
// the registry's copy.
func TestBeginShowsTheURL(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.ScopeDir = "/p/.raymond/registry/abc.zip"
	m.run.ScopeURL = "https://example.com/wf-abc.zip"
	var msgs []string
	for _, e := range effectsOf[Emit](m.Apply(Begin{Now: t0, OnAsk: AskPause})) {
		msgs = append(msgs, e.Event.Message)
	}
	assert.Contains(t, msgs, "https://example.com/wf-abc.zip")
	assert.NotContains(t, msgs, "/p/.raymond/registry/abc.zip")
}
