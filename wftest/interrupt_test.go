package wftest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planWorkflow ticks off one item of the plan in main's task folder per
// step of IMPLEMENT.sh, logging each into the working folder.
var planWorkflow = map[string]string{
	"wf/START.md": "Start. <goto>IMPLEMENT.sh</goto>",
	"wf/IMPLEMENT.sh": `#!/bin/bash
plan="$RAYMOND_TASK_FOLDER/plan.md"
item=$(grep -m1 '^- \[ \]' "$plan" | sed 's/^- \[ \] //')
if [ -z "$item" ]; then echo "<goto>REVIEW.md</goto>"; exit 0; fi
echo "did $item" >> log.txt
sed -i "s/^- \[ \] $item\$/- [x] $item/" "$plan"
echo "<print>Implemented $item</print>"
echo "<goto>IMPLEMENT.sh</goto>"
`,
	"wf/REVIEW.md": "Review. <goto>REVIEW.md</goto> or <result>…</result>",
}

const interruptCases = `
cases:
  - name: a crash mid-implement redoes nothing
    files: {}
    task_files:
      plan.md: "- [x] a\n- [ ] b\n- [ ] c\n"
    interrupt_after: 2
    replies:
      START: ["<goto>IMPLEMENT.sh</goto>"]
      REVIEW: ["Again. <goto>REVIEW.md</goto>", "<result>reviewed</result>"]
    expect:
      result: reviewed
      path:
        main: [START, IMPLEMENT.sh, IMPLEMENT.sh, IMPLEMENT.sh, REVIEW, REVIEW]
      steps: 7
      prints: [Implemented b, Implemented c]
      files:
        log.txt: "did b\ndid c"
        "{{task_folder}}/plan.md": "- [x] a\n- [x] b\n- [x] c"
  - name: a crash in a model step takes its reply again
    files: {}
    task_files:
      plan.md: "- [x] a\n"
    interrupt_after: 3
    replies:
      START: ["<goto>IMPLEMENT.sh</goto>"]
      REVIEW: ["Again. <goto>REVIEW.md</goto>", "<result>reviewed</result>"]
    expect:
      result: reviewed
      path:
        main: [START, IMPLEMENT.sh, REVIEW, REVIEW]
      steps: 5
  - name: wrong expectations after a crash
    files: {}
    task_files:
      plan.md: "- [ ] a\n"
    interrupt_after: 1
    replies:
      START: ["<goto>IMPLEMENT.sh</goto>"]
      REVIEW: ["<result>reviewed</result>"]
    expect:
      steps: 3
      files:
        log.txt: "did a\ndid a"
  - name: too late
    files: {}
    task_files:
      plan.md: "- [x] a\n"
    interrupt_after: 3
    replies:
      START: ["<goto>IMPLEMENT.sh</goto>"]
      REVIEW: ["<result>reviewed</result>"]
`

func TestRunInterruptAfter(t *testing.T) {
	files := map[string]string{"wf/wf.test.yaml": interruptCases}
	for k, v := range planWorkflow {
		files[k] = v
	}
	rep := runFiles(t, files, Options{Keep: true}, "wf/wf.test.yaml")
	require.Len(t, rep.Files, 1)
	require.NoError(t, rep.Files[0].Err)
	for _, c := range rep.Files[0].Cases {
		t.Cleanup(func() { os.RemoveAll(c.Dir) })
	}
	got := failures(rep)
	assert.Empty(t, got["wf/a crash mid-implement redoes nothing"])
	assert.Empty(t, got["wf/a crash in a model step takes its reply again"])

	c := rep.Files[0].Cases[2]
	assert.Equal(t, []string{
		"steps: got 5, want 3",
		"files: log.txt differs; want exactly:\n    did a\n    did a\n  it holds:\n    did a",
		"the case's folder is kept: " + c.Dir,
	}, c.Failures)
	assert.Equal(t, []string{
		"interrupt_after: 3: the run ended (completed) before it started step 4, so nothing was interrupted; give a smaller number",
		"the case's folder is kept: " + rep.Files[0].Cases[3].Dir,
	}, got["wf/too late"])

	// What the crash left is what raymond transcript calls a crash: the
	// transcript of the first case has a step cut short, run again.
	first := rep.Files[0].Cases[0]
	runs, err := os.ReadDir(filepath.Join(first.Dir, ".raymond", "debug"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	_, err = os.Stat(filepath.Join(first.Dir, ".raymond", "debug", runs[0].Name(), "main_IMPLEMENT_003.meta.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the step in flight at the crash never ended")
	_, err = os.Stat(filepath.Join(first.Dir, ".raymond", "debug", runs[0].Name(), "main_IMPLEMENT_004.meta.json"))
	assert.NoError(t, err, "it ran again on resume")
}
