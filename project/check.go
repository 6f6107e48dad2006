package project

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"raymond/permission"
	"raymond/state"
)

// PermissionModes are the values claude accepts for --permission-mode
// (claude-code.md; "default" is the CLI's own default).
var PermissionModes = permission.Modes

// EffortLevels are the values claude accepts for --effort (claude-code.md).
// claude itself ignores any other with a warning, which a run would never
// show: raymond refuses it instead.
var EffortLevels = []string{"low", "medium", "high", "xhigh", "max"}

// AskModes are the values of --on-ask and the config's on_ask (cli.md,
// protocol.md §15.3): auto decides between prompt and pause when a drive
// begins.
var AskModes = []string{"auto", "prompt", "pause", "reject"}

// CheckWorkspace accepts a workspace mode (--workspace, config workspace).
func CheckWorkspace(mode string) error {
	if mode == state.WorkspaceShared || mode == state.WorkspaceWorktree {
		return nil
	}
	return fmt.Errorf("unknown workspace mode %q; use shared or worktree", mode)
}

// CheckMerge accepts a merge rule (config workspace_merge).
func CheckMerge(rule string) error {
	if rule == state.MergeAuto || rule == state.MergeNone {
		return nil
	}
	return fmt.Errorf("unknown merge rule %q; use auto or none", rule)
}

// CheckOnAsk accepts an --on-ask mode.
func CheckOnAsk(mode string) error {
	if !slices.Contains(AskModes, mode) {
		return fmt.Errorf("unknown mode %q; use %s", mode, strings.Join(AskModes, ", "))
	}
	return nil
}

// CheckPermissionMode accepts a permission mode claude knows.
func CheckPermissionMode(mode string) error { return permission.CheckMode(mode) }

// CheckEffort accepts an effort level claude knows.
func CheckEffort(effort string) error {
	if !slices.Contains(EffortLevels, effort) {
		return fmt.Errorf("unknown effort %q; claude accepts %s", effort, strings.Join(EffortLevels, ", "))
	}
	return nil
}

// AbsPath returns path absolute, taken relative to dir, when it names a
// file by a path (it holds a slash); a bare name, which is looked up in
// PATH when it runs, is returned as it is, and so is every path when dir
// is not absolute. A run stores its claude
// executable this way, so that a resume from another folder runs the same
// program.
func AbsPath(path, dir string) string {
	if path == "" || filepath.IsAbs(path) || !filepath.IsAbs(dir) || !strings.ContainsRune(path, filepath.Separator) {
		return path
	}
	return filepath.Join(dir, path)
}

// OptionError is a stored option that claude would refuse, found when a
// run is resumed. Flag names the flag of raymond resume that replaces it.
type OptionError struct {
	Flag  string // "--permission-mode"
	Value string // the value as stored
	Err   error
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %s: %v", e.Flag, e.Value, e.Err) }
func (e *OptionError) Unwrap() error { return e.Err }

// CheckOptions checks the options of a stored run as NewOptions would have
// checked them: a run made by an older raymond, or a state file edited by
// hand, may hold values claude refuses, which would fail every step. The
// first bad option is returned as an *OptionError.
func CheckOptions(o state.Options) error {
	for _, m := range append([]string{o.Model}, o.FallbackModels...) {
		if m == "" {
			continue
		}
		if err := CheckModel(m); err != nil {
			return &OptionError{Flag: "--model", Value: m, Err: err}
		}
	}
	if o.Effort != "" {
		if err := CheckEffort(o.Effort); err != nil {
			return &OptionError{Flag: "--effort", Value: o.Effort, Err: err}
		}
	}
	if !o.SkipPermissions {
		if err := CheckPermissionMode(o.PermissionMode); err != nil {
			return &OptionError{Flag: "--permission-mode", Value: o.PermissionMode, Err: err}
		}
	}
	if o.OnAsk != "" {
		if err := CheckOnAsk(o.OnAsk); err != nil {
			return &OptionError{Flag: "--on-ask", Value: o.OnAsk, Err: err}
		}
	}
	if o.MaxParallel < 1 {
		return &OptionError{Flag: "--max-parallel", Value: fmt.Sprint(o.MaxParallel), Err: fmt.Errorf("must be at least 1")}
	}
	if o.Timeout < 0 {
		return &OptionError{Flag: "--timeout", Value: o.Timeout.String(), Err: fmt.Errorf("is negative")}
	}
	if o.ClaudePath != "" && !filepath.IsAbs(o.ClaudePath) && strings.ContainsRune(o.ClaudePath, filepath.Separator) {
		return &OptionError{Flag: "--claude", Value: o.ClaudePath,
			Err: fmt.Errorf("is relative to a folder the run does not record; give the executable's absolute path")}
	}
	return nil
}
