package workflow

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func ptr(s string) *string { return &s }

func TestParseState(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		policy   Policy
		body     string
		bodyLine int
		warnings []string
	}{
		{name: "no frontmatter", content: "Do the work.\n", body: "Do the work.\n", bodyLine: 1},
		{name: "empty file", content: "", body: "", bodyLine: 1},
		{name: "dashes without newline", content: "---", body: "---", bodyLine: 1},
		{name: "rule later in the body", content: "Intro\n---\nmodel: x\n---\n", body: "Intro\n---\nmodel: x\n---\n", bodyLine: 1},
		{name: "empty frontmatter", content: "---\n---\nBody", body: "Body", bodyLine: 3},
		{name: "comment only", content: "---\n# nothing\n---\nBody", body: "Body", bodyLine: 4},
		{
			name: "everything",
			content: "---\n" +
				"allowed_transitions:\n" +
				"  - { tag: goto, target: REVIEW.md }\n" +
				"  - { tag: call, target: RESEARCH.md, return: SUMMARIZE.md }\n" +
				"  - tag: fork\n" +
				"    target: WORKER\n" +
				"    next: JOIN\n" +
				"  - { tag: result, payload: done }\n" +
				"  - { tag: result }\n" +
				"model: sonnet\n" +
				"effort: high\n" +
				"force_implicit: false\n" +
				"---\n" +
				"Body {{input}}\n",
			policy: Policy{
				Rules: []Rule{
					{Tag: "goto", Target: "REVIEW.md"},
					{Tag: "call", Target: "RESEARCH.md", Return: "SUMMARIZE.md"},
					{Tag: "fork", Target: "WORKER", Next: "JOIN"},
					{Tag: "result", Payload: ptr("done")},
					{Tag: "result"},
				},
				Model: "sonnet", Effort: "high",
			},
			body: "Body {{input}}\n", bodyLine: 14,
		},
		{
			name:    "names trimmed like tag targets",
			content: "---\nallowed_transitions:\n  - {tag: call, target: ' R.md ', return: \"\\tS\\n\"}\n---\nB",
			policy:  Policy{Rules: []Rule{{Tag: "call", Target: "R.md", Return: "S"}}},
			body:    "B", bodyLine: 5,
		},
		{
			name:    "force implicit",
			content: "---\nforce_implicit: true\nallowed_transitions: [{tag: reset, target: NEXT}]\n---\nB",
			policy:  Policy{Rules: []Rule{{Tag: "reset", Target: "NEXT"}}, ForceImplicit: true},
			body:    "B", bodyLine: 5,
		},
		{
			name:    "empty values mean unset",
			content: "---\nmodel:\neffort:\nforce_implicit:\n---\nB",
			body:    "B", bodyLine: 6,
		},
		{
			name:    "blank lines, CRLF and BOM",
			content: "\ufeff\r\n\n---\r\nmodel: opus\r\n---\r\nB\r\n",
			policy:  Policy{Model: "opus"},
			body:    "B\r\n", bodyLine: 6,
		},
		{
			name:    "unknown keys and effort warn",
			content: "---\nmodle: opus\neffort: huge\n1: x\n---\nB",
			policy:  Policy{Effort: "huge"},
			body:    "B", bodyLine: 6,
			warnings: []string{
				`X.md: unknown frontmatter key "modle" ignored (did you mean "model"?)`,
				`X.md: effort "huge" is not one of low, medium, high, xhigh, max; passed on as written`,
				`X.md: unknown frontmatter key "1" ignored`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseState("X.md", []byte(tt.content))
			must(t, err)
			if st.Name != "X.md" || st.Path != "" {
				t.Errorf("Name, Path = %q, %q", st.Name, st.Path)
			}
			if st.Body != tt.body || st.BodyLine != tt.bodyLine {
				t.Errorf("Body = %q at line %d, want %q at line %d", st.Body, st.BodyLine, tt.body, tt.bodyLine)
			}
			if !reflect.DeepEqual(st.Policy, tt.policy) {
				t.Errorf("Policy = %+v\nwant %+v", st.Policy, tt.policy)
			}
			if !slices.Equal(st.Warnings, tt.warnings) {
				t.Errorf("Warnings = %q\nwant %q", st.Warnings, tt.warnings)
			}
		})
	}
}

