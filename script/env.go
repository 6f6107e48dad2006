package script

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"raymond/step"
)

// The variables raymond gives every script (protocol.md §11.3), besides
// step.MarkerEnv. Any a script would inherit from raymond's own environment
// (raymond run from inside a script step) is dropped first, so that a step
// without an input never sees its caller's.
const (
	EnvWorkflowID = "RAYMOND_WORKFLOW_ID"
	EnvRunID      = "RAYMOND_RUN_ID"
	EnvAgentID    = "RAYMOND_AGENT_ID"
	EnvState      = "RAYMOND_STATE"
	EnvTaskFolder = "RAYMOND_TASK_FOLDER"
	EnvInput      = "RAYMOND_INPUT"
	EnvResult     = "RAYMOND_RESULT"
	EnvAskID      = "RAYMOND_ASK_ID"
)

// ownVars are the variables raymond sets, which a script never inherits.
var ownVars = []string{EnvWorkflowID, EnvRunID, EnvAgentID, EnvState, EnvTaskFolder, EnvInput, EnvResult, EnvAskID, step.MarkerEnv}

// shellName matches the names a shell can export.
var shellName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedNames are the fork variable names never passed to a script, and
// reservedPrefixes the starts of such names: a fork variable must not change
// how the shell, the loader or raymond itself behave.
var (
	reservedNames    = []string{"PATH", "HOME", "SHELL", "USER", "PWD", "TMPDIR", "IFS", "ENV", "BASH_ENV", "CDPATH"}
	reservedPrefixes = []string{"RAYMOND_", "LD_", "DYLD_", "BASH_", "CLAUDE"}
)

// Reserved reports whether name may not be passed to a script as a fork
// variable, whatever the environment.
func Reserved(name string) bool {
	if slices.Contains(reservedNames, name) {
		return true
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// environ is the environment of a script step: base without CLAUDECODE and
// without raymond's own variables, then raymond's variables for req, then
// the fork variables that may be passed. It returns the whole environment,
// the variables it added by name, and a warning for each fork variable it
// left out.
func environ(base []string, req step.Request) (env []string, added map[string]string, warnings []string) {
	have := make(map[string]bool, len(base))
	env = make([]string, 0, len(base)+len(ownVars)+len(req.Step.Vars))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name == "CLAUDECODE" || slices.Contains(ownVars, name) {
			continue
		}
		have[name] = true
		env = append(env, kv)
	}
	added = make(map[string]string)
	set := func(name, value string) {
		added[name] = value
		env = append(env, name+"="+value)
	}
	set(EnvWorkflowID, req.RunID)
	set(EnvRunID, req.RunID)
	set(EnvAgentID, req.Agent)
	set(EnvState, req.Step.State)
	if req.RunID != "" {
		set(step.MarkerEnv, req.Marker())
	}
	for _, v := range []struct{ name, key string }{
		{EnvTaskFolder, "task_folder"}, {EnvInput, "input"}, {EnvResult, "result"}, {EnvAskID, "ask_id"},
	} {
		if value, ok := req.Vars[v.key]; ok {
			set(v.name, value)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(req.Step.Vars)) {
		why := ""
		switch {
		case !shellName.MatchString(name):
			why = "it is not a shell variable name (letters, digits and _, not starting with a digit)"
		case Reserved(name):
			why = "the name is reserved (PATH, HOME, RAYMOND_…, LD_…, BASH_…, …)"
		case have[name]:
			why = "raymond's environment has it already, and a fork variable never replaces one"
		}
		if why != "" {
			warnings = append(warnings, fmt.Sprintf("fork variable %q is not passed to %s: %s; rename it", name, req.Step.State, why))
			continue
		}
		set(name, req.Step.Vars[name])
	}
	return env, added, warnings
}

// baseEnv is r.Env, or raymond's own environment.
func (r *Runner) baseEnv() []string {
	if r.Env != nil {
		return r.Env
	}
	return os.Environ()
}
