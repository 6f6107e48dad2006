package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// forkRun is a small fan-out: main forks two workers, waits once, joins.
func forkRun(t *testing.T) *run {
	return runWorkflow(t, map[string]string{
		"START.md":  "Fan out.",
		"WORKER.md": "Work on {{item}}.",
		"WAIT.md":   "Wait.",
		"JOIN.md":   "Join.",
	}, `
replies:
  START: [{text: '<fork next="WAIT" item="a">WORKER</fork><fork next="WAIT" item="b">WORKER</fork>', cost: 0.01, delay: 1s}]
  WORKER:
    - {text: "<result>{{item}} done</result>", cost: 0.025, delay: 4s, times: 2}
  WAIT: [{text: "<goto>WAIT</goto>", cost: 0.001, delay: 2s}, {text: "<goto>JOIN</goto>", cost: 0.001, delay: 2s}]
  JOIN: [{text: "<result>all done</result>", cost: 0.04, delay: 1s}]
`, options{})
}

func TestLoadFork(t *testing.T) {
	r := forkRun(t).load(t)

	assert.Equal(t, "r1", r.ID)
	assert.Equal(t, "completed", r.Status)
	assert.True(t, r.Complete, "notes: %v", r.Notes)
	assert.Empty(t, r.Notes)
	require.NotNil(t, r.Result)
	assert.Equal(t, "all done", *r.Result)
	assert.Equal(t, "START.md", r.Entry)
	assert.InDelta(t, 0.102, r.CostUSD, 1e-9)
	assert.Equal(t, 6, r.StepCount)
	assert.Equal(t, 3, r.AgentCount)
	// START 1s, WAIT 2s + 2s, JOIN 1s on main, in virtual time.
	assert.Equal(t, int64(6000), r.WallMS)
	assert.Equal(t, r.WallMS, r.DrivenMS)

	main := r.Agent("main")
	require.NotNil(t, main)
	assert.Equal(t, ":START.md:s>fork fork:WAIT.md:s>goto goto:WAIT.md:s>goto goto:JOIN.md:s>result", visits(main))
	assert.Equal(t, []string{"main_worker1", "main_worker2"}, main.Path[0].Spawned)
	assert.Equal(t, "completed", main.Status)
	assert.InDelta(t, 0.052, main.CostUSD, 1e-9)

	w := r.Agent("main_worker2")
	require.NotNil(t, w)
	assert.Equal(t, "main", w.Parent)
	assert.Equal(t, "main_START_001", w.SpawnStep)
	assert.Equal(t, "fork:WORKER.md:s>result", visits(w))
	assert.Equal(t, []string{"main_worker2_WORKER_001"}, w.StepNames)
	assert.Equal(t, int64(4000), w.Ended.Sub(w.Started).Milliseconds())

	s := r.Step("main_worker2_WORKER_001")
	require.NotNil(t, s)
	assert.Equal(t, 1, s.Seq)
	assert.Equal(t, "success", s.Outcome)
	assert.Equal(t, "result", s.Tag)
	assert.Equal(t, "new", s.SessionMode)
	assert.Equal(t, "scripted", s.Runner)
	assert.True(t, s.HasPrompt && s.HasLines && s.HasMeta)
	assert.Equal(t, int64(4000), s.DurationMS)
	assert.Same(t, s, r.Find("main_worker2", 1))
	assert.Nil(t, r.Find("main_worker2", 2))

	// Steps in the order they started.
	for i := 1; i < len(r.Steps); i++ {
		assert.False(t, r.Steps[i].Started.Before(r.Steps[i-1].Started))
	}
	// WAIT: 2 visits of 2s; the workers cost the most.
	require.Len(t, r.States, 4)
	assert.Equal(t, "WORKER.md", r.States[0].State)
	assert.Equal(t, "WAIT.md", r.States[3].State)
	wait := stateNamed(r, "WAIT.md")
	assert.Equal(t, StateStats{State: "WAIT.md", Visits: 2, Steps: 2, Duration: 4 * time.Second, Mean: 2 * time.Second,
		DurationMS: 4000, MeanMS: 2000, CostUSD: 0.002,
		Tokens: wait.Tokens}, *wait)

	// The workers end before main's wait does: the path is main's.
	assert.Equal(t, []string{"main_START_001", "main_WAIT_002", "main_WAIT_003", "main_JOIN_004"}, r.CriticalPath)
}

