package realclaude

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"raymond/standin"
)

// fanout forks three workers that each write a file with the real Bash tool
// while main goes on to JOIN.md.
var fanout = scene{
	files: map[string]string{
		"wf/START.md":  "Fan out to three workers.\n",
		"wf/WORKER.md": "Worker {{item}}: write your file.\n",
		"wf/JOIN.md":   "Join: the workers are started.\n",
	},
	turns: []turn{
		{prompt: "^Fan out", text: `<fork next="JOIN.md" item="a">WORKER.md</fork>` +
			`<fork next="JOIN.md" item="b">WORKER.md</fork><fork next="JOIN.md" item="c">WORKER.md</fork>`},
		{prompt: "^Worker a:", bash: "echo a > a.txt", text: "<result>a written</result>"},
		{prompt: "^Worker b:", bash: "echo b > b.txt", text: "<result>b written</result>"},
		{prompt: "^Worker c:", bash: "echo c > c.txt", text: "<result>c written</result>"},
		{prompt: "^Join:", text: "<result>joined</result>"},
	},
}

func TestFork(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(fanout.turns...))
	w.write(fanout.files)
	o := w.must(0, "run", "--id", "fan", "wf")
	if o.stdout != "joined\n" {
		t.Errorf("stdout %q, want main's result", o.stdout)
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if !w.exists(f) {
			t.Errorf("no %s: a worker's Bash did not run", f)
		}
	}
	var workers []string
	steps := w.steps("fan")
	for _, m := range steps {
		if m.State == "WORKER.md" {
			workers = append(workers, m.Agent)
			if m.SessionMode != "new" || m.Outcome != "success" {
				t.Errorf("worker %s: %s session, %s", m.Agent, m.SessionMode, m.Outcome)
			}
		}
	}
	if len(workers) != 3 {
		t.Fatalf("workers %v, want 3: %s", workers, states(steps))
	}
	// The three ran at once: each started before any of them ended.
	var lastStart, firstEnd = steps[0].Started, steps[len(steps)-1].Ended
	for _, m := range steps {
		if m.State != "WORKER.md" {
			continue
		}
		if m.Started.After(lastStart) {
			lastStart = m.Started
		}
		if m.Ended.Before(firstEnd) {
			firstEnd = m.Ended
		}
	}
	if !lastStart.Before(firstEnd) {
		t.Errorf("the workers ran one after another: the last started at %v, the first ended at %v", lastStart, firstEnd)
	}
	w.checkCosts("fan")
	if s := w.status("fan"); !near(s.TotalCostUSD, cost(fanout.turns...)) {
		t.Errorf("run costs $%.6f, want $%.6f", s.TotalCostUSD, cost(fanout.turns...))
	}
}

// reminder answers without a tag first: raymond reminds the model, in the
// same session, of the tags the state accepts.
var reminder = scene{
	files: map[string]string{
		"wf/START.md": "---\nallowed_transitions:\n  - { tag: goto, target: DONE.md }\n  - { tag: goto, target: OTHER.md }\n---\nPick the path.\n",
		"wf/DONE.md":  "Done now.\n",
		"wf/OTHER.md": "Other.\n<result>other</result>\n",
	},
	turns: []turn{
		{prompt: "^Pick the path", text: "I am not sure which way to go."},
		{prompt: "^Your last answer could not be used", text: "<goto>DONE.md</goto>"},
		{prompt: "^Done now", text: "<result>reminded</result>"},
	},
}

// modelSwitch runs a state with model: haiku, then one without a model.
var modelSwitch = scene{
	files: map[string]string{
		"wf/START.md": "---\nmodel: haiku\n---\nQuick look.\n",
		"wf/B.md":     "Think hard.\n",
	},
	turns: []turn{
		{prompt: "^Quick look", text: "<goto>B.md</goto>", haiku: true},
		{prompt: "^Think hard", text: "<result>thought</result>"},
	},
}

func TestReminder(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(reminder.turns...))
	w.write(reminder.files)
	o := w.must(0, "run", "--id", "rem", "wf")
	if o.stdout != "reminded\n" {
		t.Errorf("stdout %q", o.stdout)
	}
	steps := w.steps("rem")
	if len(steps) != 3 || !steps[1].Reminder || steps[1].SessionMode != "resume" || steps[1].ResumedSession != steps[0].SessionID {
		t.Fatalf("want START, its reminder resuming its session, DONE: %s", states(steps))
	}
	turns := w.turns()
	if len(turns) != 3 || !strings.Contains(turns[1].Prompt, "<goto>DONE.md</goto>") {
		t.Errorf("the reminder does not list the accepted tags: %q", turns[1].Prompt)
	}
	w.checkCosts("rem")
}

