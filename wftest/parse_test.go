package wftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	write(t, dir, map[string]string{"work/.keep": ""})
	path := filepath.Join(dir, "wf", "loop.test.yaml")
	f, err := Parse(path, []byte(`
workflow: .
cwd: ../work
cases:
  - name: fixes twice
    input: the parser
    budget: 1.5
    max_parallel: 3
    replies:
      START: ["<goto>FIX.md</goto>"]
    expect:
      status: failed
      result: done
      result_matches: "^do"
      path:
        main: [START, FIX.md]
        main_w1: [W]
      steps: 4
      cost: 0.03
      unvisited: [GIVE_UP]
  - name: defaults
`))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "wf"), f.Workflow)
	assert.Equal(t, filepath.Join(dir, "wf"), f.Scope)
	assert.Equal(t, filepath.Join(dir, "work"), f.Cwd)
	require.Len(t, f.Cases, 2)

	c := f.Cases[0]
	assert.Equal(t, "fixes twice", c.Name)
	assert.Equal(t, "loop/fixes twice", c.ID)
	assert.Equal(t, 5, c.Line)
	assert.Equal(t, "the parser", *c.Input)
	assert.Equal(t, 1.5, c.BudgetUSD)
	assert.Equal(t, 3, c.MaxParallel)
	e := c.Expect
	assert.Equal(t, "failed", e.Status)
	assert.Equal(t, "done", *e.Result)
	assert.Equal(t, "^do", e.ResultMatches.String())
	assert.Equal(t, []AgentStates{{Agent: "main", States: []string{"START", "FIX.md"}}, {Agent: "main_w1", States: []string{"W"}}}, e.Paths)
	assert.Equal(t, 4, *e.Steps)
	assert.Equal(t, 0.03, *e.CostUSD)
	assert.Equal(t, []string{"GIVE_UP"}, e.Unvisited)
	r, err := c.Runner()
	require.NoError(t, err)
	assert.Len(t, r.Unused(), 1, "the runner holds the case's replies")

	d := f.Cases[1]
	assert.Nil(t, d.Input)
	assert.Equal(t, 1, d.MaxParallel, "one step at a time by default: replies are taken in a fixed order")
	assert.Equal(t, Expect{Status: "completed"}, d.Expect)

	cwd, err := os.Getwd()
	require.NoError(t, err)
	f, err = Parse(path, []byte("cases:\n  - name: a\n"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "wf"), f.Workflow, "the workflow defaults to the file's folder")
	assert.Equal(t, cwd, f.Cwd, "the agents work in the current folder by default")

	f, err = Parse(path, []byte("workflow: FIX.md\ncases:\n  - name: a\n"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "wf", "FIX.md"), f.Workflow, "a workflow may start from any of its states")
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	write(t, dir, map[string]string{"wf/notes.txt": "not a folder"})
	tests := []struct {
		name string
		yaml string
		want string // every line, after "t.test.yaml"
	}{
		{"not yaml", "cases: [", ":1: invalid YAML: did not find expected node content"},
		{"bad indentation", "cases:\n  - name: a\n   input: b\n", ":3: invalid YAML: did not find expected '-' indicator"},
		{"not a mapping", "- a\n", ":1: a test file is a mapping with the keys workflow, cwd, cases"},
		{"unknown top key", "workflow: .\ncase:\n  - name: a\n",
			":2: unknown key \"case\" (did you mean cases?); a test file takes workflow, cwd, cases"},
		{"no cases", "workflow: .\n", ": no cases: a test file lists its cases under the key cases"},
		{"empty cases", "cases: []\n", ":1: cases is empty; give at least one case, each starting with \"- name: …\""},
		{"no cases under the key", "cases:\n", ":1: cases is empty; give at least one case, each starting with \"- name: …\""},
		{"cases not a list", "cases: {name: a}\n", ":1: cases must be a list of cases, each starting with \"- name: …\""},
		{"missing workflow", "workflow: ../nowhere\ncases:\n  - name: a\n",
			":1: workflow ../nowhere: " + filepath.Join(dir, "nowhere") + ": no such file or folder; give a workflow folder or the state file to start from"},
		{"cwd not a folder", "cwd: notes.txt\ncases:\n  - name: a\n",
			":1: cwd notes.txt is not a folder (" + filepath.Join(dir, "wf", "notes.txt") + "); cwd: names the folder the agents work in, relative to the test file"},
		{"case not a mapping", "cases:\n  - just text\n", ":2: case 1: \"just text\" is not a mapping; a case takes the keys name, input, budget, max_parallel, replies, answers, timeouts, on_ask, files, task_files, interrupt_after, rewind, expect"},
		{"unknown case key", "cases:\n  - name: a\n    inptu: x\n",
			":3: case \"a\": unknown key \"inptu\" (did you mean input?); a case takes name, input, budget, max_parallel, replies, answers, timeouts, on_ask, files, task_files, interrupt_after, rewind, expect"},
		{"key twice", "cases:\n  - name: a\n    input: x\n    input: y\n", ":4: case \"a\": input is given twice"},
		{"no name", "cases:\n  - input: x\n", ":2: case 1 has no name; give every case a name that is unique in the file"},
		{"name not text", "cases:\n  - name: [a]\n", ":2: case 1: name: a list is not a text; quote it"},
		{"duplicate name", "cases:\n  - name: a\n  - name: b\n  - name: a\n",
			":4: case \"a\": the name is already taken by case 1; give every case its own name"},
		{"bad budget", "cases:\n  - name: a\n    budget: lots\n",
			":3: case \"a\": budget: \"lots\" is not an amount in USD; give a number, 0 or more, such as 0.25"},
		{"bad max_parallel", "cases:\n  - name: a\n    max_parallel: 0\n",
			":3: case \"a\": max_parallel: 0 is not a number of steps; give a whole number, 1 or more"},
		{"bad reply", "cases:\n  - name: a\n    replies:\n      START:\n        - ok\n        - {text: x, tiems: 2}\n",
			":6: case \"a\": replies: START reply 2: unknown key \"tiems\"; a reply takes text, outcome, times, repeat, cost, delay, wait_for, reset, say, tools, writes, template"},
		{"replies not a mapping", "cases:\n  - name: a\n    replies: [a]\n", ":3: case \"a\": replies must map state names to lists of replies"},
		{"unknown state", "cases:\n  - name: a\n    replies:\n      START: [x]\n      main_w1/FIXX: [z]\n",
			":5: case \"a\": replies: replies for \"main_w1/FIXX\" name no state of the workflow: target \"FIXX\" does not exist: no FIXX.md or FIXX.sh in the workflow"},
		{"unknown expect key", "cases:\n  - name: a\n    expect:\n      stats: failed\n",
			":4: case \"a\": expect: unknown key \"stats\" (did you mean status?); expect takes status, result, result_matches, path, steps, reminders, retries, cost, unvisited, asks, files, prints"},
		{"bad status", "cases:\n  - name: a\n    expect: {status: done}\n",
			":3: case \"a\": expect: status: \"done\" is not a status; use one of completed, failed, budget_exceeded, paused, asking"},
		{"bad regexp", "cases:\n  - name: a\n    expect:\n      result_matches: \"(\"\n",
			":4: case \"a\": expect: result_matches: error parsing regexp: missing closing ): `(`"},
		{"path not a mapping", "cases:\n  - name: a\n    expect:\n      path: [START]\n",
			":4: case \"a\": expect: path must map each agent to its states, such as main: [START, FIX, SUMMARY]"},
		{"path not states", "cases:\n  - name: a\n    expect:\n      path:\n        main: START\n",
			":5: case \"a\": expect: path: main must be a list of states, such as [START, FIX]"},
		{"empty path", "cases:\n  - name: a\n    expect:\n      path:\n        main: []\n",
			":5: case \"a\": expect: path: main: no states; every agent enters at least one"},
		{"unknown tag", "cases:\n  - name: a\n    expect:\n      path:\n        main:\n          - START\n          - goot FIX\n",
			":7: case \"a\": expect: path: main: item 2: \"goot FIX\" starts with \"goot\", which is not a tag; write STATE or TAG STATE, where TAG is one of goto, reset, call, function, fork, result, call-workflow, function-workflow, fork-workflow, reset-workflow, ask, ask timeout, on_max_visits (the tag that led to the state)"},
		{"tag with a capital", "cases:\n  - name: a\n    expect:\n      path:\n        main: [START, Goto FIX]\n",
			":5: case \"a\": expect: path: main: item 2: \"Goto FIX\" starts with \"Goto\", which is not a tag; write STATE or TAG STATE, where TAG is one of goto, reset, call, function, fork, result, call-workflow, function-workflow, fork-workflow, reset-workflow, ask, ask timeout, on_max_visits (the tag that led to the state)"},
		{"bad steps", "cases:\n  - name: a\n    expect:\n      steps: many\n",
			":4: case \"a\": expect: steps: \"many\" is not a number of steps; give a whole number, 0 or more"},
		{"bad cost", "cases:\n  - name: a\n    expect:\n      cost: -1\n",
			":4: case \"a\": expect: cost: -1 is not an amount in USD; give a number, 0 or more, such as 0.25"},
		{"bad reminders and retries", "cases:\n  - name: a\n    expect:\n      reminders: -1\n      retries: two\n",
			":4: case \"a\": expect: reminders: -1 is not a number of reminders; give a whole number, 0 or more\n" +
				":5: case \"a\": expect: retries: \"two\" is not a number of retries; give a whole number, 0 or more"},
		{"unknown unvisited", "cases:\n  - name: a\n    expect:\n      unvisited:\n        - GIVE_UP\n        - GIVE_IN\n",
			":6: case \"a\": expect: unvisited: target \"GIVE_IN\" does not exist: no GIVE_IN.md or GIVE_IN.sh in the workflow"},
		{"files escape", "cases:\n  - name: a\n    files:\n      ../up.txt: x\n      /etc/x: y\n      ok.txt: [1]\n",
			":4: case \"a\": files: ../up.txt leaves the case's folder; give a path inside it, without ..\n" +
				":5: case \"a\": files: /etc/x is an absolute path; give a path relative to the case's folder\n" +
				":6: case \"a\": files: ok.txt: a list is not a text; give the file's content as a text (\"\" for an empty file)"},
		{"task_files paths", "cases:\n  - name: a\n    task_files:\n      \"{{task_folder}}/plan.md\": x\n      ../../up.txt: y\n      /abs: z\n",
			":4: case \"a\": task_files: {{task_folder}}/plan.md: the paths of task_files are relative to the task folder and not filled in; write plan.md, not {{task_folder}}/plan.md\n" +
				":5: case \"a\": task_files: ../../up.txt leaves the task folder; give a path inside it, without ..\n" +
				":6: case \"a\": task_files: /abs is an absolute path; give a path relative to the task folder"},
		{"a file and a folder", "cases:\n  - name: a\n    files:\n      d/e/f.txt: x\n      d: z\n",
			":4: case \"a\": files: d/e/f.txt is in the folder d, which the case also gives as a file; rename one of them"},
		{"expect task folder escape", "cases:\n  - name: a\n    expect:\n      files:\n        \"{{task_folder}}/../../x\": y\n",
			":5: case \"a\": expect: files: {{task_folder}}/../../x: ../../x leaves the task folder; give a path inside it, without .."},
		{"task_files not a mapping", "cases:\n  - name: a\n    task_files: [plan.md]\n",
			":3: case \"a\": task_files must map each file's path to its content, such as notes/plan.md: \"- [ ] one\""},
		{"bad interrupt_after", "cases:\n  - name: a\n    interrupt_after: 0\n",
			":3: case \"a\": interrupt_after: 0 is not a number of steps; give a whole number, 1 or more"},
		{"expect files", "cases:\n  - name: a\n    expect:\n      files:\n        \"{{task_dir}}/a\": x\n        b: {contains: [1]}\n        c: {absent: true, contains: x}\n        d: {cotains: x}\n        e: {matches: \"(\"}\n        ../f: x\n",
			":5: case \"a\": expect: files: {{task_dir}}/a: a path starts with {{task_folder}}/ (main's task folder) or {{task_folder:NAME}}/, or is relative to the case's folder\n" +
				":6: case \"a\": expect: files: b: contains must be a text or a list of texts\n" +
				":7: case \"a\": expect: files: c: absent: true says the file must not exist, so it takes no other check\n" +
				":8: case \"a\": expect: files: d: unknown key \"cotains\" (did you mean contains?); a file's expectation takes contains, not_contains, matches, absent\n" +
				":9: case \"a\": expect: files: e: matches: error parsing regexp: missing closing ): `(`\n" +
				":10: case \"a\": expect: files: ../f leaves the case's folder; give a path inside it, without .."},
		{"bad prints", "cases:\n  - name: a\n    expect:\n      prints: {a: b}\n",
			":4: case \"a\": expect: prints must be a text or a list of texts"},
		{"several problems", "cases:\n  - name: a\n    inptu: x\n  - name: b\n    budget: -2\n",
			":3: case \"a\": unknown key \"inptu\" (did you mean input?); a case takes name, input, budget, max_parallel, replies, answers, timeouts, on_ask, files, task_files, interrupt_after, rewind, expect\n" +
				":5: case \"b\": budget: -2 is not an amount in USD; give a number, 0 or more, such as 0.25"},
	}
	path := filepath.Join(dir, "wf", "t.test.yaml")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(path, []byte(tt.yaml))
			require.Error(t, err)
			assert.Nil(t, f)
			var want []string
			for _, line := range strings.Split(tt.want, "\n") {
				want = append(want, path+line)
			}
			assert.Equal(t, strings.Join(want, "\n"), err.Error())
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "gone.test.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), "read test file: ")
}