func stateNamed(r *Run, name string) *StateStats {
	for _, st := range r.States {
		if st.State == name {
			return st
		}
	}
	return nil
}

func TestLoadCriticalPathThroughAFork(t *testing.T) {
	// The worker outlasts main: the path goes through the fork into it.
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "W.md": "Work."}, `
replies:
  START: [{text: '<fork next="START">W</fork>', delay: 1s}, {text: "<result>main done</result>", delay: 1s}]
  W: [{text: "<result>w</result>", delay: 10s}]
`, options{}).load(t)
	assert.Equal(t, []string{"main_START_001", "main_w1_W_001"}, r.CriticalPath)
	links := CriticalPath(r)
	require.Len(t, links, 2)
	assert.Equal(t, int64(1000), links[1].Step.Started.Sub(r.Started).Milliseconds())
	assert.Zero(t, links[1].GapMS)
	assert.Equal(t, int64(11000), r.WallMS)
}

func TestLoadCallFunctionReset(t *testing.T) {
	r := runWorkflow(t, map[string]string{
		"START.md": "Go.", "SUB.md": "Sub.", "DEEP.md": "Deep.", "NEXT.md": "Next.", "BACK.md": "Back.", "END.md": "End.",
	}, `
replies:
  START: ['<call return="BACK">SUB</call>']
  SUB: ['<function return="NEXT">DEEP</function>']
  DEEP: ['<result>deep</result>']
  NEXT: ['<reset>END</reset>']
  END: ['<result>sub</result>']
  BACK: ['<result>top</result>']
`, options{}).load(t)
	main := r.Agent("main")
	assert.Equal(t, ":START.md:s>call +call:SUB.md:s>function ++function:DEEP.md:s>result +result:NEXT.md:s>reset "+
		"+reset:END.md:s>result result:BACK.md:s>result", visits(main))
	assert.Equal(t, "top", *main.Result)
	assert.Equal(t, "deep", *main.Path[2].Result)
	assert.Equal(t, "branch", r.Step("main_SUB_002").SessionMode)
	assert.Equal(t, "new", r.Step("main_DEEP_003").SessionMode)
}

func TestLoadRetryAndReminder(t *testing.T) {
	r := runWorkflow(t, map[string]string{
		"START.md": "---\nallowed_transitions:\n  - { tag: goto, target: END.md }\n  - { tag: result }\n---\nGo.",
		"END.md":   "End.",
	}, `
replies:
  START: [{outcome: crash}, "no tag here", {text: "<goto>END</goto>", cost: 0.01}]
  END: ["<result>ok</result>"]
`, options{}).load(t)
	assert.Equal(t, "completed", r.Status)
	assert.Equal(t, 1, r.Retries)
	assert.Equal(t, 1, r.Reminders)
	assert.Equal(t, 1, r.Failures)
	main := r.Agent("main")
	assert.Equal(t, ":START.md:sss>goto goto:END.md:s>result", visits(main))
	crashed, reminded, reminder := r.Step("main_START_001"), r.Step("main_START_002"), r.Step("main_START_003")
	assert.True(t, crashed.Retried)
	assert.Equal(t, "crash", crashed.Outcome)
	assert.Equal(t, 2, reminded.Attempt)
	assert.True(t, reminded.Reminded)
	assert.NotEmpty(t, reminded.Error)
	assert.True(t, reminder.Reminder)
	st := stateNamed(r, "START.md")
	assert.Equal(t, 1, st.Visits)
	assert.Equal(t, 3, st.Steps)
	assert.Equal(t, 1, st.Reminders)
	assert.Equal(t, 1, st.Failures)

	// The retry waited 5 s after the crash: the gap before the next step.
	links := CriticalPath(r)
	require.Len(t, links, 4)
	assert.Equal(t, int64(5000), links[1].GapMS)
	assert.Equal(t, GapBackoff, links[1].Why)
}