func TestAsk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(
		turn{prompt: "^Ask the person", text: `<ask next="GO.md">Ship it?</ask>`},
		turn{prompt: "^The person said: yes, ship", text: "<result>shipped</result>"},
	))
	w.write(map[string]string{
		"wf/START.md": "Ask the person.\n",
		"wf/GO.md":    "The person said: {{input}}.\n",
	})
	o := w.must(4, "run", "--id", "ask", "--on-ask", "pause", "wf")
	if !strings.Contains(o.stdout, `"prompt":"Ship it?"`) {
		t.Errorf("no ask on stdout: %s", o.stdout)
	}
	w.must(0, "answer", "ask", "ask_main_1", "yes, ship")
	o = w.must(0, "resume", "ask")
	if o.stdout != "shipped\n" {
		t.Errorf("stdout %q", o.stdout)
	}
	steps := w.steps("ask")
	if len(steps) != 2 || steps[1].SessionMode != "resume" || steps[1].ResumedSession != steps[0].SessionID {
		t.Errorf("the answered step does not resume the asking session: %s", states(steps))
	}
	w.checkCosts("ask")
}

func TestBudgetStop(t *testing.T) {
	t.Parallel()
	// One request of $0.06 against a $0.05 budget: the CLI stops the step
	// itself, and no further step starts.
	w := newWorld(t, rules(
		turn{prompt: "^Spend a lot", bash: "echo spent > spent.txt", text: "<goto>NEXT.md</goto>", usage: usage(10000, 1000)},
		turn{prompt: "^Next", text: "<result>over</result>"},
	))
	w.write(map[string]string{"wf/START.md": "Spend a lot.\n", "wf/NEXT.md": "Next.\n"})
	w.must(5, "run", "--id", "bud", "--budget", "0.05", "wf")
	s := w.status("bud")
	if s.Status != "budget_exceeded" {
		t.Errorf("status %s", s.Status)
	}
	if !near(s.TotalCostUSD, 0.06) {
		t.Errorf("run costs $%.4f, want the one request's $0.06", s.TotalCostUSD)
	}
	for _, e := range w.turns() {
		if e.Prompt == "Next.\n" {
			t.Errorf("NEXT.md ran past the budget")
		}
	}
	if n := len(w.turns()); n != 1 {
		t.Errorf("%d requests, want 1: the CLI checks its cap after each request", n)
	}
}

func TestBudgetResumedStep(t *testing.T) {
	t.Parallel()
	// START spends $0.06 of $0.10; LOOP resumes its session with $0.04 left
	// and makes requests of $0.05 each: its cap must be $0.04, so the CLI
	// stops it after its first request and the run ends within one request
	// of its budget.
	w := newWorld(t, rules(
		turn{prompt: "^Start spending", text: "<goto>LOOP.md</goto>", usage: usage(10000, 1000)},
		turn{prompt: "^Loop", bash: "echo looped", text: "<result>looped</result>", usage: usage(12500, 0)},
	))
	w.write(map[string]string{"wf/START.md": "Start spending.\n", "wf/LOOP.md": "Loop.\n"})
	w.raymond("run", "--id", "bud", "--budget", "0.1", "wf")
	steps := w.steps("bud")
	if len(steps) < 2 {
		t.Fatalf("steps: %s", states(steps))
	}
	if i := slices.Index(steps[1].Argv, "--max-budget-usd"); i < 0 || steps[1].Argv[i+1] != "0.04" {
		t.Errorf("LOOP's argv %q, want --max-budget-usd 0.04, what is left", steps[1].Argv)
	}
	if s := w.status("bud"); s.TotalCostUSD > 0.1+0.05+1e-9 || s.Status != "budget_exceeded" {
		t.Errorf("run %s at $%.4f of $0.10: more than one request over", s.Status, s.TotalCostUSD)
	}
}

func TestModelSwitch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(modelSwitch.turns...))
	w.write(modelSwitch.files)
	w.must(0, "run", "--id", "mod", "wf")
	turns := w.turns()
	if len(turns) != 2 {
		t.Fatalf("%d requests", len(turns))
	}
	if !strings.Contains(turns[0].Model, "haiku") {
		t.Errorf("START.md (model: haiku) asked for %s", turns[0].Model)
	}
	t.Run("without model", func(t *testing.T) {
		if strings.Contains(turns[1].Model, "haiku") {
			t.Errorf("B.md, which names no model, ran on %s: the session's last model stuck", turns[1].Model)
		}
		steps := w.steps("mod")
		if len(steps) == 2 && !slices.Contains(steps[1].Argv, "--model") {
			t.Errorf("B.md's argv names no model: %q", steps[1].Argv)
		}
	})
}

