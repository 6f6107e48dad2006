package scripted

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string // the whole message
	}{
		{"not yaml", "replies: [", "replies.yaml:1: did not find expected node content"},
		{"bad indent", "replies:\n  START.md:\n    - a\n   NEXT.md:\n    - b\n", "replies.yaml:4: did not find expected key"},
		{"no replies key", "# nothing\n", "replies.yaml: no replies key; a replies file lists the replies of each state under the key replies"},
		{"unknown top key", "replies: {}\nreplys: {}\n", `replies.yaml: unknown key "replys" at the top of the file; the only key is replies`},
		{"replies not a mapping", "replies: [a, b]", "replies.yaml: replies must map state names to lists of replies"},
		{"state in a folder", "replies:\n  sub/START.md: [hi]\n",
			`replies.yaml: "sub/START.md" is not a state: "sub" is not the id of an agent (main, main_worker1, …); name a state such as WORKER.md, or one agent's state such as main_worker1/WORKER.md`},
		{"agent's state in a folder", "replies:\n  main/sub/START.md: [hi]\n",
			`replies.yaml: state "main/sub/START.md" is not a file name in the workflow folder (target "sub/START.md" contains "/"); name a state such as WORKER.md or WORKER`},
		{"agent without state", "replies:\n  main_worker1/: [hi]\n",
			`replies.yaml: state "main_worker1/" is not a file name in the workflow folder (target is empty); name a state such as WORKER.md or WORKER`},
		{"same agent's state twice", "replies:\n  main_w1/START: [a]\n  START: [c]\n  main_w1/START.md: [b]\n",
			`replies.yaml: "main_w1/START" and "main_w1/START.md" name the same state; put their replies in one list`},
		{"template not a bool", "replies:\n  W:\n    - {text: a, template: no-thanks}\n", `replies.yaml: W reply 1: template: "no-thanks" is not true or false`},
		{"state not a text", "replies:\n  1: [hi]\n", "replies.yaml: state name 1 is not a text; name a state by its file name, such as WORKER.md"},
		{"same state twice", "replies:\n  START: [a]\n  START.md: [b]\n",
			`replies.yaml: "START" and "START.md" name the same state; put their replies in one list`},
		{"state not a list", "replies:\n  START.md: hello\n",
			`replies.yaml: START.md must hold a list of replies: start each reply with "- "`},
		{"unknown key", "replies:\n  WORKER.md:\n    - hi\n    - {text: hi, tiems: 2}\n",
			`replies.yaml: WORKER.md reply 2: unknown key "tiems"; a reply takes text, outcome, times, repeat, cost, delay, wait_for, reset, say, tools, writes, template`},
		{"key twice", "replies:\n  W:\n    - {text: a, text: b}\n", "replies.yaml: W reply 1: text is given twice"},
		{"unknown outcome", "replies:\n  FLAKY:\n    - outcome: explode\n",
			`replies.yaml: FLAKY reply 1: outcome: unknown outcome "explode"; use one of success, crash, api_error, usage_limit, timeout, max_turns`},
		{"bad duration", "replies:\n  W:\n    - {text: a, delay: soon}\n",
			`replies.yaml: W reply 1: delay: "soon" is not a duration; write a Go duration such as 500ms, 2s or 1m30s`},
		{"negative duration", "replies:\n  W:\n    - {text: a, delay: -1s}\n", `replies.yaml: W reply 1: delay: "-1s" is negative; give a duration of 0 or more`},
		{"zero reset", "replies:\n  W:\n    - {outcome: usage_limit, reset: 0s}\n", "replies.yaml: W reply 1: reset: must be longer than 0"},
		{"negative cost", "replies:\n  W:\n    - {text: a, cost: -0.5}\n",
			"replies.yaml: W reply 1: cost: -0.5 is not a cost; give an amount in USD, 0 or more, such as 0.0123"},
		{"cost not a number", "replies:\n  W:\n    - {text: a, cost: cheap}\n",
			`replies.yaml: W reply 1: cost: "cheap" is not a cost; give an amount in USD, 0 or more, such as 0.0123`},
		{"negative times", "replies:\n  W:\n    - {text: a, times: -1}\n",
			"replies.yaml: W reply 1: times: -1 is not a number of steps; give a whole number, 0 or more"},
		{"fractional times", "replies:\n  W:\n    - {text: a, times: 1.5}\n",
			"replies.yaml: W reply 1: times: 1.5 is not a number of steps; give a whole number, 0 or more"},
		{"repeat not a bool", "replies:\n  W:\n    - {text: a, repeat: often}\n", `replies.yaml: W reply 1: repeat: "often" is not true or false`},
		{"times and repeat", "replies:\n  W:\n    - {text: a, times: 2, repeat: true}\n",
			"replies.yaml: W reply 1: times and repeat: true exclude each other; keep one"},
		{"text with crash", "replies:\n  W:\n    - {text: a, outcome: crash}\n",
			"replies.yaml: W reply 1: text is the answer of a successful step; outcome crash has none (its message is generated)"},
		{"reset without usage limit", "replies:\n  W:\n    - {text: a, reset: 1h}\n",
			"replies.yaml: W reply 1: reset applies to outcome usage_limit only, not success"},
		{"cost with timeout", "replies:\n  W:\n    - {outcome: timeout, cost: 0.1}\n",
			"replies.yaml: W reply 1: outcome timeout ends without a result line, so its step has no known cost; remove cost"},
		{"reply after repeat", "replies:\n  W:\n    - {text: a, repeat: true}\n    - b\n",
			"replies.yaml: W reply 2: it follows a reply with repeat: true, so no step would ever get it"},
		{"empty reply", "replies:\n  W:\n    -\n",
			"replies.yaml: W reply 1: empty reply; give the final text, or a mapping with keys text, outcome, times, repeat, cost, delay, wait_for, reset, say, tools, writes, template"},
		{"number reply", "replies:\n  W:\n    - a\n    - 42\n",
			"replies.yaml: W reply 2: 42 is not a reply; a reply is a text (quote it if YAML would read a number or a boolean) or a mapping with keys text, outcome, times, repeat, cost, delay, wait_for, reset, say, tools, writes, template"},
		{"say not texts", "replies:\n  W:\n    - {text: a, say: [ok, {x: 1}]}\n", "replies.yaml: W reply 1: say: item 2: a mapping is not a text; quote it"},
		{"tools not a list", "replies:\n  W:\n    - {text: a, tools: Bash}\n",
			"replies.yaml: W reply 1: tools: must be a list of tools, each a mapping with keys name, input, result, error"},
		{"tool without name", "replies:\n  W:\n    - {text: a, tools: [{input: {command: ls}}]}\n",
			"replies.yaml: W reply 1: tools: tool 1: name is required, such as Bash or Read"},
		{"writes not a mapping", "replies:\n  W:\n    - {text: a, writes: [notes.md]}\n",
			`replies.yaml: W reply 1: writes: must be a mapping of file paths to their content, such as {notes/{{item}}.md: "done"}`},
		{"writes content not a text", "replies:\n  W:\n    - {text: a, writes: {notes.md: [a]}}\n",
			`replies.yaml: W reply 1: writes: notes.md: a list is not a text; quote it`},
		{"tool unknown key", "replies:\n  W:\n    - {text: a, tools: [{name: Bash, args: ls}]}\n",
			`replies.yaml: W reply 1: tools: tool 1: unknown key "args"; a tool takes name, input, result, error`},
		{"tool input not a mapping", "replies:\n  W:\n    - {text: a, tools: [{name: Bash, input: ls}]}\n",
			"replies.yaml: W reply 1: tools: tool 1: input: must be a mapping, such as {command: ls}"},
		{"tool input key not a text", "replies:\n  W:\n    - {text: a, tools: [{name: Bash, input: {on: 1}}]}\n",
			"replies.yaml: W reply 1: tools: tool 1: input: key true is not a text; quote it"},
		{"tool input not JSON", "replies:\n  W:\n    - {text: a, tools: [{name: Bash, input: {x: .nan}}]}\n",
			"replies.yaml: W reply 1: tools: tool 1: input: NaN cannot be written as JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse("replies.yaml", []byte(tt.yaml))
			require.Error(t, err)
			assert.Nil(t, r)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestParseReplies(t *testing.T) {
	r := parse(t, `
replies:
  START:
    - "Planning. <goto>NEXT</goto>"
  NEXT.md:
    - text: done
      times: 0
    - text: later
      cost: 2
      delay: 1.5
      say: one block
      tools: [{name: Read, input: {file_path: a.go, lines: [1, 2]}, result: x, error: true}]
    - outcome: usage_limit
    - {outcome: api_error, repeat: true}
  EMPTY.md:
`)
	require.Len(t, r.queues, 3)
	assert.Equal(t, "START", r.queues[0].key, "states keep the order of the file")
	assert.Same(t, r.queues[0], r.byName["START.md"], "a key without .md serves the .md state")
	assert.Same(t, r.queues[0], r.byName["START.sh"])
	assert.Nil(t, r.byName["NEXT"], "a key with .md serves that file only")
	assert.Empty(t, r.queues[2].replies)

	next := r.queues[1].replies
	require.Len(t, next, 4)
	assert.Equal(t, &reply{index: 1, text: "done", times: 0}, next[0])
	assert.Equal(t, &reply{
		index: 2, text: "later", times: 1, cost: 2, delay: 1500 * time.Millisecond, say: []string{"one block"},
		tools: []tool{{name: "Read", input: map[string]any{"file_path": "a.go", "lines": []any{1, 2}}, result: "x", isError: true}},
	}, next[1])
	assert.Equal(t, &reply{index: 3, outcome: usageLimit, times: 1, reset: time.Hour}, next[2], "usage_limit resets in an hour by default")
	assert.Equal(t, &reply{index: 4, outcome: apiError, times: 1, repeat: true}, next[3])
}

func TestLoad(t *testing.T) {
	r, err := Load(filepath.Join("testdata", "replies.yaml"))
	require.NoError(t, err)
	var keys []string
	for _, q := range r.queues {
		keys = append(keys, q.key)
	}
	assert.Equal(t, []string{"START.md", "PLAN", "WORKER.md", "REPORT.md"}, keys)

	_, err = Load(filepath.Join(t.TempDir(), "missing.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), "load replies: open ")
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"START.md", "WORKER.md", "RUN.sh"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "DIR.md"), 0o755))

	scope := openScope(t, dir)
	r := parse(t, "replies:\n  START: [a]\n  WORKER.md: [b]\n  RUN: [c]\n")
	assert.NoError(t, r.Check(scope))

	r = parse(t, "replies:\n  START: [a]\n  WORKR.md: [b]\n  DIR.md: [c]\n  RUN.md: [d]\n")
	err := r.Check(scope)
	require.Error(t, err)
	assert.Equal(t, `replies.yaml: replies for "WORKR.md" name no state of the workflow: target "WORKR.md" does not exist in the workflow
replies.yaml: replies for "DIR.md" name no state of the workflow: target "DIR.md" is not a state: DIR.md is a folder
replies.yaml: replies for "RUN.md" name no state of the workflow: target "RUN.md" does not exist in the workflow`, err.Error())
}
