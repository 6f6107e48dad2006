package project

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"raymond/internal/spelling"
	"raymond/notify"
)

// ConfigKeys are the keys .raymond/config.toml may hold, in the order an
// error message lists them. They mirror the flags of raymond run; --input
// is not one.
var ConfigKeys = []string{
	"model", "effort", "budget", "max_parallel", "max_agents", "max_depth", "max_forks", "timeout", "step_timeout", "no_wait",
	"max_turns", "loop_warn", "loop_stop", "cycle_stop",
	"permission_mode", "dangerously_skip_permissions", "claude", "debug", "quiet", "confine", "task_folder_pattern", "on_ask",
	"lint", "workspace", "workspace_merge", "serve", "notify", "otel",
}

// ServeKeys are the keys of the config's [serve] table, for raymond serve.
var ServeKeys = []string{"addr", "roots", "max_steps", "daily_cap_usd", "dangerously_skip_permissions", "allow_remote", "schedule", "hook"}

// Settings are the settings of a run that one layer sets: the command line
// (or a daemon's client), or .raymond/config.toml. A nil field is a setting
// that layer leaves to the next one (see NewOptions).
type Settings struct {
	Model       *string
	Effort      *string
	Budget      *float64 // USD, positive
	MaxParallel *int
	MaxAgents   *int
	MaxDepth    *int
	MaxForks    *int
	Timeout     *time.Duration // 0 means never
	StepTimeout *time.Duration // 0 means never
	NoWait      *bool
	// MaxTurns, LoopWarn, LoopStop and CycleStop keep steps and agents
	// from running away; 0 turns each off.
	MaxTurns, LoopWarn, LoopStop, CycleStop *int
	PermissionMode                          *string
	SkipPermissions                         *bool // --dangerously-skip-permissions
	Claude                                  *string
	Debug                                   *bool // write the transcript
	Quiet                                   *bool // progress shows only transitions, waits and errors
	Confine                                 *bool // refuse a cd= outside the project folder
	// TaskFolderPattern is where agents' task folders go (protocol §16),
	// relative to .raymond/ unless absolute; config only.
	TaskFolderPattern *string
	OnAsk             *string // who answers <ask>: auto, prompt, pause or reject
	// Lint, when false, skips linting a workflow before run and start;
	// config only (the command line has --no-lint).
	Lint *bool
	// Workspace is where a run's agents work: "shared" or "worktree"
	// (--workspace); WorkspaceMerge how workers' branches come back in
	// the worktree mode: "auto" or "none" (config only).
	Workspace      *string
	WorkspaceMerge *string
	// Serve is the [serve] table: the daemon's own settings.
	Serve Serve
	// Notify are the [[notify]] entries: where the runs' notifications go,
	// from the command line and the daemon alike; config only.
	Notify []notify.Target
	// OTel is the [otel] table: where traces go, for runs and the daemon.
	OTel OTel
}

// Serve is the config's [serve] table. The run settings above apply to the
// daemon's runs too, except dangerously_skip_permissions: only the
// daemon's own key lets its runs skip permissions.
type Serve struct {
	// Addr is the address to listen on (host:port).
	Addr *string
	// Roots are the folders searched for workflows, relative to the
	// project folder unless absolute.
	Roots []string
	// MaxSteps caps the steps running at once across all runs.
	MaxSteps *int
	// DailyCapUSD stops new steps for the day once the day's spend reaches it.
	DailyCapUSD *float64
	// SkipPermissions lets the daemon's runs pass --dangerously-skip-permissions.
	SkipPermissions *bool
	// AllowRemote allows listening on an address other than loopback.
	AllowRemote *bool
	// Schedules are the [[serve.schedule]] entries, in the file's order.
	Schedules []Schedule
	// Hooks are the [[serve.hook]] entries, in the file's order.
	Hooks []Hook
}