func TestLoadUsageLimitWait(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "END.md": "End."}, `
replies:
  START: [{outcome: usage_limit, reset: 2h}, "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`, options{}).load(t)
	require.Len(t, r.Waits, 1)
	w := r.Waits[0]
	assert.False(t, w.Ended.IsZero())
	assert.NotEmpty(t, w.Reason)
	// The reset plus raymond's 30 s margin.
	assert.InDelta(t, (2*time.Hour + 30*time.Second).Milliseconds(), r.WaitMS, 1000)
	assert.Equal(t, 1, r.Failures)
	assert.Equal(t, "usage limit", r.Step("main_START_001").Outcome)
	links := CriticalPath(r)
	require.Len(t, links, 3)
	assert.Equal(t, GapWait, links[1].Why)
	assert.Equal(t, ":START.md:ss>goto goto:END.md:s>result", visits(r.Agent("main")))
}

func TestLoadBudget(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "A.md": "A", "B.md": "B"}, `
replies:
  START: [{text: "<goto>A</goto>", cost: 0.01}]
  A: [{text: "<goto>B</goto>", cost: 0.01}]
  B: [{text: "<result>x</result>", cost: 0.01}]
`, options{budget: 0.02}).load(t)
	assert.Equal(t, "budget_exceeded", r.Status)
	assert.True(t, r.BudgetExceeded)
	assert.InDelta(t, 0.02, r.BudgetUSD, 1e-9)
	assert.InDelta(t, 0.02, r.CostUSD, 1e-9)
	assert.True(t, r.Complete)
	assert.Equal(t, "stopped", r.Agent("main").Status)
	assert.Equal(t, "goto:B.md:>", visits(r.Agent("main"))[len(visits(r.Agent("main")))-len("goto:B.md:>"):])
}

func TestLoadFailedAgent(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go."}, `
replies:
  START: ["no tag at all"]
`, options{}).load(t)
	assert.Equal(t, "failed", r.Status)
	main := r.Agent("main")
	assert.Equal(t, "failed", main.Status)
	assert.Contains(t, main.Error, "START.md")
	assert.False(t, main.Ended.IsZero())
}

func TestLoadTornEvents(t *testing.T) {
	rn := forkRun(t)
	appendFile(t, filepath.Join(rn.dir, "events.jsonl"), `{"time":"2026-11-21T16:59:25Z","type":"step_sta`)
	r := rn.load(t)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Notes, "events.jsonl ends in a torn line (47 bytes), dropped: the process was killed while writing it")
	assert.Equal(t, 6, r.StepCount)
	assert.Equal(t, "completed", r.Status, "the run_ended before the torn line still counts")
}

func TestLoadCutShort(t *testing.T) {
	// The process died during main's second step: events stop after its
	// step_started, its meta was never written, the state says running.
	rn := runWorkflow(t, map[string]string{"START.md": "Go.", "END.md": "End."}, `
replies:
  START: ["<goto>END</goto>"]
  END: ["<result>ok</result>"]
`, options{})
	cutEvents(t, rn.dir, 5) // run_started, step_started, step_ended, transition, step_started
	require.NoError(t, os.Remove(filepath.Join(rn.dir, "main_END_002.meta.json")))
	rn.state.Status, rn.state.Result = "running", nil
	rn.state.Agents[0].Status, rn.state.Agents[0].Result = "running", nil
	r := rn.load(t)

	assert.Equal(t, "running", r.Status)
	assert.False(t, r.Running)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Notes, "the run stopped without ending (crashed or killed); `raymond resume r1` continues it")
	assert.Contains(t, r.Notes, "main_END_002: cut short: it started but never ended (no step_ended event, no meta file)")
	s := r.Step("main_END_002")
	require.NotNil(t, s)
	assert.Empty(t, s.Outcome)
	assert.True(t, s.Ended.IsZero())
	assert.Equal(t, "stopped", r.Agent("main").Status)

	// The same, while a process drives it: nothing is missing but the end.
	src := rn.source()
	src.Running, src.PID = true, 4242
	r, err := Load(src)
	require.NoError(t, err)
	assert.Equal(t, []string{"the run has not ended: still running (pid 4242)"}, r.Notes)
	assert.Equal(t, "running", r.Agent("main").Status)
}

