package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
)

func TestCheckValues(t *testing.T) {
	for _, m := range PermissionModes {
		assert.NoError(t, CheckPermissionMode(m), m)
	}
	for _, m := range []string{"", "yolo", "AcceptEdits"} {
		assert.Error(t, CheckPermissionMode(m), m)
	}
	for _, e := range EffortLevels {
		assert.NoError(t, CheckEffort(e), e)
	}
	for _, e := range []string{"", "extreme", "High"} {
		assert.Error(t, CheckEffort(e), e)
	}
	for _, m := range []string{"opus", "sonnet", "haiku", "claude-opus-4-1-20250805", "claude-sonnet-4-5[1m]",
		"us.anthropic.claude-3-7-sonnet-20250219-v1:0", "arn:aws:bedrock:us-east-1:1:inference-profile/x"} {
		assert.NoError(t, CheckModel(m), m)
	}
	for _, m := range []string{"", "-p", "--model", "son net", "opus\n", "a\x00b"} {
		assert.Error(t, CheckModel(m), m)
	}
}

func TestAbsPath(t *testing.T) {
	assert.Equal(t, "/d/bin/c", AbsPath("./bin/c", "/d"))
	assert.Equal(t, "/d/bin/c", AbsPath("bin/c", "/d"))
	assert.Equal(t, "/x/c", AbsPath("/x/c", "/d"))
	assert.Equal(t, "claude", AbsPath("claude", "/d"), "a bare name is looked up in PATH")
	assert.Equal(t, "./c", AbsPath("./c", ""), "no folder to resolve from")
	assert.Empty(t, AbsPath("", "/d"))
}

func TestCheckOptions(t *testing.T) {
	good := state.Options{MaxParallel: 1, PermissionMode: "acceptEdits", ClaudePath: "/bin/claude"}
	require.NoError(t, CheckOptions(good))
	skip := good
	skip.PermissionMode, skip.SkipPermissions = "", true
	require.NoError(t, CheckOptions(skip))

	tests := []struct {
		change func(*state.Options)
		flag   string
	}{
		{func(o *state.Options) { o.PermissionMode = "yolo" }, "--permission-mode"},
		{func(o *state.Options) { o.Effort = "extreme" }, "--effort"},
		{func(o *state.Options) { o.Model = "-x" }, "--model"},
		{func(o *state.Options) { o.MaxParallel = 0 }, "--max-parallel"},
		{func(o *state.Options) { o.Timeout = -1 }, "--timeout"},
		{func(o *state.Options) { o.ClaudePath = "./fc" }, "--claude"},
	}
	for _, tt := range tests {
		o := good
		tt.change(&o)
		var oe *OptionError
		require.ErrorAs(t, CheckOptions(o), &oe, tt.flag)
		assert.Equal(t, tt.flag, oe.Flag)
	}
}

func TestNewOptionsClaudeFrom(t *testing.T) {
	p := &Project{Dir: "/p", Config: &Settings{Claude: ptr("bin/claude")}}
	o, _ := p.NewOptions(Given{})
	assert.Equal(t, "/p/bin/claude", o.ClaudePath, "the config's relative path is taken from the project folder")
	assert.Equal(t, "/p/.raymond/config.toml", o.ClaudeFrom)

	o, _ = p.NewOptions(Given{ClaudeEnv: "/env/c"})
	assert.Equal(t, "RAYMOND_CLAUDE", o.ClaudeFrom)

	o, _ = p.NewOptions(Given{Settings: Settings{Claude: ptr("/flag/c")}, ClaudeEnv: "/env/c"})
	assert.Empty(t, o.ClaudeFrom, "the person chose it")

	r := &state.Run{Options: o}
	r.Options.ClaudeFrom = "/p/.raymond/config.toml"
	Override(r, Settings{Claude: ptr("/other")})
	assert.Equal(t, "/other", r.Options.ClaudePath)
	assert.Empty(t, r.Options.ClaudeFrom, "resume --claude chooses it")
}

func TestNewSession(t *testing.T) {
	in := "the bug"
	r := &state.Run{WorkflowID: "r", Agents: []state.Agent{
		{ID: "main", Status: state.AgentFailed, Pending: &state.Step{
			Ref: state.Ref{State: "NEXT.md"}, Mode: state.SessionResume, ResumeSession: "s1", SessionID: "x",
			Input: &in, Vars: map[string]string{"k": "v"}, Cwd: "/w", Reminder: "use a tag", Model: "opus",
		}},
		{ID: "done", Status: state.AgentCompleted},
	}}
	require.NoError(t, NewSession(r, "main"))
	assert.Equal(t, &state.Step{Ref: state.Ref{State: "NEXT.md"}, Mode: state.SessionNew,
		Input: &in, Vars: map[string]string{"k": "v"}, Cwd: "/w", Model: "opus"}, r.Agents[0].Pending)
	assert.ErrorContains(t, NewSession(r, "nobody"), `no agent "nobody"`)
	assert.ErrorContains(t, NewSession(r, "done"), "no step left")
}

func TestCheckModelTypos(t *testing.T) {
	for _, m := range []string{"opusplan", "sonnet[1m]", "claude-sonnet-4-5-20250929", "claude-opus-9-9",
		"claude-3-7-sonnet@20250219"} {
		assert.NoError(t, CheckModel(m), m)
	}
	err := CheckModel("sonet")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "sonnet"?`)
	for _, m := range []string{"opus-4", "gpt", "Sonnet", "haiku[1m"} {
		assert.Error(t, CheckModel(m), m)
	}
}

func TestModelWarning(t *testing.T) {
	for _, m := range []string{"opus", "sonnet[1m]", "claude-opus-5-5", "claude-sonnet-4-5-20250929", "claude-opus-4-8[1m]",
		"claude-3-5-haiku-latest", "us.anthropic.claude-3-7-sonnet-20250219-v1:0", "sonet"} {
		assert.Empty(t, ModelWarning(m), m)
	}
	assert.Contains(t, ModelWarning("claude-sonet-4-5"), `did you mean "claude-sonnet-4-5"?`)
	assert.Contains(t, ModelWarning("claude-opus-9-9"), "not one raymond knows")
}