// ConfigError is a config file that cannot be used: malformed, an unknown
// key, or a value of the wrong type. Its message names path:line.
type ConfigError struct {
	Path string
	Line int // from 1; 0 when the library gave no position
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// LoadConfig reads the config file at path. A missing file is an empty
// config; one that cannot be used is a *ConfigError.
func LoadConfig(path string) (*Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Settings{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig parses the content of a config file; path only names it in
// errors. The first problem in the file is reported, with the line the TOML
// library gives for it.
func ParseConfig(path string, data []byte) (*Settings, error) {
	// Each value is decoded by itself, in the order of the file, so that
	// the first problem is the one reported; a value decoded through a
	// toml.Unmarshaler has its error returned as a toml.ParseError at the
	// position of its key.
	var raw map[string]toml.Primitive
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw)
	if err != nil {
		return nil, configError(path, err)
	}
	s := &Settings{}
	seen := make(map[string]bool, len(raw))
	for _, k := range md.Keys() {
		// A dotted key (run.model = 1) has no key of its own for its
		// table: the table comes with its first key inside.
		key := k[0]
		if seen[key] {
			continue
		}
		seen[key] = true
		var inner *keyError
		err := md.PrimitiveDecode(raw[key], setter(func(v any) error {
			err := s.set(key, v)
			errors.As(err, &inner)
			return err
		}))
		var pe toml.ParseError
		switch {
		case err != nil && inner != nil:
			// A problem with one key of a table ([serve]) is given
			// at that key, not at the table's header; in an array of
			// tables ([[notify]]) the path starts with the entry's index.
			if e := at(&md, raw[key], inner.path, inner.err); errors.As(e, &pe) && pe.Position.Line > 0 {
				err = e
			}
		case errors.As(err, &pe) && pe.Position.Line == 0 && len(k) > 1:
			// A table made by a dotted key has no position: give
			// the error at the dotted key.
			err = at(&md, raw[key], k[1:], errors.New(pe.Message))
		}
		if err != nil {
			return nil, configError(path, err)
		}
		if key == "serve" {
			s.Serve.placeEntries(&md, raw[key])
		}
	}
	return s, nil
}

// placeEntries gives each schedule and hook the line of its workflow key,
// for the daemon to name when it finds no such workflow.
func (sv *Serve) placeEntries(md *toml.MetaData, p toml.Primitive) {
	line := func(table string, i int) int {
		var pe toml.ParseError
		if errors.As(at(md, p, []string{table, strconv.Itoa(i), "workflow"}, errors.New("")), &pe) {
			return pe.Position.Line
		}
		return 0
	}
	for i := range sv.Schedules {
		sv.Schedules[i].Line = line("schedule", i)
	}
	for i := range sv.Hooks {
		sv.Hooks[i].Line = line("hook", i)
	}
}

// at returns err as the TOML library's error about the key path inside the
// table p, so that it carries the key's position. In an array of tables
// the path's element is the index.
func at(md *toml.MetaData, p toml.Primitive, path []string, err error) error {
	if len(path) == 0 {
		return md.PrimitiveDecode(p, setter(func(any) error { return err }))
	}
	if i, aerr := strconv.Atoi(path[0]); aerr == nil {
		var list []toml.Primitive
		if md.PrimitiveDecode(p, &list) != nil || i < 0 || i >= len(list) {
			return err
		}
		return at(md, list[i], path[1:], err)
	}
	var table map[string]toml.Primitive
	if md.PrimitiveDecode(p, &table) != nil {
		return err
	}
	return at(md, table[path[0]], path[1:], err)
}

// setter is a toml.Unmarshaler that hands the decoded value to a function.
type setter func(any) error

func (f setter) UnmarshalTOML(v any) error { return f(v) }

// configError turns an error of the TOML library into a *ConfigError.
func configError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &ConfigError{Path: path, Line: pe.Position.Line, Msg: pe.Message}
	}
	return &ConfigError{Path: path, Msg: err.Error()}
}