func TestLoadWithoutState(t *testing.T) {
	rn := forkRun(t)
	cutEvents(t, rn.dir, 10)
	r, err := Load(Source{Dir: rn.dir})
	require.NoError(t, err)
	assert.Equal(t, "unknown", r.Status)
	assert.Contains(t, r.Notes, "the transcript ends without run_ended and there is no state file: "+
		"the run stopped without ending (crashed or killed), or it is still running")
	// The steps whose events were cut off come from their meta files.
	assert.Equal(t, 6, r.StepCount)
	assert.Contains(t, strings.Join(r.Notes, "\n"), "not in events.jsonl; known from the meta file only")
	assert.Equal(t, "main", r.Agent("main_worker2").Parent)
}

func TestLoadWithoutEvents(t *testing.T) {
	rn := forkRun(t)
	require.NoError(t, os.Remove(filepath.Join(rn.dir, "events.jsonl")))
	r := rn.load(t)
	assert.Equal(t, "completed", r.Status, "from the state file")
	assert.Equal(t, 6, r.StepCount)
	assert.Equal(t, 3, r.AgentCount)
	assert.Equal(t, []string{"events.jsonl is missing: steps come from their files alone; tags, forks, retries, reminders and waits are unknown"}, r.Notes)
	assert.Equal(t, ":START.md:s> :WAIT.md:ss> :JOIN.md:s>", visits(r.Agent("main")))
	assert.Equal(t, "main", r.Agent("main_worker1").Parent)
	assert.InDelta(t, 0.102, r.CostUSD, 1e-9)
	assert.Equal(t, int64(6000), r.WallMS)
}