func TestParseNoEntryState(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"empty/notes.txt":   "no states here",
		"nostart/BEGIN.md":  "Begin.",
		"nostart/run.sh":    "echo",
		"both/1_START.md":   "One.",
		"both/START.md":     "Other.",
		"fine/START.md":     "Start.",
		"fine/ELSEWHERE.md": "Else.",
	})
	const cases = "cases:\n  - name: a\n    replies: {START: [x]}\n"
	tests := []struct {
		name, file, yaml string
		want             string // after "FILE"
	}{
		{"the file's own folder has no workflow", "empty/t.test.yaml", cases,
			": this test file is in " + filepath.Join(dir, "empty") + ", which holds no workflow (no .md states); say where its workflow is with workflow: FOLDER, relative to the file (workflow: ../my-workflow)"},
		{"workflow names a folder with no states", "t.test.yaml", "workflow: empty\n" + cases,
			":1: workflow empty: " + filepath.Join(dir, "empty") + " holds no workflow (no .md states); workflow: names the workflow folder, relative to the test file"},
		{"no first state", "t.test.yaml", "workflow: nostart\n" + cases,
			":1: workflow nostart: " + filepath.Join(dir, "nostart") + " has no 1_START.md or START.md; say which state to start from with workflow: nostart/BEGIN.md"},
		{"no first state in the file's folder", "nostart/t.test.yaml", cases,
			": workflow .: " + filepath.Join(dir, "nostart") + " has no 1_START.md or START.md; say which state to start from with workflow: BEGIN.md"},
		{"two first states", "t.test.yaml", "workflow: both\n" + cases,
			":1: workflow both: both 1_START.md and START.md exist in " + filepath.Join(dir, "both") + "; say which to start from with workflow: both/1_START.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			_, err := Parse(path, []byte(tt.yaml))
			require.Error(t, err)
			assert.Equal(t, path+tt.want, err.Error())
		})
	}
	_, err := Parse(filepath.Join(dir, "t.test.yaml"), []byte("workflow: fine\n"+cases))
	assert.NoError(t, err, "a folder with START.md needs no hint")
}

