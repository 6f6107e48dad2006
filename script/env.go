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

// FileSuffix names the companion of RAYMOND_INPUT and RAYMOND_RESULT:
// RAYMOND_INPUT_FILE is the path of a file holding the same value, whatever
// its size. A script that may get a large input reads the file.
const FileSuffix = "_FILE"

// maxEnvValue is the largest value passed in an environment variable. Linux
// refuses to start a process with one string of its environment over 128 KiB
// (MAX_ARG_STRLEN), and all of them together must leave room for the rest of
// the environment; a larger input or result is passed only as a file.
const maxEnvValue = 64 << 10

// ownVars are the variables raymond sets, which a script never inherits.
var ownVars = []string{EnvWorkflowID, EnvRunID, EnvAgentID, EnvState, EnvTaskFolder, EnvInput, EnvResult, EnvAskID,
	EnvInput + FileSuffix, EnvResult + FileSuffix, step.MarkerEnv}

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
// the fork variables that may be passed. The input (RAYMOND_INPUT and
// RAYMOND_RESULT) is also written to a file by spill, whose path is in
// RAYMOND_INPUT_FILE and RAYMOND_RESULT_FILE; an input over maxEnvValue is
// passed only so. It returns the whole environment, the variables it added
// by name, and a warning for each value it left out.
func environ(base []string, req step.Request, spill func(value string) (string, error)) (env []string, added map[string]string, warnings []string, err error) {
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
	if value, ok := req.Vars["task_folder"]; ok {
		set(EnvTaskFolder, value)
	}
	spilled := map[string]string{} // value → its file, so one value is written once
	for _, v := range []struct{ name, key string }{{EnvInput, "input"}, {EnvResult, "result"}} {
		value, ok := req.Vars[v.key]
		if !ok {
			continue
		}
		path, ok := spilled[value]
		if !ok {
			var err error
			if path, err = spill(value); err != nil {
				return nil, nil, nil, fmt.Errorf("pass %s to %s: %w", v.name, req.Step.State, err)
			}
			spilled[value] = path
		}
		set(v.name+FileSuffix, path)
		if len(value) <= maxEnvValue {
			set(v.name, value)
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s for %s is %d KiB, more than an environment variable can safely hold (%d KiB): "+
			"it is not set, and the script reads the value from the file named by $%s", v.name, req.Step.State, len(value)>>10, maxEnvValue>>10, v.name+FileSuffix))
	}
	if value, ok := req.Vars["ask_id"]; ok {
		set(EnvAskID, value)
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
		case len(req.Step.Vars[name]) > maxEnvValue:
			why = fmt.Sprintf("its value is %d KiB, more than an environment variable can safely hold (%d KiB); pass it in a file", len(req.Step.Vars[name])>>10, maxEnvValue>>10)
		}
		if why != "" {
			warnings = append(warnings, fmt.Sprintf("fork variable %q is not passed to %s: %s; rename it", name, req.Step.State, why))
			continue
		}
		set(name, req.Step.Vars[name])
	}
	return env, added, warnings, nil
}

// baseEnv is r.Env, or raymond's own environment.
func (r *Runner) baseEnv() []string {
	if r.Env != nil {
		return r.Env
	}
	return os.Environ()
}
