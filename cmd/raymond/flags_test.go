package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/orchestrator"
	"raymond/project"
	"raymond/state"
)

// parseRunFlags parses args as the flags of kind and checks them.
func parseRunFlags(t *testing.T, kind flagKind, args ...string) (*runFlags, error) {
	t.Helper()
	fs := newFlagSet("test")
	f := newRunFlags(fs, kind)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return f, f.check(help{name: "test"})
}

func defaultOptions(project string) state.Options {
	return state.Options{
		MaxParallel:    orchestrator.DefaultMaxParallel,
		Timeout:        state.Duration(orchestrator.DefaultTimeout),
		StepTimeout:    state.Duration(orchestrator.DefaultStepTimeout),
		LoopWarn:       state.DefaultLoopWarn,
		LoopStop:       state.DefaultLoopStop,
		CycleStop:      state.DefaultCycleStop,
		PermissionMode: orchestrator.DefaultPermissionMode,
		Debug:          true,
		ProjectDir:     project,
	}
}

func TestNewOptions(t *testing.T) {
	with := func(change func(*state.Options)) state.Options {
		o := defaultOptions("/p")
		change(&o)
		return o
	}
	tests := []struct {
		name       string
		args       []string
		config     string
		env        map[string]string
		want       state.Options
		wantBudget float64
	}{
		{name: "defaults", want: defaultOptions("/p")},
		{
			name: "every flag",
			args: []string{"--input", "in", "--model", "opus", "--effort", "low", "--budget", "1.5",
				"--max-parallel", "2", "--timeout", "30", "--no-wait", "--permission-mode", "plan",
				"--claude", "/bin/c", "--no-debug"},
			want: with(func(o *state.Options) {
				o.Input = ptrTo("in")
				o.Model, o.Effort, o.MaxParallel = "opus", "low", 2
				o.Timeout = state.Duration(30 * time.Second)
				o.NoWait, o.PermissionMode, o.ClaudePath, o.Debug = true, "plan", "/bin/c", false
			}),
			wantBudget: 1.5,
		},
		{name: "empty input is an input", args: []string{"--input="}, want: with(func(o *state.Options) { o.Input = ptrTo("") })},
		{
			name:   "config fills what flags leave",
			config: "model = \"sonnet\"\nbudget = 4\nmax_parallel = 1\ntimeout = \"0\"\nno_wait = true\ndebug = false\nclaude = \"/cfg/claude\"\n",
			want: with(func(o *state.Options) {
				o.Model, o.MaxParallel, o.Timeout, o.NoWait, o.Debug, o.ClaudePath = "sonnet", 1, 0, true, false, "/cfg/claude"
				o.ClaudeFrom = "/p/.raymond/config.toml"
			}),
			wantBudget: 4,
		},
		{
			name:   "flags override config",
			args:   []string{"--model", "opus", "--budget", "9", "--max-parallel", "5", "--debug", "--timeout", "1m", "--max-turns", "7"},
			config: "model = \"sonnet\"\nbudget = 4\nmax_parallel = 1\ndebug = false\ntimeout = 5\nmax_turns = 30\nloop_warn = 0\nloop_stop = 4\ncycle_stop = 0\n",
			want: with(func(o *state.Options) {
				o.Model, o.MaxParallel, o.Timeout = "opus", 5, state.Duration(time.Minute)
				o.MaxTurns, o.LoopWarn, o.LoopStop, o.CycleStop = 7, 0, 4, 0
			}),
			wantBudget: 9,
		},
		{
			name:   "env overrides the config's claude",
			config: `claude = "/cfg/claude"`,
			env:    map[string]string{"RAYMOND_CLAUDE": "/env/claude"},
			want:   with(func(o *state.Options) { o.ClaudePath, o.ClaudeFrom = "/env/claude", "RAYMOND_CLAUDE" }),
		},
		{
			name:   "--claude overrides env",
			args:   []string{"--claude", "/flag/claude"},
			config: `claude = "/cfg/claude"`,
			env:    map[string]string{"RAYMOND_CLAUDE": "/env/claude"},
			want:   with(func(o *state.Options) { o.ClaudePath = "/flag/claude" }),
		},
		{
			name: "skip permissions drops the default mode",
			args: []string{"--dangerously-skip-permissions"},
			want: with(func(o *state.Options) { o.SkipPermissions, o.PermissionMode = true, "" }),
		},
		{
			name:   "skip permissions from config",
			config: "dangerously_skip_permissions = true\npermission_mode = \"plan\"\n",
			want:   with(func(o *state.Options) { o.SkipPermissions, o.PermissionMode = true, "" }),
		},
		{
			name:   "--permission-mode beats the config's skip",
			args:   []string{"--permission-mode", "plan"},
			config: "dangerously_skip_permissions = true\n",
			want:   with(func(o *state.Options) { o.SkipPermissions, o.PermissionMode = true, "plan" }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseRunFlags(t, kindRun, tt.args...)
			require.NoError(t, err)
			cfg, err := project.ParseConfig("c.toml", []byte(tt.config))
			require.NoError(t, err)
			getenv := func(k string) string { return tt.env[k] }
			p := &project.Project{Dir: "/p", Config: cfg}
			got, budget := p.NewOptions(f.given(getenv))
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantBudget, budget)
		})
	}
}