func TestParseStateErrors(t *testing.T) {
	const fm = "---\nallowed_transitions:\n"
	tests := []struct {
		name    string
		content string
		want    string // the whole message
	}{
		{"unclosed", "---\nmodel: sonnet\nBody\n", "X.md:1: frontmatter opened with --- is never closed; add a line --- after it"},
		{"unclosed after blank lines", "\n\n---\n", "X.md:3: frontmatter opened with --- is never closed"},
		{"bad indentation", "\n\n---\nmodel: sonnet\n  bad: x\n---\nB", "X.md:5: invalid frontmatter: mapping values are not allowed in this context"},
		{"parser error line", "---\nmodel: a\n- b\n---\n", "X.md:3: invalid frontmatter: did not find expected key"},
		{"tab on first line", "---\n\tmodel: a\n---\n", "X.md:2: invalid frontmatter: found character that cannot start any token; the line is indented with a tab"},
		{"unterminated quote", "---\nmodel: a\neffort: 'x\n---\n", "X.md:4: invalid frontmatter: found unexpected end of stream"},
		{"unknown anchor", "---\nmodel: *a\n---\n", "X.md:2: invalid frontmatter: unknown anchor 'a' referenced"},
		{"not a mapping", "---\n# list\n- a\n- b\n---\n", "X.md:3: frontmatter must be a mapping of keys to values"},
		{"duplicate key", "---\nmodel: a\neffort: low\nmodel: b\n---\n", `X.md:4: frontmatter key "model" appears more than once`},
		{"model not a string", "---\nmodel: 4\n---\n", "X.md:2: model must be a model like sonnet, or a list of models like [opus, sonnet], not a number"},
		{"effort not a string", "---\neffort: [a]\n---\n", "X.md:2: effort must be a string"},
		{"force_implicit not a bool", "---\nforce_implicit: maybe\n---\n", "X.md:2: force_implicit must be true or false"},
		{"transitions not a list", "---\nallowed_transitions: goto\n---\n", "X.md:2: allowed_transitions must be a list of entries"},
		{"transitions empty", fm + "---\n", "X.md:2: allowed_transitions is empty"},
		{"transitions empty list", "---\nallowed_transitions: []\n---\n", "X.md:2: allowed_transitions is empty"},
		{"entry not a mapping", fm + "  - goto\n---\n", "X.md:3: allowed_transitions entry 1: want a mapping like { tag: goto, target: NEXT.md }"},
		{"unknown tag", fm + "  - tag: goto\n    target: A.md\n\n  # next\n  - {tag: gotoo, target: B}\n---\n", `X.md:7: allowed_transitions entry 2: unknown tag "gotoo" (want one of goto, reset, call, function, fork, result, ask, call-workflow, function-workflow, fork-workflow, reset-workflow)`},
		{"unknown tag, items at key column", fm + "- tag: goto\n- tag: results\n---\n", `X.md:4: allowed_transitions entry 2: unknown tag "results"`},
		{"unknown tag, flow list", "---\nmodel: x\nallowed_transitions: [{tag: goto}, {tag: got}]\n---\n", `X.md:3: allowed_transitions entry 2: unknown tag "got"`},
		{"missing tag", fm + "  - {target: A}\n---\n", `X.md:3: allowed_transitions entry 1: missing key "tag"`},
		{"unknown entry key", fm + "  - {tag: goto, target: x, foo: y}\n---\n", `X.md:3: allowed_transitions entry 1: unknown key "foo" (want tag, target, return, next or payload)`},
		{"duplicate entry key", fm + "  - {tag: goto, target: x, target: y}\n---\n", `X.md:3: allowed_transitions entry 1: key "target" appears more than once`},
		{"number value", fm + "  - tag: call\n    target: B\n    return: 3\n---\n", "X.md:3: allowed_transitions entry 1: return must be a string, not a number (quote it)"},
		{"boolean payload", fm + "  - {tag: result, payload: yes}\n---\n", "X.md:3: allowed_transitions entry 1: payload must be a string, not a boolean"},
		{"empty value", fm + "  - {tag: goto, target: }\n---\n", "X.md:3: allowed_transitions entry 1: target must be a string, not empty"},
		{"list value", fm + "  - {tag: goto, target: [a]}\n---\n", "X.md:3: allowed_transitions entry 1: target must be a string, not a list"},
		{"unsafe target", fm + "  - {tag: goto, target: ../x.md}\n---\n", `X.md:3: allowed_transitions entry 1: invalid target: target "../x.md" contains "/"`},
		{"unsafe return", fm + "  - {tag: function, target: F, return: a/b}\n---\n", `X.md:3: allowed_transitions entry 1: invalid return: target "a/b" contains "/"`},
		{"unsafe next", fm + "  - {tag: fork, target: W, next: ''}\n---\n", "X.md:3: allowed_transitions entry 1: invalid next: target is empty"},
		{"target on result", fm + "  - {tag: result, target: A}\n---\n", "X.md:3: allowed_transitions entry 1: target does not apply to result"},
		{"return on goto", fm + "  - {tag: goto, target: A, return: B}\n---\n", "X.md:3: allowed_transitions entry 1: return does not apply to goto"},
		{"next on call", fm + "  - {tag: call, target: A, next: B}\n---\n", "X.md:3: allowed_transitions entry 1: next does not apply to call"},
		{"payload on fork", fm + "  - {tag: fork, target: A, payload: B}\n---\n", "X.md:3: allowed_transitions entry 1: payload does not apply to fork"},
		{"NUL in a payload", fm + "  - {tag: result, payload: \"a\\0\"}\n---\n", "X.md:3: allowed_transitions entry 1: payload holds a NUL byte, which cannot be passed on to a prompt"},
		{"force_implicit without rules", "---\nmodel: x\nforce_implicit: true\n---\n", "X.md:3: force_implicit needs exactly one allowed transition that fixes everything"},
		{"force_implicit with a free rule", "---\nforce_implicit: true\n" + "allowed_transitions:\n  - {tag: call, target: A}\n---\n", "X.md:2: force_implicit needs exactly one"},
		{"force_implicit with two rules", "---\nforce_implicit: true\n" + "allowed_transitions:\n  - {tag: goto, target: A}\n  - {tag: goto, target: B}\n---\n", "X.md:2: force_implicit needs exactly one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseState("X.md", []byte(tt.content))
			if err == nil {
				t.Fatalf("got %+v, want error %q", st, tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n %q\nwant prefix\n %q", err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := writeScope(t, map[string]string{
		"REVIEW.md": "---\nmodel: haiku\n---\nReview {{input}}.\n",
		"BAD.md":    "---\nmodel: [\n",
		"RUN.sh":    "#!/bin/sh\n",
	})
	scope := openScope(t, dir)

	st, err := scope.Load("REVIEW")
	must(t, err)
	if st.Name != "REVIEW.md" || st.Path != filepath.Join(dir, "REVIEW.md") || st.Body != "Review {{input}}.\n" || st.Policy.Model != "haiku" || st.BodyLine != 4 {
		t.Errorf("Load = %+v", st)
	}

	// Script states load since issue 11: the body is the script as written.
	st, err = scope.Load("RUN")
	must(t, err)
	real, err := filepath.EvalSymlinks(filepath.Join(dir, "RUN.sh"))
	must(t, err)
	if !st.Script || st.Body != "#!/bin/sh\n" || st.ScriptPath != real || st.Name != "RUN.sh" {
		t.Errorf("Load(RUN) = %+v", st)
	}

	_, err = scope.Load("BAD.md")
	wantErrContains(t, err, "workflow "+filepath.Base(dir)+": BAD.md:1: frontmatter opened with --- is never closed")

	_, err = scope.Load("MISSING")
	var te *TargetError
	if !errors.As(err, &te) || te.Kind != NotFound {
		t.Errorf("Load(MISSING): got %v, want a NotFound *TargetError", err)
	}
}

// A state file that cannot be sent as a prompt is refused when it is
// loaded, naming the file and the line, not by the first real claude.
func TestLoadRefusesBadText(t *testing.T) {
	dir := writeScope(t, map[string]string{
		"NUL.md":       "---\nmodel: haiku\n---\nDo\x00 it.\n",
		"LATIN1.md":    "Caf\xe9\n",
		"EMPTY.md":     "",
		"BLANK.md":     " \n\t\n",
		"FRONT.md":     "---\nmodel: haiku\n---\n\n",
		"NULFRONT.md":  "---\nmodel: \"a\x00\"\n---\nB\n",
		"FFFD.md":      "Keep \ufffd as it is.\n",
		"NUL_ESC.md":   "Write \\x00 or \\0 as text.\n",
		"ONLYSPACE.md": "---\n---\n   ",
	})
	scope := openScope(t, dir)
	for name, want := range map[string]string{
		"NUL.md":       "NUL.md:4: the file holds a NUL byte, but a prompt must be text; remove it",
		"NULFRONT.md":  "NULFRONT.md:2: the file holds a NUL byte",
		"LATIN1.md":    "LATIN1.md:1: the file is not valid UTF-8 (byte 0xe9), but a prompt must be UTF-8 text; save it as UTF-8",
		"EMPTY.md":     "EMPTY.md: the file is empty, but a state needs a prompt to send; write what the agent should do",
		"BLANK.md":     "BLANK.md: the file is empty",
		"FRONT.md":     "FRONT.md: it has nothing after its frontmatter, but a state needs a prompt",
		"ONLYSPACE.md": "ONLYSPACE.md: it has nothing after its frontmatter",
	} {
		st, err := scope.Load(name)
		if err == nil {
			t.Errorf("Load(%s) = %+v, want error %q", name, st, want)
			continue
		}
		// The error names the workflow, then the state file.
		if want = "workflow " + filepath.Base(dir) + ": " + want; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load(%s):\n %q\nwant prefix\n %q", name, err, want)
		}
	}
	for _, name := range []string{"FFFD.md", "NUL_ESC.md"} {
		if _, err := scope.Load(name); err != nil {
			t.Errorf("Load(%s): %v", name, err)
		}
	}
}