func TestParsePathEntries(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	write(t, dir, map[string]string{"wf/LAST WORD.md": "A state whose name has a space."})
	f, err := Parse(filepath.Join(dir, "wf", "t.test.yaml"), []byte(`
cases:
  - name: a
    expect:
      path:
        main: [START, reset FIX.md, "goto  FIX", LAST WORD, goto LAST WORD, goto]
        main_w1: [fork W]
`))
	require.NoError(t, err)
	assert.Equal(t, []AgentStates{
		{Agent: "main", States: []string{"START", "FIX.md", "FIX", "LAST WORD", "LAST WORD", "goto"}, Tags: []string{"", "reset", "goto", "", "goto", ""}},
		{Agent: "main_w1", States: []string{"W"}, Tags: []string{"fork"}},
	}, f.Cases[0].Expect.Paths, "a lone word is a state, even one named like a tag")
}

// Replies, unvisited states and answers may name states of the workflows
// the workflow under test calls; a name found nowhere is still an error.
func TestParseStatesOfCalledWorkflows(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"wf/START.md":           "Go.\n<call-workflow return=\"END\">../lib/review</call-workflow>\n",
		"wf/END.md":             "Done.\n",
		"lib/review/1_START.md": "Review.\n<call-workflow return=\"CHECK\">../deeper.yaml</call-workflow>\n",
		"lib/review/CHECK.md":   "Check.\n",
		"lib/deeper.yaml":       "states:\n  START:\n    prompt: deep\n  MORE:\n    prompt: more\n",
	})
	path := filepath.Join(dir, "wf", "t.test.yaml")
	_, err := Parse(path, []byte(`
cases:
  - name: calls
    replies:
      START.md: ["<call-workflow return=\"END\">../lib/review</call-workflow>"]
      CHECK.md: ["<result>ok</result>"]
      MORE.md: ["<result>ok</result>"]
    expect:
      unvisited: [CHECK, MORE]
`))
	require.NoError(t, err)

	_, err = Parse(path, []byte(`
cases:
  - name: typo
    replies:
      CHEK.md: ["<result>ok</result>"]
`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `replies for "CHEK.md" name no state of the workflow`)
}
