// Tests of the rpi workflow's script states, run directly with bash on
// fixture task folders: the bookkeeping of plan.md (parsing, marking,
// retries, the cap on new items) and what each script does when it runs a
// second time after a crash. rpi.test.yaml runs the same scripts through
// whole runs; these check the files they leave, byte for byte.
package rpi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// task is a task folder for one test, and the project folder the scripts
// run in.
type task struct {
	t        *testing.T
	dir, cwd string
	env      []string // more environment for the scripts, such as LC_ALL=C
}

func newTask(t *testing.T) *task {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	root := t.TempDir()
	tk := &task{t: t, dir: filepath.Join(root, ".raymond", "tasks", "r1", "main"), cwd: root}
	require.NoError(t, os.MkdirAll(tk.dir, 0o755))
	return tk
}

// write puts a file in the task folder.
func (tk *task) write(name, content string) {
	tk.t.Helper()
	require.NoError(tk.t, os.WriteFile(filepath.Join(tk.dir, name), []byte(content), 0o644))
}

// read returns a file of the task folder, "" when it does not exist.
func (tk *task) read(name string) string {
	tk.t.Helper()
	data, err := os.ReadFile(filepath.Join(tk.dir, name))
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(tk.t, err)
	return string(data)
}

// run runs a script state as raymond would, with result as its
// RAYMOND_RESULT (and RAYMOND_INPUT), and returns its stdout.
func (tk *task) run(script, result string) string {
	tk.t.Helper()
	path, err := filepath.Abs(script)
	require.NoError(tk.t, err)
	cmd := exec.Command("bash", path)
	cmd.Dir = tk.cwd
	cmd.Env = append(append(os.Environ(), tk.env...), "RAYMOND_TASK_FOLDER="+tk.dir, "RAYMOND_RESULT="+result, "RAYMOND_INPUT="+result)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(tk.t, err, "%s: %s", script, stderr.String())
	return string(out)
}

const planHead = "# Plan\n\n<!-- original_count: 3 -->\n\n## Items\n\n"

func TestSavePlan(t *testing.T) {
	tests := []struct {
		name, answer, want, prints string
	}{
		{
			name:   "items kept as written, prose dropped",
			answer: "Here it is.\n- [ ] 1. A — do a\n- [ ] 2. B — do b\n\nThat is all.",
			want:   "# Plan\n\n<!-- original_count: 2 -->\n\n## Items\n\n- [ ] 1. A — do a\n- [ ] 2. B — do b\n",
			prints: "<print>Plan saved: 2 items in plan.md</print>",
		},
		{
			name:   "duplicates and gaps kept, boxes emptied, unnumbered numbered, indentation and CRs dropped",
			answer: "- [ ] 3. A\r\n  - [x] 3. B\n* [!] 7. C\n- [ ] D — no number\n- [ ]\n4. not an item\n",
			want:   "# Plan\n\n<!-- original_count: 4 -->\n\n## Items\n\n- [ ] 3. A\n- [ ] 3. B\n- [ ] 7. C\n- [ ] 8. D — no number\n",
			prints: "<print>Plan saved: 4 items in plan.md</print>",
		},
		{
			name:   "one item",
			answer: "- [ ] 1. A — do a",
			want:   "# Plan\n\n<!-- original_count: 1 -->\n\n## Items\n\n- [ ] 1. A — do a\n",
			prints: "<print>Plan saved: 1 item in plan.md</print>",
		},
		{
			name:   "no items",
			answer: "I need to know more before I can plan.",
			want:   "# Plan\n\n<!-- original_count: 0 -->\n\n## Items\n\n",
			prints: "<print>Plan saved: no checklist items found in the answer</print>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTask(t)
			out := tk.run("SAVE_PLAN.sh", tt.answer)
			assert.Equal(t, tt.want, tk.read("plan.md"))
			assert.Equal(t, tt.answer+"\n", tk.read("plan-answer.md"))
			assert.Equal(t, tt.prints+"\n<goto>NEXT.sh</goto>\n", out)
			// Run again after a crash, with another answer: the plan stays.
			tk.run("SAVE_PLAN.sh", "- [ ] 1. Other")
			assert.Equal(t, tt.want, tk.read("plan.md"))
		})
	}
}

func TestSaveResearchKeepsTheFirstAnswer(t *testing.T) {
	tk := newTask(t)
	assert.Equal(t, "<print>Research saved: 2 lines in research.md</print>\n<goto>NEXT.sh</goto>\n",
		tk.run("SAVE_RESEARCH.sh", "## Notes\n- a"))
	tk.run("SAVE_RESEARCH.sh", "other")
	assert.Equal(t, "## Notes\n- a\n", tk.read("research.md"))
}

