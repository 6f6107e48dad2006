package wftest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/analysis"
	"raymond/orchestrator"
	"raymond/state"
)

func TestParseAsks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	path := filepath.Join(dir, "wf", "loop.test.yaml")
	f, err := Parse(path, []byte(`
cases:
  - name: answered
    answers:
      ask_main_1: "yes"
      main/FIX.md: ["no", "yes"]
      SUMMARY: ok
    timeouts: [ask_main_4, main/GIVE_UP]
    expect:
      status: asking
      asks: [ask_main_1, {id: ask_main_2, status: answered, answer: "no"}, {id: ask_main_4, status: expired}]
  - name: rejected
    on_ask: reject
`))
	require.NoError(t, err)
	c := f.Cases[0]
	assert.Equal(t, map[string][]string{"ask_main_1": {"yes"}, "main/FIX": {"no", "yes"}, "SUMMARY": {"ok"}}, c.Answers)
	assert.Equal(t, []string{"ask_main_4", "main/GIVE_UP"}, c.Timeouts)
	assert.Equal(t, "asking", c.Expect.Status)
	no := "no"
	assert.Equal(t, []ExpectAsk{{ID: "ask_main_1"}, {ID: "ask_main_2", Status: "answered", Answer: &no}, {ID: "ask_main_4", Status: "expired"}}, c.Expect.Asks)
	assert.Equal(t, OnAskReject, f.Cases[1].OnAsk)
}

func TestParseAskErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	path := filepath.Join(dir, "wf", "t.test.yaml")
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown state", "cases:\n  - name: a\n    answers:\n      main/REVIEW: \"yes\"\n",
			":4: case \"a\": answers: main/REVIEW: target \"REVIEW\" does not exist: no REVIEW.md or REVIEW.sh in the workflow; name an ask by its id (ask_main_1), AGENT/STATE or STATE"},
		{"answer not a text", "cases:\n  - name: a\n    answers:\n      ask_main_1: {a: b}\n",
			":4: case \"a\": answers: ask_main_1: a mapping is not an answer; give a text, or a list of texts used in order"},
		{"bad on_ask", "cases:\n  - name: a\n    on_ask: auto\n",
			":3: case \"a\": on_ask: \"auto\" is not a mode; use one of answer, pause, reject"},
		{"answers with reject", "cases:\n  - name: a\n    on_ask: reject\n    answers: {ask_main_1: \"yes\"}\n",
			":3: case \"a\": on_ask: reject answers no ask, so answers and timeouts would never be used; leave out on_ask or them"},
		{"bad ask status", "cases:\n  - name: a\n    expect:\n      asks: [{id: ask_main_1, status: done}]\n",
			":4: case \"a\": expect: asks: ask_main_1: status \"done\" is not one of answered, expired, pending"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(path, []byte(tt.yaml))
			require.Error(t, err)
			assert.Equal(t, path+tt.want, err.Error())
		})
	}
}

// ask is an ask of agent at st, with a deadline in d when d > 0.
func ask(id, st string, d time.Duration) state.Ask {
	k := state.Ask{ID: id, State: st, AskedAt: time.Now()}
	if d > 0 {
		k.Deadline = ptr(k.AskedAt.Add(d))
	}
	return k
}

func TestCaseAskerAnswersInOrder(t *testing.T) {
	a := newCaseAsker(&Case{
		Answers:  map[string][]string{"ask_main_1": {"first"}, "main/REVIEW.md": {"no", "yes"}, "DONE": {"ok"}},
		Timeouts: []string{"main_w1/REVIEW"},
	})
	a.Open("main", ask("ask_main_1", "REVIEW.md", 0))
	a.Open("main", ask("ask_main_2", "REVIEW.md", 0))
	a.Open("main", ask("ask_main_3", "REVIEW.md", time.Hour))
	a.Open("main_w1", ask("ask_main_w1_4", "DONE.md", 0))
	a.Open("main_w1", ask("ask_main_w1_5", "REVIEW.md", time.Hour))
	var got []orchestrator.Answer
	for i := 0; i < 4; i++ {
		got = append(got, <-a.Answers())
	}
	assert.Equal(t, []orchestrator.Answer{{AskID: "ask_main_1", Text: "first"}, {AskID: "ask_main_2", Text: "no"}, {AskID: "ask_main_3", Text: "yes"}, {AskID: "ask_main_w1_4", Text: "ok"}}, got)
	assert.Empty(t, a.pending, "ask_main_w1_5 times out")
	assert.Empty(t, a.unused())
	select {
	case x := <-a.Answers():
		t.Fatalf("unexpected answer %v", x)
	default:
	}
}