func TestKill9Resume(t *testing.T) {
	t.Parallel()
	// The START step waits in its tool when raymond is killed. Its claude
	// runs detached from raymond (issue 23) and goes on; the resume adopts
	// it, follows it to its end and applies its answer: START is asked of
	// the API once, and the step's output is the one .jsonl.
	turns := []turn{
		{prompt: "^Work slowly", bash: "touch begun; while [ ! -e go ]; do sleep 0.1; done", text: "<goto>NEXT.md</goto>"},
		{prompt: "^Wrap up", text: "<result>survived</result>"},
	}
	w := newWorld(t, rules(turns...))
	w.write(map[string]string{"wf/START.md": "Work slowly.\n", "wf/NEXT.md": "Wrap up.\n"})
	cmd := w.command("run", "--id", "k9", "wf")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.waitFor("the step's tool to start", func() bool { return w.exists("begun") })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	resume := w.command("resume", "k9")
	var stdout, stderr strings.Builder
	resume.Stdout, resume.Stderr = &stdout, &stderr
	if err := resume.Start(); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(w.dir, ".raymond", "debug", "k9", "events.jsonl")
	w.waitFor("the step to be adopted", func() bool {
		data, _ := os.ReadFile(events)
		return strings.Contains(string(data), `"type":"step_adopted"`)
	})
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := resume.Wait(); err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr.String())
	}
	if stdout.String() != "survived\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "adopted step main_START_001, still running") {
		t.Errorf("the resume did not say it adopted the step:\n%s", stderr.String())
	}
	steps := w.steps("k9")
	if len(steps) != 2 || steps[0].State != "START.md" || steps[0].Seq != 1 || steps[0].Outcome != "success" ||
		steps[1].ResumedSession != steps[0].SessionID || steps[1].SessionMode != "resume" {
		t.Errorf("want START adopted, NEXT resuming its session: %s", states(steps))
	}
	if n := len(w.turns()); n != turns[0].requests()+turns[1].requests() {
		t.Errorf("%d requests to the API, want %d: START was asked again", n, turns[0].requests()+turns[1].requests())
		w.logRequests()
	}
	w.checkCosts("k9")
	if s := w.status("k9"); !near(s.TotalCostUSD, cost(turns...)) {
		t.Errorf("run costs $%.6f, the API was paid $%.6f", s.TotalCostUSD, cost(turns...))
	}
}

// killSteps sends SIGTERM to the claude of every step of run still
// running, as the out-of-memory killer might: the processes that carry
// the step's marker and whose parent does not. What their tools started
// is left.
func (w *world) killSteps(run string) {
	w.t.Helper()
	mark := []byte("RAYMOND_STEP=" + run + "/")
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	marked := map[int]int{} // pid → parent
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(env, mark) || !bytes.Contains(env, []byte(filepath.Join(w.home, ".claude"))) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if ppid, err := parent(pid); err == nil {
			marked[pid] = ppid
		}
	}
	n := 0
	for pid, ppid := range marked {
		if _, ok := marked[ppid]; !ok {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			n++
		}
	}
	if n == 0 {
		w.t.Fatalf("no step of %s runs", run)
	}
}

// parent is the parent of process pid (field 4 of /proc/PID/stat).
func parent(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(f[1])
}

func TestKill9FanOutCost(t *testing.T) {
	t.Parallel()
	hang := "touch begun-%s; while [ ! -e never ]; do sleep 0.1; done"
	var turns []turn
	turns = append(turns, turn{prompt: "^Fan out", text: `<fork next="JOIN.md" item="a">WORKER.md</fork>` +
		`<fork next="JOIN.md" item="b">WORKER.md</fork><fork next="JOIN.md" item="c">WORKER.md</fork>`})
	for _, item := range []string{"a", "b", "c"} {
		turns = append(turns, turn{prompt: "^Worker " + item + ":", bash: strings.ReplaceAll(hang, "%s", item), text: "<result>never</result>"})
	}
	for _, item := range []string{"a", "b", "c"} {
		turns = append(turns, turn{prompt: "^Worker " + item + ":", text: "<result>" + item + " done</result>"})
	}
	// main goes on to JOIN beside its workers; if that step had ended when
	// raymond was killed, the resume adopts its result.
	turns = append(turns, turn{prompt: "^Join:", text: "<result>joined</result>", repeat: true})
	w := newWorld(t, rules(turns...))
	w.write(fanout.files)
	cmd := w.command("run", "--id", "fk", "wf")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.waitFor("three workers' tools", func() bool { return w.exists("begun-a") && w.exists("begun-b") && w.exists("begun-c") })
	// raymond dies; the workers' claude processes live on (issue 23), and
	// are then killed themselves, as the out-of-memory killer might: their
	// tools live on until the resume ends them. (A claude killed with
	// SIGKILL writes no cost-state: the CLI 2.1.330 writes it at exit and
	// on SIGTERM or SIGINT.)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	w.killSteps("fk")
	w.must(0, "resume", "fk")
	// Every request the API answered was paid, the killed ones included.
	paid := 0.0
	for _, e := range w.turns() {
		if e.Status == 200 {
			paid += 1000*inputPrice + 200*outputPrice
		}
	}
	if s := w.status("fk"); !near(s.TotalCostUSD, paid) {
		t.Errorf("run booked $%.6f, the API was paid $%.6f", s.TotalCostUSD, paid)
	}
}