func TestSaveResearchOneLine(t *testing.T) {
	tk := newTask(t)
	assert.Equal(t, "<print>Research saved: 1 line in research.md</print>\n<goto>NEXT.sh</goto>\n",
		tk.run("SAVE_RESEARCH.sh", "nothing to note"))
}

// next runs NEXT.sh and returns its output.
func (tk *task) next() string {
	tk.t.Helper()
	return tk.run("NEXT.sh", "")
}

func TestNextPicksThePhaseFromTheFiles(t *testing.T) {
	tk := newTask(t)
	tk.write("input.txt", "Add a \"--json\" flag & <docs>\n")
	assert.Equal(t, "<print>Research</print>\n"+
		`<function return="SAVE_RESEARCH.sh" input="Add a &quot;--json&quot; flag &amp; &lt;docs&gt;">RESEARCH.md</function>`+"\n", tk.next())
	tk.write("research.md", "notes\n")
	assert.Contains(t, tk.next(), `">PLAN.md</function>`)

	// A plan half done, as a crash leaves it: the first pending item is next,
	// counted among all the items, whatever their marks.
	tk.write("plan.md", planHead+"- [x] 1. A — a\n- [!] 2. B <x> — b [Failed: no]\n- [ ] 3. C <y> — c\n")
	out := tk.next()
	assert.Contains(t, out, "<print>Implementing item 3 of 3: C y</print>\n")
	assert.Contains(t, out, `input="Item 3 of 3 of the plan in `+tk.dir+"/plan.md:\n- [ ] 3. C &lt;y&gt; — c\">IMPLEMENT.md</function>")
	assert.Equal(t, "line=9\nattempt=1\nitem=- [ ] 3. C <y> — c\n", tk.read("current"))

	// A retry file about this item: the second try, with the reason.
	tk.write("retry", "9\n- [ ] 3. C <y> — c\nthe build broke\n")
	out = tk.next()
	assert.Contains(t, out, "<print>Implementing item 3 of 3 (second try): C y</print>\n")
	assert.Contains(t, out, "The first try failed: the build broke\">IMPLEMENT.md")
	assert.Contains(t, tk.read("current"), "attempt=2\n")
	// A stale one, about an item at that line no longer pending, is ignored.
	tk.write("retry", "9\n- [ ] 3. Old — c\nold reason\n")
	assert.NotContains(t, tk.next(), "second try")

	// All marked: the summary, with the counts and the files changed.
	tk.write("started", "")
	// Well before the change, as a run's start is: a file system keeps times
	// in steps of a few milliseconds.
	longAgo := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(tk.dir, "started"), longAgo, longAgo))
	require.NoError(t, os.WriteFile(filepath.Join(tk.cwd, "made.go"), []byte("package x\n"), 0o644))
	tk.write("plan.md", planHead+"- [x] 1. A\n- [!] 2. B [Failed: no]\n- [x] 3. C\n")
	assert.Equal(t, "<print>Summary</print>\n"+`<reset input="3 items: 2 done, 1 failed">SUMMARY.md</reset>`+"\n", tk.next())
	assert.Contains(t, tk.read("changes.md"), "\nmade.go\n")
	assert.NotContains(t, tk.read("changes.md"), "tasks/")
	assert.FileExists(t, filepath.Join(tk.dir, "summarizing"))

	tk.write("plan.md", planHead)
	assert.Contains(t, tk.next(), `<reset input="the plan held no checklist items, so nothing was implemented">SUMMARY.md</reset>`)
}

// implement runs NEXT.sh, to pick the item, then RECORD.sh with answer.
func (tk *task) implement(answer string) string {
	tk.t.Helper()
	require.Contains(tk.t, tk.next(), "IMPLEMENT.md")
	return tk.run("RECORD.sh", answer)
}

func TestRecordMarksItems(t *testing.T) {
	tk := newTask(t)
	tk.write("input.txt", "task\n")
	tk.write("research.md", "notes\n")
	tk.write("plan.md", planHead+"- [ ] 1. A — a\n- [ ] 2. B — b\n- [ ] 3. C — c\n")

	assert.Equal(t, "<print>Item done</print>\n<goto>NEXT.sh</goto>\n", tk.implement("DONE: did a"))
	assert.Equal(t, "<print>Item failed, one more try: tests bfail/b</print>\n<goto>NEXT.sh</goto>\n",
		tk.implement("\n  FAILED: tests <b>fail</b>\nmore text"))
	assert.Equal(t, "8\n- [ ] 2. B — b\ntests <b>fail</b>\n", tk.read("retry"))
	assert.Equal(t, "<print>Item failed twice, marked [!]: still failing</print>\n<goto>NEXT.sh</goto>\n",
		tk.implement("Failed - still failing"))
	tk.implement("I did something.")
	tk.implement("done")
	assert.Equal(t, planHead+"- [x] 1. A — a\n- [!] 2. B — b [Failed: still failing]\n- [x] 3. C — c\n", tk.read("plan.md"))
	assert.NoFileExists(t, filepath.Join(tk.dir, "retry"))
}