func TestOverride(t *testing.T) {
	stored := func() *state.Run {
		return &state.Run{
			BudgetUSD: 1,
			Options: state.Options{
				Model: "sonnet", Effort: "high", MaxParallel: 4, Timeout: state.Duration(time.Minute),
				PermissionMode: "plan", ClaudePath: "/c", Debug: true, ProjectDir: "/p",
			},
		}
	}
	tests := []struct {
		name   string
		args   []string
		change func(*state.Run)
	}{
		{name: "nothing given changes nothing", change: func(*state.Run) {}},
		{name: "budget", args: []string{"--budget", "3"}, change: func(r *state.Run) { r.BudgetUSD = 3 }},
		{
			name: "model and timeout",
			args: []string{"--model", "opus", "--timeout", "0"},
			change: func(r *state.Run) {
				r.Options.Model, r.Options.Timeout = "opus", 0
			},
		},
		{name: "no-debug", args: []string{"--no-debug"}, change: func(r *state.Run) { r.Options.Debug = false }},
		{
			name: "skip permissions",
			args: []string{"--dangerously-skip-permissions"},
			change: func(r *state.Run) {
				r.Options.SkipPermissions, r.Options.PermissionMode = true, ""
			},
		},
		{
			name: "every other flag",
			args: []string{"--effort", "low", "--max-parallel", "1", "--no-wait", "--permission-mode", "acceptEdits", "--claude", "/d"},
			change: func(r *state.Run) {
				o := &r.Options
				o.Effort, o.MaxParallel, o.NoWait, o.PermissionMode, o.ClaudePath = "low", 1, true, "acceptEdits", "/d"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseRunFlags(t, kindResume, tt.args...)
			require.NoError(t, err)
			got, want := stored(), stored()
			project.Override(got, f.settings())
			tt.change(want)
			assert.Equal(t, want, got)
		})
	}
}

func TestCheckFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--budget", "0"}, "--budget"},
		{[]string{"--budget", "-2"}, "--budget"},
		{[]string{"--max-parallel", "0"}, "--max-parallel must be at least 1"},
		{[]string{"--timeout", "-1s"}, "negative"},
		{[]string{"--timeout", "-3"}, "negative"},
		{[]string{"--timeout", "later"}, "--timeout"},
		{[]string{"--debug", "--no-debug"}, "contradict"},
		{[]string{"--dangerously-skip-permissions", "--permission-mode", "plan"}, "contradict"},
		{[]string{"--id", "a/b"}, "--id"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"--on-ask", "ask"}, `--on-ask: unknown mode "ask"; use auto, prompt, pause, reject`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := parseRunFlags(t, kindRun, tt.args...)
			var ue *usageError
			require.ErrorAs(t, err, &ue)
			assert.Contains(t, ue.msg, tt.want)
		})
	}
}

func TestFlagKinds(t *testing.T) {
	// resume's --input answers an ask (protocol §15); --id is run's alone.
	_, err := parseRunFlags(t, kindResume, "--id", "x")
	require.ErrorContains(t, err, "unknown flag: --id")
	_, err = parseRunFlags(t, kindResume, "--input", "x", "--ask", "ask_main_1", "--on-ask", "pause")
	require.NoError(t, err)
	_, err = parseRunFlags(t, kindResume, "--ask", "ask_main_1")
	require.ErrorContains(t, err, "--ask names the ask that --input answers")
	_, err = parseRunFlags(t, kindRun, "--ask", "ask_main_1")
	require.ErrorContains(t, err, "unknown flag: --ask")
	_, err = parseRunFlags(t, kindRecover, "--on-ask", "pause")
	require.ErrorContains(t, err, "unknown flag: --on-ask")
	_, err = parseRunFlags(t, kindStart, "--json")
	require.ErrorContains(t, err, "unknown flag: --json")
	_, err = parseRunFlags(t, kindRecover, "--model", "x")
	require.ErrorContains(t, err, "unknown flag: --model")
	_, err = parseRunFlags(t, kindRecover, "--quiet", "--replies", "r.yaml")
	require.NoError(t, err)
}

func TestResumeHelpStoredDefaults(t *testing.T) {
	// A flag that resume does not get keeps the run's stored value, so its
	// help must not claim run's default (--debug said "default true").
	fs := newFlagSet("resume")
	newRunFlags(fs, kindResume)
	usage := fs.FlagUsages()
	for _, name := range []string{"debug", "no-wait", "confine", "dangerously-skip-permissions", "model", "timeout"} {
		line := helpLine(t, usage, name)
		require.Contains(t, line, "(default: the run's own)", "--%s", name)
		require.NotContains(t, line, "(default true)", "--%s", name)
		require.NotContains(t, line, "allowed, with a warning", "--%s", name)
	}
	fs = newFlagSet("run")
	newRunFlags(fs, kindRun)
	line := helpLine(t, fs.FlagUsages(), "debug")
	require.Equal(t, 1, strings.Count(line, "default"), "run --debug says its default once: %q", line)
}

// helpLine returns the line of usage that documents --name.
func helpLine(t *testing.T, usage, name string) string {
	t.Helper()
	for line := range strings.SplitSeq(usage, "\n") {
		if strings.Contains(line, "--"+name+" ") {
			return line
		}
	}
	t.Fatalf("no --%s in:\n%s", name, usage)
	return ""
}
