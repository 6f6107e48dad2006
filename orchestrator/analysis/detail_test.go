package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		"  Bash       ls -la\n  → Bash     1\n",
		"             … (3 more lines)\n",
		"  → Read failed no such file\n",
		"  says       (its answer, below)\n\nAnswer\n  All seen.\n  <result>ok</result>\n",
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