// TestRecordCutsReasonsBetweenCharacters: in a locale that is not UTF-8
// (LC_ALL=C, as in many containers and CI jobs) bash cuts a long reason at
// a byte, which may fall inside a character; the cut backs off to the
// character's start, so plan.md, retry and the next prompt stay UTF-8.
func TestRecordCutsReasonsBetweenCharacters(t *testing.T) {
	for _, prefix := range []string{"", "a", "ab"} {
		tk := newTask(t)
		tk.env = []string{"LC_ALL=C"}
		tk.write("input.txt", "task\n")
		tk.write("research.md", "notes\n")
		tk.write("plan.md", planHead+"- [ ] 1. A — a\n")
		long := prefix + strings.Repeat("日本語🎉", 100)
		out := tk.implement("FAILED: " + long)
		assert.True(t, utf8.ValidString(out), "prefix %q: the print is not UTF-8: %q", prefix, out)
		assert.True(t, utf8.ValidString(tk.read("retry")), "prefix %q: retry is not UTF-8: %q", prefix, tk.read("retry"))
		out = tk.implement(long)
		assert.True(t, utf8.ValidString(out), "prefix %q: the print is not UTF-8: %q", prefix, out)
		plan := tk.read("plan.md")
		assert.True(t, utf8.ValidString(plan), "prefix %q: plan.md is not UTF-8: %q", prefix, plan)
		assert.Contains(t, plan, "- [!] 1. A — a [Failed: the answer did not start with DONE or FAILED: "+prefix+"日本語")
	}
}

// TestRecordKeepsAReasonsFirstCharacter: the separator after FAILED (a
// colon, a dash, an em dash) is stripped as whole characters. In a locale
// that is not UTF-8, stripping the em dash's bytes one by one also ate
// the first bytes of a reason that starts with a curly quote, an ellipsis
// or an arrow (all begin with the em dash's first bytes), leaving invalid
// UTF-8 in retry and plan.md.
func TestRecordKeepsAReasonsFirstCharacter(t *testing.T) {
	for _, locale := range []string{"C", "C.UTF-8"} {
		for _, answer := range []string{"FAILED: “go test” fails", "FAILED — “go test” fails", "FAILED:—“go test” fails", "Failed - “go test” fails"} {
			tk := newTask(t)
			tk.env = []string{"LC_ALL=" + locale}
			tk.write("input.txt", "task\n")
			tk.write("research.md", "notes\n")
			tk.write("plan.md", planHead+"- [ ] 1. A — a\n")
			assert.Equal(t, "<print>Item failed, one more try: “go test” fails</print>\n<goto>NEXT.sh</goto>\n", tk.implement(answer), "%s in %s", answer, locale)
			tk.implement("FAILED: …and again")
			assert.Equal(t, planHead+"- [!] 1. A — a [Failed: …and again]\n", tk.read("plan.md"), "%s in %s", answer, locale)
		}
	}
}

func TestRecordIsIdempotent(t *testing.T) {
	tk := newTask(t)
	tk.write("input.txt", "task\n")
	tk.write("research.md", "notes\n")
	tk.write("plan.md", "# Plan\n\n<!-- original_count: 1 -->\n\n- [ ] 1. A\n")
	answer := "DONE\n- [ ] 2. B\n- [ ] 3. C\n"
	tk.implement(answer)
	plan, warnings := tk.read("plan.md"), tk.read("warnings.md")
	assert.Equal(t, "# Plan\n\n<!-- original_count: 1 -->\n\n- [x] 1. A\n- [ ] 2. B\n", plan)
	// The step run again after a crash, with the same answer and current.
	assert.Equal(t, "<print>Item 1. A is recorded already</print>\n<goto>NEXT.sh</goto>\n",
		tk.run("RECORD.sh", answer))
	assert.Equal(t, plan, tk.read("plan.md"))
	assert.Equal(t, warnings, tk.read("warnings.md"))

	// A first failure recorded twice is still a first failure.
	tk.implement("FAILED: x")
	tk.run("RECORD.sh", "FAILED: x")
	assert.Contains(t, tk.next(), "second try")
}