// authFailure answers every main turn with a 401.
func authFailure() *standin.Rules {
	return &standin.Rules{Default: &standin.Reply{Status: 401, ErrorMessage: "invalid x-api-key"}}
}

func TestAuthFailure(t *testing.T) {
	t.Parallel()
	w := newWorld(t, authFailure())
	// Two retries instead of the CLI's ten keep this scenario short.
	w.extra = []string{"CLAUDE_CODE_MAX_RETRIES=2"}
	w.write(map[string]string{"wf/START.md": "Anything.\n<result>x</result>\n"})
	o := w.must(7, "run", "--id", "auth", "wf")
	if s := w.status("auth"); s.Status != "paused" {
		t.Errorf("status %s, want paused", s.Status)
	}
	if n := len(w.turns()); n < 1 || n > 3 {
		t.Errorf("%d requests, want the first and at most two retries", n)
	}
	if !strings.Contains(o.stderr, "raymond resume auth") {
		t.Errorf("stderr does not say how to go on:\n%s", o.stderr)
	}
}

func TestAuthFailureFast(t *testing.T) {
	t.Parallel()
	w := newWorld(t, authFailure())
	w.write(map[string]string{"wf/START.md": "Anything.\n<result>x</result>\n"})
	o := w.must(7, "run", "--id", "auth", "wf")
	if n := len(w.turns()); n > 2 {
		t.Errorf("%d requests: raymond waited for the CLI's retries instead of stopping at the first", n)
	}
	if !strings.Contains(o.stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("the advice does not name the key's source, ANTHROPIC_API_KEY:\n%s", o.stderr)
	}
}

func TestRejected429(t *testing.T) {
	t.Parallel()
	w := newWorld(t, &standin.Rules{Default: &standin.Reply{Status: 429, ErrorMessage: "Rate limited",
		Headers: map[string]string{"anthropic-ratelimit-unified-status": "rejected", "x-should-retry": "false"}}})
	w.write(map[string]string{"wf/START.md": "Anything.\n<result>x</result>\n"})
	w.must(3, "run", "--id", "lim", "--no-wait", "wf")
	if s := w.status("lim"); s.Status != "paused" {
		t.Errorf("status %s, want paused on the usage limit", s.Status)
	}
	if n := len(w.turns()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// continueSession runs the CLI once in dir, as a user would, then raymond
// with --continue-session there, and checks that the first step resumed
// the user's session.
func continueSession(t *testing.T, sub string) {
	w := newWorld(t, rules(
		turn{prompt: "^Earlier chat", text: "Noted."},
		turn{prompt: "^Go on from", text: "<result>continued</result>"},
	))
	if sub != "" {
		w.dir += "/" + sub
		if err := os.MkdirAll(filepath.Join(w.dir, ".raymond"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write(map[string]string{"wf/START.md": "Go on from there.\n"})
	user := w.userSession("Earlier chat.")
	o := w.must(0, "run", "--id", "cs", "--continue-session", "wf")
	if o.stdout != "continued\n" {
		t.Errorf("stdout %q", o.stdout)
	}
	steps := w.steps("cs")
	if len(steps) != 1 || steps[0].ResumedSession != user {
		t.Errorf("the first step did not continue the user's session %s: %+v", user, steps)
	}
}

func TestContinueSession(t *testing.T) {
	t.Parallel()
	continueSession(t, "")
}

func TestContinueSessionLongFolder(t *testing.T) {
	t.Parallel()
	continueSession(t, strings.Repeat("long-folder-name/", 14))
}

func TestContinueSessionUnusualFolder(t *testing.T) {
	t.Parallel()
	continueSession(t, "ünï_😀.dir")
}