// set stores one key of the file.
func (s *Settings) set(key string, v any) error {
	var err error
	switch key {
	case "model":
		if list, ok := v.([]any); ok {
			// model = ["opus", "sonnet"]: the same as "opus,sonnet".
			var names []string
			for _, item := range list {
				name, ok := item.(string)
				if !ok {
					return fmt.Errorf("model must be a string or a list of strings, not a list holding %s", tomlType(item))
				}
				names = append(names, name)
			}
			if len(names) == 0 {
				return errors.New(`model is an empty list; name at least one model, like ["opus", "sonnet"], or remove the key`)
			}
			v = strings.Join(names, ",")
		}
		if s.Model, err = tomlString(key, v); err == nil {
			_, err = SplitModels(*s.Model)
		}
	case "effort":
		if s.Effort, err = tomlString(key, v); err == nil {
			err = CheckEffort(*s.Effort)
		}
	case "permission_mode":
		if s.PermissionMode, err = tomlString(key, v); err == nil {
			err = CheckPermissionMode(*s.PermissionMode)
		}
	case "claude":
		s.Claude, err = tomlString(key, v)
	case "on_ask":
		if s.OnAsk, err = tomlString(key, v); err == nil {
			err = CheckOnAsk(*s.OnAsk)
		}
	case "no_wait":
		s.NoWait, err = tomlBool(key, v)
	case "dangerously_skip_permissions":
		s.SkipPermissions, err = tomlBool(key, v)
	case "debug":
		s.Debug, err = tomlBool(key, v)
	case "quiet":
		s.Quiet, err = tomlBool(key, v)
	case "confine":
		s.Confine, err = tomlBool(key, v)
	case "lint":
		s.Lint, err = tomlBool(key, v)
	case "workspace":
		if s.Workspace, err = tomlString(key, v); err == nil {
			err = CheckWorkspace(*s.Workspace)
		}
	case "workspace_merge":
		if s.WorkspaceMerge, err = tomlString(key, v); err == nil {
			err = CheckMerge(*s.WorkspaceMerge)
		}
	case "task_folder_pattern":
		if s.TaskFolderPattern, err = tomlString(key, v); err == nil {
			err = CheckTaskPattern(*s.TaskFolderPattern)
		}
	case "budget":
		var f float64
		if f, err = tomlNumber(key, v); err == nil {
			if err = CheckBudget(f); err == nil {
				s.Budget = &f
			}
		}
	case "serve":
		err = s.Serve.set(v)
	case "notify":
		err = s.setNotify(v)
	case "otel":
		err = s.OTel.set(v)
	case "max_parallel":
		s.MaxParallel, err = tomlCount(key, v)
	case "max_agents":
		s.MaxAgents, err = tomlCount(key, v)
	case "max_depth":
		s.MaxDepth, err = tomlCount(key, v)
	case "max_forks":
		s.MaxForks, err = tomlCount(key, v)
	case "max_turns":
		s.MaxTurns, err = tomlLimit(key, v)
	case "loop_warn":
		s.LoopWarn, err = tomlLimit(key, v)
	case "loop_stop":
		s.LoopStop, err = tomlLimit(key, v)
	case "cycle_stop":
		s.CycleStop, err = tomlLimit(key, v)
	case "timeout", "step_timeout":
		var d time.Duration
		switch t := v.(type) {
		case string:
			d, err = ParseTimeout(t)
		case int64:
			d, err = ParseTimeout(fmt.Sprint(t))
		case float64:
			d, err = ParseTimeout(fmt.Sprint(t))
		default:
			err = fmt.Errorf("%s must be a duration such as \"90s\" or a number of seconds, not %s", key, tomlType(v))
		}
		switch {
		case err != nil:
		case key == "timeout":
			s.Timeout = &d
		default:
			s.StepTimeout = &d
		}
	default:
		if near := spelling.Suggest(key, ConfigKeys); near != "" {
			err = fmt.Errorf("unknown key %q; did you mean %q? The keys allowed are %s", key, near, strings.Join(ConfigKeys, ", "))
		} else {
			err = fmt.Errorf("unknown key %q; the keys allowed are %s", key, strings.Join(ConfigKeys, ", "))
		}
	}
	return err
}

func tomlString(key string, v any) (*string, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s must be a string, not %s", key, tomlType(v))
	}
	return &s, nil
}

func tomlBool(key string, v any) (*bool, error) {
	b, ok := v.(bool)
	if !ok {
		return nil, fmt.Errorf("%s must be true or false, not %s", key, tomlType(v))
	}
	return &b, nil
}

func tomlNumber(key string, v any) (float64, error) {
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		return n, nil
	}
	return 0, fmt.Errorf("%s must be a number, not %s", key, tomlType(v))
}

// tomlType names the TOML type of a decoded value for error messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// ParseTimeout reads a step timeout: a Go duration (90s, 10m) or a bare
// number of seconds; 0 means never; negative is an error.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs > float64(1<<63-1)/float64(time.Second) {
			return 0, fmt.Errorf("%q seconds is too long", s)
		}
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%q is neither a duration such as 90s or 10m nor a number of seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative; use 0 for no timeout", s)
	}
	return d, nil
}