func TestRecordCapsNewItems(t *testing.T) {
	tk := newTask(t)
	tk.write("input.txt", "task\n")
	tk.write("research.md", "notes\n")
	tk.write("plan.md", "# Plan\n\n<!-- original_count: 2 -->\n\n- [ ] 1. A\n- [ ] 2. B\n")
	out := tk.implement("DONE\n- [ ] 2. B\n  - [ ] 3. C — c\n- [x] 9. Not pending\n- [ ] 4. D\n- [ ] 5. E\n")
	assert.Equal(t, "<print>Item done; 2 new items added to the plan; warning: 1 proposed items dropped, the plan is capped at 4 items (see warnings.md)</print>\n<goto>NEXT.sh</goto>\n", out)
	assert.Equal(t, "# Plan\n\n<!-- original_count: 2 -->\n\n- [x] 1. A\n- [ ] 2. B\n- [ ] 3. C — c\n- [ ] 4. D\n", tk.read("plan.md"))
	assert.Equal(t, "- dropped a new item proposed by item \"1. A\" (the plan is capped at 4 items, twice its original 2): 5. E\n", tk.read("warnings.md"))
	// Full: a later item adds nothing.
	tk.implement("DONE\n- [ ] 6. F\n")
	assert.Equal(t, 4, strings.Count(tk.read("plan.md"), "\n- ["))
}

func TestRecordWithoutMarkerCapsAtTwiceTheItems(t *testing.T) {
	tk := newTask(t)
	tk.write("input.txt", "task\n")
	tk.write("research.md", "notes\n")
	tk.write("plan.md", "- [ ] 1. A\n")
	tk.implement("DONE\n- [ ] 2. B\n- [ ] 3. C\n")
	assert.Equal(t, "- [x] 1. A\n- [ ] 2. B\n", tk.read("plan.md"))
	assert.Contains(t, tk.read("warnings.md"), "plan.md has no <!-- original_count: N --> marker")
}

func TestStartHintsAtAnUnfinishedRunOfTheSameTask(t *testing.T) {
	tk := newTask(t)
	other := filepath.Join(filepath.Dir(filepath.Dir(tk.dir)), "r0", "main")
	done := filepath.Join(filepath.Dir(filepath.Dir(tk.dir)), "r00", "main")
	for _, d := range []string{other, done} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "input.txt"), []byte("the task\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(done, "summarizing"), nil, 0o644))
	assert.Equal(t, "<print>note: run r0 has the same task and has not reached its summary (raymond status r0 says whether it is still running); to continue it instead of starting over: raymond resume r0</print>\n<goto>NEXT.sh</goto>\n",
		tk.run("START.sh", "the task"))
	assert.Equal(t, "the task\n", tk.read("input.txt"))
	assert.Equal(t, "<goto>NEXT.sh</goto>\n", newTask(t).run("START.sh", "another task"))
	assert.Contains(t, newTask(t).run("START.sh", " \n"), "<result>Nothing to do")
}

func TestRecordFindsAnItemMovedByAnEdit(t *testing.T) {
	tk := newTask(t)
	tk.write("input.txt", "task\n")
	tk.write("research.md", "notes\n")
	tk.write("plan.md", "- [ ] 1. A\n- [ ] 1. A\n- [ ] 2. B\n")
	require.Contains(t, tk.next(), "IMPLEMENT.md")
	// While item 1 is worked on, someone adds a line above it.
	tk.write("plan.md", "<!-- original_count: 3 -->\n- [ ] 1. A\n- [ ] 1. A\n- [ ] 2. B\n")
	tk.run("RECORD.sh", "DONE")
	assert.Equal(t, "<!-- original_count: 3 -->\n- [x] 1. A\n- [ ] 1. A\n- [ ] 2. B\n", tk.read("plan.md"))
	// Run again, it finds the item marked, and leaves its twin alone.
	tk.write("current", "line=2\nattempt=1\nitem=- [ ] 1. A\n")
	assert.Contains(t, tk.run("RECORD.sh", "DONE"), "recorded already")
	assert.Equal(t, "<!-- original_count: 3 -->\n- [x] 1. A\n- [ ] 1. A\n- [ ] 2. B\n", tk.read("plan.md"))
	// An item no longer in the plan is not recorded anywhere.
	tk.write("current", "line=3\nattempt=1\nitem=- [ ] 9. Gone\n")
	assert.Contains(t, tk.run("RECORD.sh", "DONE"), "recorded already")
	assert.Equal(t, "<!-- original_count: 3 -->\n- [x] 1. A\n- [ ] 1. A\n- [ ] 2. B\n", tk.read("plan.md"))
}
