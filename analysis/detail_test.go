package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolRun is one step that says something, calls two tools (one fails)
// and answers.
func toolRun(t *testing.T) *run {
	return runWorkflow(t, map[string]string{"START.md": "Look around {{input}}."}, `
replies:
  START:
    - text: "All seen.\n<result>ok</result>"
      say: ["Looking."]
      tools:
        - {name: Bash, input: {command: "ls -la"}, result: "1\n2\n3\n4\n5\n6\n7\n8"}
        - {name: Read, input: {file_path: "missing.go"}, result: "no such file", error: true}
      cost: 0.5
`, options{input: "here"})
}

func TestLoadDetail(t *testing.T) {
	rn := toolRun(t)
	r := rn.load(t)
	d, err := LoadDetail(rn.dir, r.Step("main_START_001"))
	require.NoError(t, err)
	assert.Equal(t, "Look around here.", d.Prompt)
	assert.Equal(t, "All seen.\n<result>ok</result>", d.Answer)
	assert.Empty(t, d.Notes)
	assert.Equal(t, []Item{
		{Kind: "text", Text: "Looking."},
		{Kind: "tool", Tool: "Bash", Text: "ls -la"},
		{Kind: "tool_result", Tool: "Bash", Text: "1\n2\n3\n4\n5\n… (3 more lines)", Cut: true},
		{Kind: "tool", Tool: "Read", Text: "missing.go"},
		{Kind: "tool_result", Tool: "Read", Text: "no such file", IsErr: true},
		{Kind: "text", Text: "All seen.\n<result>ok</result>"},
	}, d.Items)

	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, d, TextOptions{}))
	out := b.String()
	for _, want := range []string{
		"Step main_START_001: agent main at START.md\n",
		"  outcome   success in 0s, $0.5000\n",
		"  then      <result>: the agent ended\n",
		"\nPrompt\n  Look around here.\n",
		// The labels' column is as wide as "→ Read failed".
		"  Bash          ls -la\n  → Bash        1\n",
		"                … (3 more lines)\n",
		"  → Read failed no such file\n",
		"  says          (its answer, below)\n\nAnswer\n  All seen.\n  <result>ok</result>\n",
	} {
		assert.Contains(t, out, want)
	}

	b.Reset()
	require.NoError(t, WriteDetailJSON(&b, d))
	assert.Contains(t, b.String(), `"answer": "All seen.\n<result>ok</result>"`)
}

func TestLoadDetailErrors(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "END.md": "End."}, `
replies:
  START: [{outcome: api_error}, {outcome: usage_limit}, "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`, options{})
	run := r.load(t)
	d, err := LoadDetail(r.dir, run.Step("main_START_001"))
	require.NoError(t, err)
	assert.Empty(t, d.Answer)
	require.NotEmpty(t, d.Items)
	last := d.Items[len(d.Items)-1]
	assert.Equal(t, "error", last.Kind)
	assert.True(t, last.IsErr)

	d, err = LoadDetail(r.dir, run.Step("main_START_002"))
	require.NoError(t, err)
	assert.Contains(t, d.Items[len(d.Items)-1].Text, "limit")
}

func TestLoadDetailMissingAndTorn(t *testing.T) {
	rn := toolRun(t)
	r := rn.load(t)
	s := r.Step("main_START_001")
	require.NoError(t, os.Remove(filepath.Join(rn.dir, "main_START_001.prompt.md")))
	appendFile(t, filepath.Join(rn.dir, "main_START_001.jsonl"), `{"type":"assis`)
	d, err := LoadDetail(rn.dir, s)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"no prompt file: the prompt sent is unknown",
		"the stream ends in a torn line (14 bytes), left out: the step was cut short",
	}, d.Notes)
	assert.NotEmpty(t, d.Answer)

	require.NoError(t, os.Remove(filepath.Join(rn.dir, "main_START_001.jsonl")))
	d, err = LoadDetail(rn.dir, s)
	require.NoError(t, err)
	assert.Contains(t, d.Notes, "no stream file: what the model said is unknown")
	assert.Empty(t, d.Items)

	_, err = LoadDetail(rn.dir, nil)
	assert.Error(t, err)
}

func TestAbbreviate(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"", 3, "", false},
		{"  one  \n", 3, "one", false},
		{"a\nb\nc", 3, "a\nb\nc", false},
		{"a\nb\nc\nd", 2, "a\nb\n… (2 more lines)", true},
		{"a\nb\nc", 2, "a\nb\n… (1 more line)", true},
		{long, 1, strings.Repeat("x", maxLineRunes-1) + "…", true},
	} {
		got, cut := abbreviate(tc.in, tc.n)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, tc.cut, cut, tc.in)
	}
}

// The header of a step says what followed it: a retry, or the wait for
// the usage limit and the step that ran again after it.
func TestWriteDetailWhatFollowed(t *testing.T) {
	r := flakyRun(t)
	limited := r.Step("main_FLAKY_004")
	require.NotNil(t, limited)
	require.False(t, limited.WaitUntil.IsZero())
	for _, tc := range []struct {
		step, want string
	}{
		{"main_FLAKY_002", "\n  then      retried as main_FLAKY_003\n"},
		{"main_FLAKY_004", "\n  then      the run waited for the usage limit until " +
			clock(limited.WaitUntil, limited.Started) + "; it ran the step again as main_FLAKY_005\n"},
		{"main_FLAKY_005", "\n  then      <goto> to END.md\n"},
	} {
		var b bytes.Buffer
		require.NoError(t, WriteDetail(&b, &Detail{Step: r.Step(tc.step)}, TextOptions{Width: 120}))
		assert.Contains(t, b.String(), tc.want, tc.step)
	}

	cutShort := &Step{Name: "main_W_001", Agent: "main", State: "W.md", Seq: 1, CutShort: true,
		Duration: 1500 * time.Millisecond, Next: "main_W_002"}
	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, &Detail{Step: cutShort}, TextOptions{}))
	assert.Contains(t, b.String(), "\n  outcome   cut short: it never ended (its process stopped after 1.50s), $0.0000\n")
	assert.Contains(t, b.String(), "\n  then      it ran again as main_W_002 when the run was resumed\n")
}