func TestLoadMissingMetaAndBadLines(t *testing.T) {
	rn := forkRun(t)
	require.NoError(t, os.Remove(filepath.Join(rn.dir, "main_JOIN_004.meta.json")))
	require.NoError(t, os.WriteFile(filepath.Join(rn.dir, "main_START_001.meta.json"), []byte(`{"agent": "ma`), 0o644))
	data, err := os.ReadFile(filepath.Join(rn.dir, "events.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(rn.dir, "events.jsonl"), append([]byte("not json\n"), data...), 0o644))
	r := rn.load(t)
	assert.Contains(t, r.Notes, "events.jsonl: line 1 that do not decode, skipped")
	assert.Contains(t, r.Notes, "step main_JOIN_004: no meta file; cache tokens, model and session mode are unknown")
	assert.Contains(t, r.Notes, "step main_START_001: the meta file does not decode (cut short?); ignored")
	assert.Equal(t, 6, r.StepCount)
	assert.Equal(t, "success", r.Step("main_JOIN_004").Outcome)
}

func TestLoadErrors(t *testing.T) {
	_, err := Load(Source{Dir: filepath.Join(t.TempDir(), "nope")})
	assert.ErrorContains(t, err, "no transcript folder")
	empty := t.TempDir()
	_, err = Load(Source{Dir: empty})
	assert.ErrorContains(t, err, "holds no transcript")
}

func TestSplitName(t *testing.T) {
	for _, tc := range []struct {
		name, agent     string
		wantAgent, stem string
		seq             int
	}{
		{"main_START_001", "main", "main", "START", 1},
		{"main_review1_REVIEW_002", "main_review1", "main_review1", "REVIEW", 2},
		{"main_review1_REVIEW_002", "", "main_review1", "REVIEW", 2},
		{"main_1_START_1234", "", "main", "1_START", 1234},
		{"main_w1_w2_DO_IT_003", "", "main_w1_w2", "DO_IT", 3},
		{"odd", "", "odd", "", 0},
		// An agent id too long for a file name is shortened in the name.
		{step.Name(deepAgent, "WORK.md", 7), deepAgent, deepAgent, "WORK", 7},
	} {
		a, stem, seq := splitName(tc.name, tc.agent)
		assert.Equal(t, []any{tc.wantAgent, tc.stem, tc.seq}, []any{a, stem, seq}, tc.name)
	}
}

// deepAgent is the id of an agent 30 forks deep, too long to be part of a
// file name as it is.
var deepAgent = "main" + strings.Repeat("_worker12", 30)

func TestLongestAgentOfShortenedName(t *testing.T) {
	shallow := "main" + strings.Repeat("_worker12", 29)
	name := step.Name(deepAgent, "WORK.md", 1)
	assert.Equal(t, deepAgent, longestAgent(name, []string{"main", shallow, deepAgent}))
	assert.Equal(t, shallow, longestAgent(step.Name(shallow, "WORK.md", 1), []string{"main", shallow, deepAgent}))
}

func TestMain(m *testing.M) {
	// Times in the text report are local; make them the same everywhere.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// TestWarningsNameTheirStateOnce: prompts' warnings already start with
// the state; the report does not name it twice.
func TestWarningsNameTheirStateOnce(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "---\nmodle: haiku\n---\nGo."},
		`replies: {START: ["<result>ok</result>"]}`, options{})
	got := r.load(t)
	require.Len(t, got.Warnings, 1)
	assert.Equal(t, `main: START.md: unknown frontmatter key "modle" ignored (did you mean "model"?)`, got.Warnings[0])
	ev := transcript.Event{Type: transcript.EventWarning, State: "START.md", Message: `START.md: unknown frontmatter key "modle" ignored`}
	assert.True(t, strings.HasSuffix(EventLine(&ev), ` warning: START.md: unknown frontmatter key "modle" ignored`), EventLine(&ev))
}

// TestCostsHaveNoFloatNoise: sums of step costs are shown as a person
// would add them (0.3, not 0.30000000000000004).
func TestCostsHaveNoFloatNoise(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "W.md": "Work."}, `
replies:
  START: [{text: "<goto>W.md</goto>", cost: 0.1}]
  W:
    - {text: "<goto>W.md</goto>", cost: 0.1}
    - {text: "<goto>W.md</goto>", cost: 0.1}
    - {text: "<result>ok</result>", cost: 0.1}
`, options{})
	got := r.load(t)
	assert.Equal(t, 0.4, got.CostUSD)
	for _, st := range got.States {
		if st.State == "W.md" {
			assert.Equal(t, 0.3, st.CostUSD) // 0.1+0.1+0.1 is 0.30000000000000004 in float64
		}
	}
	assert.Equal(t, 0.4, got.Agents[0].CostUSD)
}

func TestWorkflowFromStateOfURLRun(t *testing.T) {
	url := "https://h.example/wf/review-" + strings.Repeat("ab", 32) + ".zip"
	st := &state.Run{WorkflowID: "r1", ScopeDir: "/p/.raymond/registry/" + strings.Repeat("ab", 32) + ".zip", ScopeURL: url}
	dir := t.TempDir() // events that never say where the run started
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(`{"time":"2026-11-21T16:59:25Z","type":"print","agent":"main","message":"hi"}`+"\n"), 0o600))
	r, err := Load(Source{Dir: dir, State: st})
	if err != nil {
		t.Fatal(err)
	}
	if r.Workflow != url {
		t.Errorf("Workflow = %q, want the URL %q, not its copy in the registry", r.Workflow, url)
	}
}
