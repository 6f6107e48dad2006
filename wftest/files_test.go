package wftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writerWorkflow has a script state that reads the case's files and writes
// one into the working folder and one into main's task folder.
var writerWorkflow = map[string]string{
	"wf/START.md": "Start. <goto>WRITE.sh</goto>",
	"wf/WRITE.sh": `#!/bin/bash
set -e
{ echo "seed: $(cat seed.txt)"; echo "plan: $(cat "$RAYMOND_TASK_FOLDER/plan.md")"; } > out.txt
echo "- [x] two" >> "$RAYMOND_TASK_FOLDER/plan.md"
echo '<print>Implementing item 1 of 2</print>'
echo '<print>Implementing item 2 of 2</print>'
echo '<result>done</result>'
`,
}

const filesCases = `
cases:
  - name: passes
    files:
      seed.txt: "from the case\n"
    task_files:
      plan.md: "- [x] one\n"
    replies:
      START: ["<goto>WRITE.sh</goto>"]
    expect:
      result: done
      files:
        out.txt: |
          seed: from the case
          plan: - [x] one
        "{{task_folder}}/plan.md": {contains: ["- [x] one", "- [x] two"], not_contains: "- [ ]", matches: "(?m)^- \\[x\\] two$"}
        "{{ task_folder:main }}/./out.txt": {absent: true}
        stray.txt: {absent: true}
      prints: ["item 1", "item 2 of 2"]
  - name: fails
    files:
      seed.txt: "other"
    task_files:
      plan.md: "- [ ] one\n"
    replies:
      START: ["<goto>WRITE.sh</goto>"]
    expect:
      files:
        out.txt: "seed: from the case"
        "{{task_folder}}/plan.md": {contains: "- [x] one", not_contains: "- [ ]"}
        seed.txt: {absent: true}
        none.txt: {matches: x}
      prints: ["item 2", "item 1"]
`

func TestRunFiles(t *testing.T) {
	files := map[string]string{"wf/wf.test.yaml": filesCases}
	for k, v := range writerWorkflow {
		files[k] = v
	}
	here, err := os.Getwd()
	require.NoError(t, err)
	rep := runFiles(t, files, Options{}, "wf/wf.test.yaml")
	require.Len(t, rep.Files, 1)
	require.NoError(t, rep.Files[0].Err)
	got := failures(rep)
	assert.Empty(t, got["wf/passes"])
	_, err = os.Stat(filepath.Join(here, "out.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a case with files works in a folder of its own")

	fails := got["wf/fails"]
	require.Len(t, fails, 6, strings.Join(fails, "\n"))
	c := rep.Files[0].Cases[1]
	assert.Equal(t, `prints: "item 1" (item 2) is not in any print after the one that matched "item 2"; the run printed 2 lines:
  1. "Implementing item 1 of 2"
  2. "Implementing item 2 of 2"`, fails[0])
	assert.Equal(t, "files: out.txt differs; want exactly:\n    seed: from the case\n  it holds:\n    seed: other\n    plan: - [ ] one", fails[1])
	assert.Equal(t, "files: {{task_folder}}/plan.md does not contain \"- [x] one\"; contains \"- [ ]\", which it must not\n  it holds:\n    - [ ] one\n    - [x] two", fails[2])
	assert.Equal(t, "files: seed.txt exists, want it absent; it holds:\n    other", fails[3])
	assert.Equal(t, "files: none.txt does not exist ("+filepath.Join(c.Dir, "work", "none.txt")+")", fails[4])
	assert.Equal(t, "the case ran in "+c.Dir+", now removed; raymond test --keep keeps it", fails[5])
	_, err = os.Stat(c.Dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "the case's folder is removed")
}

func TestRunKeep(t *testing.T) {
	files := map[string]string{"wf/wf.test.yaml": filesCases}
	for k, v := range writerWorkflow {
		files[k] = v
	}
	rep := runFiles(t, files, Options{Keep: true}, "wf/wf.test.yaml")
	c := rep.Files[0].Cases[0]
	require.True(t, c.Passed(), c.Failures)
	t.Cleanup(func() { os.RemoveAll(c.Dir) })
	assert.True(t, c.Kept)
	data, err := os.ReadFile(filepath.Join(c.Dir, "work", "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "seed: from the case\nplan: - [x] one\n", string(data))
	t.Cleanup(func() { os.RemoveAll(rep.Files[0].Cases[1].Dir) })
}

func TestShownCutsLongContent(t *testing.T) {
	long := strings.Repeat("line of text\n", 400)
	s := shown(long)
	assert.Less(t, len(s), 2*maxShown, "cut after maxShown bytes, indented")
	assert.Contains(t, s, "more bytes)")
	assert.Equal(t, "    (empty)", shown(" \n"))
}

// After a reset with task="new", {{task_folder}} is main's new task folder;
// the first one is still reachable as {{task_folder:main}}.
func TestRunFilesTaskFolderAfterNewTask(t *testing.T) {
	rep := runFiles(t, map[string]string{
		"wf/START.md": "Start.",
		"wf/NOTE.sh":  "#!/bin/bash\necho new > \"$RAYMOND_TASK_FOLDER/note.md\"\necho '<result>ok</result>'\n",
		"wf/wf.test.yaml": `
cases:
  - name: a
    task_files:
      note.md: old
    replies:
      START: ['<reset task="new">NOTE.sh</reset>']
    expect:
      files:
        "{{task_folder}}/note.md": new
        "{{task_folder:main}}/note.md": old
        "{{task_folder:main_task1}}/note.md": new
`,
	}, Options{}, "wf/wf.test.yaml")
	require.NoError(t, rep.Files[0].Err)
	assert.Empty(t, failures(rep)["wf/a"])
}