func TestCaseAskerLeavesUnansweredAsksPending(t *testing.T) {
	a := newCaseAsker(&Case{Answers: map[string][]string{"ask_main_9": {"never"}}, Timeouts: []string{"ask_main_2"}})
	clock := askClock{InstantClock: &orchestrator.InstantClock{}, asker: a}
	k := ask("ask_main_1", "REVIEW.md", time.Hour)
	a.Open("main", k)
	_, open := <-a.Answers()
	assert.False(t, open, "nobody is left to answer: the run ends asking")
	assert.Equal(t, []string{"ask_main_1"}, a.pending)
	assert.Equal(t, []string{"ask_main_9 (1 answer)"}, a.unused())

	assert.NotNil(t, clock.After(time.Minute))
	select {
	case <-clock.After(2 * time.Hour):
		t.Fatal("the clock reached the deadline of an ask left pending")
	default:
	}

	a.Open("main", ask("ask_main_2", "REVIEW.md", 0))
	assert.Equal(t, []string{"timeouts: ask_main_2 has no timeout attribute, so it cannot time out; answer it under answers instead"}, a.problems)
}

func TestAskClockWaitsForQueuedAnswers(t *testing.T) {
	a := newCaseAsker(&Case{Answers: map[string][]string{"ask_main_1": {"yes"}}})
	clock := askClock{InstantClock: &orchestrator.InstantClock{}, asker: a}
	a.Open("main", ask("ask_main_1", "REVIEW.md", time.Minute))
	before := clock.Now()
	select {
	case <-clock.After(time.Minute):
		t.Fatal("the clock jumped to the deadline before the answer was delivered")
	default:
	}
	assert.WithinDuration(t, before, clock.Now(), time.Second, "the clock did not move")
	<-a.Answers()
	select {
	case <-clock.After(time.Minute):
	default:
		t.Fatal("once the answer is delivered the clock runs on")
	}
}

func TestCheckAsks(t *testing.T) {
	yes, no := "yes", "no"
	run := &analysis.Run{Status: "asking", Asks: []*analysis.Ask{
		{ID: "ask_main_1", Agent: "main", State: "REVIEW.md", Status: analysis.AskAnswered, Answer: &yes},
		{ID: "ask_main_2", Agent: "main", State: "DECIDE.md", Question: "Go on?", Status: analysis.AskPending},
	}}
	c := &Case{Expect: Expect{Status: "completed", Asks: []ExpectAsk{{ID: "ask_main_1", Answer: &no}}}}
	assert.Equal(t, []string{
		`ask ask_main_2 (main at DECIDE.md: "Go on?") was not answered; answer it under answers (ask_main_2: "…") or let it expire under timeouts`,
		`asks: ask_main_1: answer got "yes", want "no"`,
		"asks: the run asked 1 more than expected: ask_main_2",
	}, checkAsks(c, run, nil))

	c.Expect = Expect{Status: "asking", Asks: []ExpectAsk{{ID: "ask_main_1", Status: analysis.AskAnswered}, {ID: "ask_main_2"}, {ID: "ask_main_3"}}}
	assert.Equal(t, []string{"asks: ask_main_3 was never asked; the run asked ask_main_1, ask_main_2"}, checkAsks(c, run, nil))
}

func TestRecordAsksAndScripts(t *testing.T) {
	run, err := analysis.Load(analysis.Source{Dir: "../analysis/testdata/asks"})
	require.NoError(t, err)
	got, err := Record(run, RecordOptions{}, 0)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(got, "# Script states run for real (--scripts records their output instead): POLL.sh.\n"), got)
	assert.NotContains(t, got, "POLL.sh:\n")
	assert.Contains(t, got, "  answers:\n    ask_main_1: \"yes\"\n  timeouts: [ask_main_2]\n")
	assert.Contains(t, got, "    status: asking\n")
	assert.Contains(t, got, "main: [START, goto POLL.sh, goto REVIEW, ask APPLY, call-workflow lib/CHECK, result APPLY, fork-workflow DECIDE, ask timeout ESCALATE]")
	assert.Contains(t, got, "    CHECK.md:\n", "a state in another workflow is replied to by its name")
	assert.Contains(t, got, "    steps: 9\n")
	assert.Contains(t, got, "    asks: [ask_main_1, ask_main_2, ask_main_w1_3]\n")

	got, err = Record(run, RecordOptions{Scripts: true}, 0)
	require.NoError(t, err)
	assert.NotContains(t, got, "run for real")
	assert.Contains(t, got, "    POLL.sh:\n      - text: |\n          checking the build\n          <goto>REVIEW</goto>\n        template: false\n")

	for _, e := range []string{"ask timeout ESCALATE", "call-workflow lib/CHECK", "on_max_visits ASK.sh"} {
		tag, st, ok := splitEntry(e)
		assert.True(t, ok)
		assert.Equal(t, e, tag+" "+st)
	}
}

