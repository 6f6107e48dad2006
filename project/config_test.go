package project

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/internal/spelling"
	"raymond/notify"
)

func ptr[T any](v T) *T { return &v }

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Settings
	}{
		{name: "empty", text: "", want: Settings{}},
		{name: "comments only", text: "# nothing\n\n", want: Settings{}},
		{
			name: "every key",
			text: `model = "sonnet"
effort = "high"
budget = 2.5
max_parallel = 3
timeout = "90s"
no_wait = true
permission_mode = "plan"
dangerously_skip_permissions = false
claude = "/opt/claude"
debug = false
quiet = true
`,
			want: Settings{
				Model: ptr("sonnet"), Effort: ptr("high"), Budget: ptr(2.5), MaxParallel: ptr(3),
				Timeout: ptr(90 * time.Second), NoWait: ptr(true), PermissionMode: ptr("plan"),
				SkipPermissions: ptr(false), Claude: ptr("/opt/claude"), Debug: ptr(false), Quiet: ptr(true),
			},
		},
		{name: "integer budget", text: "budget = 3", want: Settings{Budget: ptr(3.0)}},
		{name: "timeout in seconds", text: "timeout = 45", want: Settings{Timeout: ptr(45 * time.Second)}},
		{name: "fractional seconds", text: "timeout = 1.5", want: Settings{Timeout: ptr(1500 * time.Millisecond)}},
		{name: "timeout zero is never", text: `timeout = "0"`, want: Settings{Timeout: ptr(time.Duration(0))}},
		{name: "quoted key", text: `"model" = "opus"`, want: Settings{Model: ptr("opus")}},
		{name: "step timeout", text: `step_timeout = "2h"`, want: Settings{StepTimeout: ptr(2 * time.Hour)}},
		{name: "step timeout in seconds", text: "step_timeout = 90", want: Settings{StepTimeout: ptr(90 * time.Second)}},
		{name: "on_ask", text: `on_ask = "pause"`, want: Settings{OnAsk: ptr("pause")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig("c.toml", []byte(tt.text))
			require.NoError(t, err)
			assert.Equal(t, tt.want, *got)
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // substrings of the message
	}{
		{name: "unknown key", text: "model = \"opus\"\nmodle = \"y\"\n", want: []string{"c.toml:2:", `unknown key "modle"`, "model, effort, budget"}},
		{name: "input is not a key", text: `input = "x"`, want: []string{"c.toml:1:", `unknown key "input"`}},
		{name: "table", text: "quiet = true\n\n[run]\nmodel = \"opus\"\n", want: []string{"c.toml:3:", `unknown key "run"`}},
		{name: "syntax", text: "model = \"opus\"\nbudget = = 3\n", want: []string{"c.toml:2:"}},
		{name: "model typo", text: "model = \"sonet\"\n", want: []string{"c.toml:1:", `unknown model "sonet" (did you mean "sonnet"?)`}},
		{name: "unterminated string", text: "model = \"x\n", want: []string{"c.toml:1:"}},
		{name: "string for a number", text: "\nbudget = \"2\"\n", want: []string{"c.toml:2:", "budget must be a number, not a string"}},
		{name: "number for a string", text: "model = 4", want: []string{"c.toml:1:", "model must be a string, not an integer"}},
		{name: "string for a bool", text: `quiet = "yes"`, want: []string{"quiet must be true or false"}},
		{name: "float max_parallel", text: "max_parallel = 2.5", want: []string{"max_parallel must be a whole number"}},
		{name: "zero max_parallel", text: "max_parallel = 0", want: []string{"max_parallel must be at least 1"}},
		{name: "zero budget", text: "budget = 0", want: []string{"positive"}},
		{name: "negative budget", text: "budget = -1", want: []string{"positive"}},
		{name: "negative timeout", text: "timeout = -5", want: []string{"negative"}},
		{name: "bad timeout", text: `timeout = "soon"`, want: []string{`"soon" is neither a duration`}},
		{name: "bool timeout", text: `timeout = true`, want: []string{"timeout must be a duration"}},
		{name: "bool step timeout", text: `step_timeout = true`, want: []string{"step_timeout must be a duration"}},
		{name: "first problem wins", text: "a = 1\nb = 2\n", want: []string{"c.toml:1:", `"a"`}},
		{name: "first problem of any kind wins", text: "\nbudget = \"2\"\nmodle = 1\n", want: []string{"c.toml:2:", "budget must be a number"}},
		{name: "unknown key after a bad value", text: "modle = 1\nbudget = \"2\"\n", want: []string{"c.toml:1:", `unknown key "modle"`}},
		{name: "dotted key", text: "model = \"opus\"\nrun.model = \"y\"\n", want: []string{"c.toml:2:", `unknown key "run"`}},
		{name: "deep dotted key", text: "\n\nrun.a.b = 1\nrun.a.c = 2\n", want: []string{"c.toml:3:", `unknown key "run"`}},
		{name: "dotted key under a known key", text: "model.name = \"x\"\n", want: []string{"c.toml:1:", "model must be a string, not a table"}},
		{name: "array of tables", text: "\n[[run]]\nmodel = \"opus\"\n", want: []string{"c.toml:2:", `unknown key "run"`}},
		{name: "table for a string", text: "quiet = true\n[model]\nname = \"x\"\n", want: []string{"c.toml:2:", "model must be a string, not a table"}},
		{name: "unknown on_ask", text: "quiet = true\non_ask = \"never\"\n", want: []string{"c.toml:2:", `unknown mode "never"; use auto, prompt, pause, reject`}},
		{name: "bool on_ask", text: "on_ask = true", want: []string{"c.toml:1:", "on_ask must be a string"}},
		{name: "serve typo", text: "model = \"opus\"\n\n[serve]\naddr = \"127.0.0.1:1\"\nadr = \"x\"\n", want: []string{"c.toml:5:", "unknown key serve.adr; did you mean serve.addr?"}},
		{name: "serve wrong type", text: "[serve]\n\nmax_steps = \"3\"\n", want: []string{"c.toml:3:", "serve.max_steps must be a whole number"}},
		{name: "serve dotted", text: "quiet = true\nserve.allow_remote = \"yes\"\n", want: []string{"c.toml:2:", "serve.allow_remote must be true or false"}},
		{name: "serve roots", text: "[serve]\nroots = [\"a\", 3]\n", want: []string{"c.toml:2:", "serve.roots must hold folder names"}},
		{name: "inline array", text: "debug = false\neffort = [1, 2]\n", want: []string{"c.toml:2:", "effort must be a string, not an array"}},
		{name: "empty model list", text: "model = []", want: []string{"c.toml:1:", "model is an empty list"}},
		{name: "model list of numbers", text: "model = [\"opus\", 4]", want: []string{"c.toml:1:", "model must be a string or a list of strings"}},
		{name: "model list typo", text: "model = [\"opus\", \"sonet\"]", want: []string{"c.toml:1:", `unknown model "sonet" (did you mean "sonnet"?)`}},
		{name: "model string list typo", text: "model = \"opus,,sonnet\"", want: []string{"c.toml:1:", "empty model name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("c.toml", []byte(tt.text))
			require.Error(t, err)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce, "a config error is a ConfigError (the CLI exits 2)")
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := LoadConfig(filepath.Join(dir, "missing.toml"))
	require.NoError(t, err, "a missing file is no config")
	assert.Equal(t, Settings{}, *c)

	path := filepath.Join(dir, "config.toml")
	require.NoError(t, os.WriteFile(path, []byte("bogus = 1\n"), 0o644))
	_, err = LoadConfig(path)
	require.ErrorContains(t, err, path+":1:")
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"10m", 10 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"90", 90 * time.Second, true},
		{"0.25", 250 * time.Millisecond, true},
		{"0", 0, true},
		{"0s", 0, true},
		{" 5 ", 5 * time.Second, true},
		{"-1", 0, false},
		{"-1m", 0, false},
		{"", 0, false},
		{"ten", 0, false},
		{"1e300", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTimeout(tt.in)
			if !tt.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTaskFolderPattern(t *testing.T) {
	for _, tt := range []struct {
		config, want, err string
	}{
		{config: ``, want: "/p/.raymond/tasks/{{run_id}}/{{agent_id}}"},
		{config: `task_folder_pattern = "work/{{run_id}}/{{agent_id}}"`, want: "/p/.raymond/work/{{run_id}}/{{agent_id}}"},
		{config: `task_folder_pattern = "/scratch/{{ workflow_id }}-{{agent_id}}"`, want: "/scratch/{{ workflow_id }}-{{agent_id}}"},
		{config: "\n\ntask_folder_pattern = \"tasks/{{run_id}}\"", err: "cfg:3: task_folder_pattern \"tasks/{{run_id}}\" has no {{agent_id}}"},
		{config: `task_folder_pattern = "tasks/{{agent_id}}"`, err: "has no {{run_id}}"},
		{config: `task_folder_pattern = 3`, err: "task_folder_pattern must be a string"},
	} {
		cfg, err := ParseConfig("cfg", []byte(tt.config))
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.config)
			continue
		}
		require.NoError(t, err, tt.config)
		p := &Project{Dir: "/p", Config: cfg}
		assert.Equal(t, tt.want, p.TaskPattern(), tt.config)
	}
}

func TestNearestKey(t *testing.T) {
	for in, want := range map[string]string{
		"modle": "model", "efort": "effort", "max_paralel": "max_parallel", "budgte": "budget",
		"x": "", "colour": "", "no_wiat": "no_wait",
	} {
		assert.Equal(t, want, spelling.Suggest(in, ConfigKeys), in)
	}
}

func TestParseNotify(t *testing.T) {
	got, err := ParseConfig("c.toml", []byte(`
[[notify]]
url = "https://ntfy.sh/raymond-x"
format = "ntfy"
events = ["ask", "failed"]

[[notify]]
name = "hook"
url = "http://127.0.0.1:9000/hook"
secret_file = "hook.secret"
include_text = true
timeout = "3s"
page_url = "https://raymond.example/"
`))
	require.NoError(t, err)
	assert.Equal(t, []notify.Target{
		{URL: "https://ntfy.sh/raymond-x", Format: "ntfy", Events: []string{"ask", "failed"}},
		{Name: "hook", URL: "http://127.0.0.1:9000/hook", SecretFile: "hook.secret", IncludeText: true,
			Timeout: 3 * time.Second, PageURL: "https://raymond.example/"},
	}, got.Notify)
	p := &Project{Dir: "/proj", Config: got}
	assert.Equal(t, "/proj/hook.secret", p.NotifyTargets()[1].SecretFile)
}

// A bad [[notify]] entry is an error at the line of its key, naming the
// entry and the key.
func TestParseNotifyErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"no url", "[[notify]]\nformat = \"ntfy\"\n", []string{"c.toml:1:", "notify[0] has no url"}},
		{"scheme", "[[notify]]\nurl = \"https://x/\"\n[[notify]]\nname = \"p\"\n\nurl = \"ftp://x/\"\n",
			[]string{"c.toml:6:", `notify "p".url "ftp://x/": only https://`}},
		{"plain http", "[[notify]]\nurl = \"http://example.com/h\"\n", []string{"c.toml:2:", "plain http to another machine", "allow_insecure = true"}},
		{"event", "[[notify]]\nurl = \"https://x/\"\nevents = [\"ask\", \"done\"]\n", []string{"c.toml:3:", `notify[0].events: unknown event "done"`}},
		{"no events", "[[notify]]\nurl = \"https://x/\"\nevents = []\n", []string{"c.toml:3:", "notify[0].events is empty"}},
		{"format", "[[notify]]\nurl = \"https://x/\"\nformat = \"xml\"\n", []string{"c.toml:3:", `unknown format "xml"`}},
		{"typo", "[[notify]]\nurl = \"https://x/\"\nevent = [\"ask\"]\n", []string{"c.toml:3:", "unknown key notify[0].event; did you mean events?"}},
		{"type", "[[notify]]\nurl = \"https://x/\"\ninclude_text = \"yes\"\n", []string{"c.toml:3:", "notify[0].include_text must be true or false"}},
		{"timeout", "[[notify]]\nurl = \"https://x/\"\ntimeout = \"soon\"\n", []string{"c.toml:3:", "notify[0].timeout: \"soon\" is neither"}},
		{"table", "[notify]\nurl = \"https://x/\"\n", []string{"c.toml:1:", "notify must be an array of tables ([[notify]] entries"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("c.toml", []byte(tt.text))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