// CheckTaskPattern accepts a task folder pattern that gives every agent of
// every run a folder of its own: it must hold {{agent_id}}, and {{run_id}}
// or {{workflow_id}} (protocol §16).
func CheckTaskPattern(p string) error {
	has := func(name string) bool {
		return strings.Contains(p, "{{"+name+"}}") || strings.Contains(p, "{{ "+name+" }}")
	}
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("task_folder_pattern is empty; leave it out for the default tasks/{{run_id}}/{{agent_id}}")
	case !has("agent_id"):
		return fmt.Errorf("task_folder_pattern %q has no {{agent_id}}, so agents would share one folder; add it", p)
	case !has("run_id") && !has("workflow_id"):
		return fmt.Errorf("task_folder_pattern %q has no {{run_id}}, so runs would share folders; add it", p)
	}
	return nil
}

// CheckBudget accepts a positive budget in USD.
func CheckBudget(usd float64) error {
	if !(usd > 0) || usd > 1e9 {
		return fmt.Errorf("the budget must be a positive amount of USD, not %v", usd)
	}
	return nil
}

// tomlCount reads a whole number of at least 1.
func tomlCount(key string, v any) (*int, error) {
	n, ok := v.(int64)
	switch {
	case !ok:
		return nil, fmt.Errorf("%s must be a whole number, not %s", key, tomlType(v))
	case n < 1 || n > math.MaxInt32:
		return nil, fmt.Errorf("%s must be at least 1, not %d", key, n)
	}
	m := int(n)
	return &m, nil
}

// tomlLimit reads a limit that 0 turns off: a whole number of at least 0.
func tomlLimit(key string, v any) (*int, error) {
	n, ok := v.(int64)
	switch {
	case !ok:
		return nil, fmt.Errorf("%s must be a whole number (0 for none), not %s", key, tomlType(v))
	case n < 0 || n > math.MaxInt32:
		return nil, fmt.Errorf("%s must be a whole number of at least 1, or 0 for none, not %d", key, n)
	}
	m := int(n)
	return &m, nil
}

// set reads the [serve] table.
func (sv *Serve) set(v any) error {
	table, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("serve must be a table ([serve]), not %s", tomlType(v))
	}
	for _, key := range sortedKeys(table) {
		v := table[key]
		var err error
		switch key {
		case "addr":
			sv.Addr, err = tomlString("serve."+key, v)
		case "roots":
			list, ok := v.([]any)
			if !ok {
				return &keyError{path: []string{key}, err: fmt.Errorf("serve.roots must be an array of folders, not %s", tomlType(v))}
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok || s == "" {
					return &keyError{path: []string{key}, err: fmt.Errorf("serve.roots must hold folder names, not %s", tomlType(e))}
				}
				sv.Roots = append(sv.Roots, s)
			}
		case "max_steps":
			sv.MaxSteps, err = tomlCount("serve."+key, v)
		case "daily_cap_usd":
			var f float64
			if f, err = tomlNumber("serve."+key, v); err == nil {
				if err = CheckBudget(f); err == nil {
					sv.DailyCapUSD = &f
				} else {
					err = fmt.Errorf("serve.daily_cap_usd must be a positive amount of USD, not %v", f)
				}
			}
		case "dangerously_skip_permissions":
			sv.SkipPermissions, err = tomlBool("serve."+key, v)
		case "allow_remote":
			sv.AllowRemote, err = tomlBool("serve."+key, v)
		case "schedule":
			if err := sv.setSchedules(v); err != nil {
				return err
			}
		case "hook":
			if err := sv.setHooks(v); err != nil {
				return err
			}
		default:
			if near := spelling.Suggest(key, ServeKeys); near != "" {
				err = fmt.Errorf("unknown key serve.%s; did you mean serve.%s? The keys of [serve] are %s", key, near, strings.Join(ServeKeys, ", "))
			} else {
				err = fmt.Errorf("unknown key serve.%s; the keys of [serve] are %s", key, strings.Join(ServeKeys, ", "))
			}
		}
		if err != nil {
			return &keyError{path: []string{key}, err: err}
		}
	}
	return nil
}

// keyError is the problem with one key of a table, so that ParseConfig
// can give the key's line rather than the table's. Its path goes down from
// the table: keys, and the index of an entry of an array of tables.
type keyError struct {
	path []string
	err  error
}

func (e *keyError) Error() string { return e.err.Error() }

func (e *keyError) Unwrap() error { return e.err }

// sortedKeys returns the keys of m in order, so the first problem reported
// is the same every time.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
