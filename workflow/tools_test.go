package workflow

import (
	"slices"
	"strings"
	"testing"
)

func TestToolKeys(t *testing.T) {
	tests := []struct {
		name               string
		front              string
		allowed, disallowd []string
		mode               string
	}{
		{"list", "allowed_tools: [Read, Grep, \"Bash(git log:*)\"]\n", []string{"Read", "Grep", "Bash(git log:*)"}, nil, ""},
		{"block list", "disallowed_tools:\n  - Write\n  - Edit\n", nil, []string{"Write", "Edit"}, ""},
		{"one string, commas", "allowed_tools: \"Read, Bash(git log:*),Grep\"\n", []string{"Read", "Bash(git log:*)", "Grep"}, nil, ""},
		{"one string, spaces", "allowed_tools: Read Glob  Bash(git diff:*)\n", []string{"Read", "Glob", "Bash(git diff:*)"}, nil, ""},
		{"list item split like claude", "allowed_tools: [\"Read Grep\"]\n", []string{"Read", "Grep"}, nil, ""},
		{"mcp tool", "allowed_tools: mcp__github__get_issue\n", []string{"mcp__github__get_issue"}, nil, ""},
		{"mode", "permission_mode: plan\n", nil, nil, "plan"},
		{"empty means unset", "allowed_tools:\npermission_mode:\n", nil, nil, ""},
		{"all three", "allowed_tools: [Read]\ndisallowed_tools: Write\npermission_mode: dontAsk\n", []string{"Read"}, []string{"Write"}, "dontAsk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseState("S.md", []byte("---\n"+tt.front+"---\nDo it.\n"))
			must(t, err)
			p := st.Policy
			if !slices.Equal(p.AllowedTools, tt.allowed) || !slices.Equal(p.DisallowedTools, tt.disallowd) || p.PermissionMode != tt.mode {
				t.Errorf("got allowed %q disallowed %q mode %q", p.AllowedTools, p.DisallowedTools, p.PermissionMode)
			}
			if p.LimitsTools() != (tt.allowed != nil || tt.disallowd != nil || tt.mode != "") {
				t.Errorf("LimitsTools = %v", p.LimitsTools())
			}
			if len(st.Warnings) > 0 {
				t.Errorf("warnings %q", st.Warnings)
			}
		})
	}
}

func TestToolKeyErrors(t *testing.T) {
	tests := []struct{ name, front, want string }{
		{"number", "allowed_tools: 3\n", "S.md:2: allowed_tools must be a list of tool rules"},
		{"mapping", "disallowed_tools: {Read: true}\n", "S.md:2: disallowed_tools must be a list"},
		{"item not a string", "allowed_tools:\n  - Read\n  - [Write]\n", "S.md:4: allowed_tools item 2 must be a string"},
		{"empty item", "allowed_tools: [Read, \"\"]\n", "S.md:2: allowed_tools item 2 is empty"},
		{"unclosed", "allowed_tools: \"Bash(git log:*\"\n", "S.md:2: allowed_tools: tool rule \"Bash(git log:*\" has a ( that is never closed"},
		{"stray close", "disallowed_tools: [\"Bash)\"]\n", "has a ) without its ("},
		{"no tool name", "allowed_tools: [\"(git log:*)\"]\n", "names no tool"},
		{"text after", "allowed_tools: [\"Bash(ls)x\"]\n", "text after its closing parenthesis"},
		{"an option", "allowed_tools: \"Read --model opus\"\n", "S.md:2: allowed_tools: tool rule \"--model\" starts with -, which claude would read as one of its own options"},
		{"mode typo", "permission_mode: acceptEdit\n", "S.md:2: permission_mode: unknown permission mode \"acceptEdit\"; claude accepts acceptEdits, auto, bypassPermissions, default, dontAsk, manual, plan (did you mean \"acceptEdits\"?)"},
		{"mode not a string", "permission_mode: [plan]\n", "S.md:2: permission_mode must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, manual, plan, not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseState("S.md", []byte("---\n"+tt.front+"---\nDo it.\n"))
			wantErrContains(t, err, tt.want)
		})
	}
}

func TestYAMLToolKeys(t *testing.T) {
	wf, err := parseYAMLWorkflow("wf.yaml", []byte(`states:
  RESEARCH:
    prompt: Look around.
    allowed_tools: [Read, Grep]
    disallowed_tools: "Write, Edit"
    permission_mode: plan
  POLL:
    sh: echo '<goto>RESEARCH</goto>'
    allowed_tools: [Read]
`))
	must(t, err)
	p := wf.states["RESEARCH.md"].policy
	if !slices.Equal(p.AllowedTools, []string{"Read", "Grep"}) || !slices.Equal(p.DisallowedTools, []string{"Write", "Edit"}) || p.PermissionMode != "plan" {
		t.Errorf("RESEARCH policy %+v", p)
	}
	// A script has no tools: the key is ignored, with a warning.
	poll := wf.states["POLL.sh"]
	if poll.policy.LimitsTools() {
		t.Errorf("POLL policy %+v", poll.policy)
	}
	if len(poll.warnings) != 1 || !strings.Contains(poll.warnings[0], `wf.yaml:9: state "POLL" is a script, so allowed_tools does nothing`) {
		t.Errorf("POLL warnings %q", poll.warnings)
	}
	_, err = parseYAMLWorkflow("wf.yaml", []byte("states:\n  A:\n    prompt: hi\n    permission_mode: 1\n"))
	wantErrContains(t, err, "wf.yaml:4:5: permission_mode must be one of")
}