func TestApprovalCases(t *testing.T) {
	rep := Run(context.Background(), []string{"testdata/approval/approval.test.yaml"}, Options{})
	require.NoError(t, rep.Files[0].Err)
	for id, fails := range failures(rep) {
		assert.Empty(t, fails, "case %s", id)
	}
	assert.Equal(t, 5, rep.CaseCount())
}

func TestUnansweredAskFailsTheCase(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"wf/START.md": "Ask.",
		"wf/NEXT.md":  "Go on.",
		"wf/t.test.yaml": `cases:
  - name: forgot the answer
    replies:
      START: ['<ask next="NEXT.md">Ship it?</ask>']
    answers:
      ask_main_7: "yes"
`,
	})
	rep := Run(context.Background(), []string{filepath.Join(dir, "wf", "t.test.yaml")}, Options{})
	require.NoError(t, rep.Files[0].Err)
	assert.Equal(t, []string{
		"status: got asking, want completed",
		`ask ask_main_1 (main at START.md: "Ship it?") was not answered; answer it under answers (ask_main_1: "…") or let it expire under timeouts`,
		"answers not used: ask_main_7 (1 answer); the run never asked for them",
	}, failures(rep)["t/forgot the answer"])
}

// A timeout asked for an ask that has none is one failure that says what
// to do, not followed by a line that suggests the timeout again.
func TestTimeoutOfAnAskWithoutOne(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"wf/START.md": "Ask.",
		"wf/NEXT.md":  "Go on.",
		"wf/t.test.yaml": `cases:
  - name: no deadline
    replies:
      START: ['<ask next="NEXT.md">Ship it?</ask>']
    timeouts: [ask_main_1]
`,
	})
	rep := Run(context.Background(), []string{filepath.Join(dir, "wf", "t.test.yaml")}, Options{})
	require.NoError(t, rep.Files[0].Err)
	assert.Equal(t, []string{
		"status: got asking, want completed",
		"timeouts: ask_main_1 has no timeout attribute, so it cannot time out; answer it under answers instead",
	}, failures(rep)["t/no deadline"])
}

func TestReportShowsAsks(t *testing.T) {
	yes := "yes"
	c := &CaseResult{Name: "a", ID: "t/a", Status: "completed", Steps: 2,
		Paths: []Path{{Agent: "main", Visits: []Visit{{State: "START.md"}, {State: "CHECK.md", Via: "ask"}}}},
		Asks:  []AskResult{{ID: "ask_main_1", Status: "answered", Answer: &yes}, {ID: "ask_main_2", Status: "expired"}}}
	rep := &Report{Files: []*FileResult{{Path: "t.test.yaml", Cases: []*CaseResult{c}}}}
	var b strings.Builder
	require.NoError(t, WriteText(&b, rep, true))
	assert.Contains(t, b.String(), "    path:\n      main: [START, ask CHECK]\n    asks: [{id: ask_main_1, status: answered, answer: \"yes\"}, {id: ask_main_2, status: expired}]\n")
	b.Reset()
	require.NoError(t, WriteJSON(&b, rep))
	assert.Contains(t, b.String(), `"asks": [`)
	assert.Contains(t, b.String(), `"answer": "yes"`)
}

func TestScriptStates(t *testing.T) {
	rep := Run(context.Background(), []string{"testdata/poll/poll.test.yaml"}, Options{})
	require.NoError(t, rep.Files[0].Err)
	fails := failures(rep)
	assert.Empty(t, fails["poll/scripted script"], "a reply answers the script state")
	assert.Empty(t, fails["poll/real script"], "the script runs for real")
}
