package permission

import (
	"fmt"
	"slices"
	"strings"
)

// Modes are the values claude accepts for --permission-mode.
var Modes = []string{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual", "plan"}

// Bypass is the mode that allows every tool without asking; a run started
// with --dangerously-skip-permissions is in it.
const Bypass = "bypassPermissions"

// Tools are the names of Claude Code's built-in tools, as a tool rule
// names them. Rules for other names still reach claude; lint only warns.
var Tools = []string{
	"Bash", "BashOutput", "Edit", "ExitPlanMode", "Glob", "Grep", "KillShell", "LS",
	"MultiEdit", "NotebookEdit", "NotebookRead", "Read", "SlashCommand", "Task",
	"TodoWrite", "WebFetch", "WebSearch", "Write",
	// Named by the init line of Claude Code 2.1.x (../fixtures/claude).
	"CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree",
	"ListAgents", "Monitor", "ScheduleWakeup", "SendMessage", "Skill",
	"TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate",
	"ToolSearch", "Workflow",
}

// CheckMode accepts a permission mode claude knows.
func CheckMode(mode string) error {
	if !slices.Contains(Modes, mode) {
		return fmt.Errorf("unknown permission mode %q; claude accepts %s", mode, strings.Join(Modes, ", "))
	}
	return nil
}

// Split splits a list of tool rules written as one string the way claude
// splits the words of --allowedTools: at commas and white space outside
// parentheses, so "Read, Bash(git log:*)" is two rules, the second kept
// whole. Empty pieces are dropped. It fails on unbalanced parentheses,
// which claude would read as something else than was meant.
func Split(s string) ([]string, error) {
	var (
		rules []string
		depth int
		start = 0
	)
	flush := func(end int) {
		if r := strings.TrimSpace(s[start:end]); r != "" {
			rules = append(rules, r)
		}
	}
	for i, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return nil, fmt.Errorf("tool rule %q has a ) without its (", strings.TrimSpace(s))
			}
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			flush(i)
			start = i + 1
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("tool rule %q has a ( that is never closed", strings.TrimSpace(s))
	}
	flush(len(s))
	return rules, nil
}

// Name returns the tool a rule is about: "Bash" for "Bash(git log:*)".
func Name(rule string) string {
	name, _, _ := strings.Cut(rule, "(")
	return strings.TrimSpace(name)
}

// Known reports whether a rule names a built-in tool, or an MCP tool
// (mcp__server or mcp__server__tool), which claude accepts whatever its name.
func Known(rule string) bool {
	name := Name(rule)
	return strings.HasPrefix(name, "mcp__") || slices.Contains(Tools, name)
}

// CheckRule refuses a rule claude could not mean: empty, without a tool
// name, starting with "-", with unbalanced parentheses or with text after
// its closing one. Rules are passed as arguments of claude's variadic
// --allowedTools and --disallowedTools, so a rule such as "--model" would
// be read as one of claude's options, not as a tool.
func CheckRule(rule string) error {
	r := strings.TrimSpace(rule)
	if r == "" {
		return fmt.Errorf("a tool rule is empty; name a tool, like Read or Bash(git log:*)")
	}
	if strings.ContainsAny(r[:1], `"'`) {
		return fmt.Errorf("tool rule %s holds its quote marks, which claude would take as part of the tool's name; in YAML, quote a whole item or the whole string: [Read, \"Bash(git log:*)\"] or \"Read, Bash(git log:*)\"", r)
	}
	parts, err := Split(r)
	if err != nil {
		return err
	}
	if len(parts) != 1 {
		return fmt.Errorf("tool rule %q holds %d rules; write one per list item", r, len(parts))
	}
	if strings.HasPrefix(r, "-") {
		return fmt.Errorf("tool rule %q starts with -, which claude would read as one of its own options, not as a tool; name a tool, like Read or Bash(git log:*)", r)
	}
	if Name(r) == "" {
		return fmt.Errorf("tool rule %q names no tool; write the tool before the parentheses, like Bash(git log:*)", r)
	}
	if open := strings.IndexByte(r, '('); open >= 0 && !strings.HasSuffix(r, ")") {
		return fmt.Errorf("tool rule %q has text after its closing parenthesis", r)
	}
	return nil
}

// Effective settles the permission settings of one step. The run has a
// mode (--permission-mode, or the config's) or skips permissions
// (--dangerously-skip-permissions); the state may name a mode of its own.
// The state's mode, when set, replaces the run's for the step, skipping
// included: a state that says plan runs in plan mode in any run. It
// returns the mode to pass and whether to pass
// --dangerously-skip-permissions instead. Tool rules are not settled
// here: a state's rules are passed as they are, and claude applies
// disallowed tools in every mode, bypass included.
func Effective(runMode string, runSkips bool, stateMode string) (mode string, skip bool) {
	if stateMode != "" {
		return stateMode, false
	}
	return runMode, runSkips
}

// Escalates reports whether a state's mode would give a step more than
// the run allows: bypassPermissions in a run that neither skips
// permissions nor runs in that mode. A workflow must not grant itself
// what the person who started the run did not.
func Escalates(runMode string, runSkips bool, stateMode string) bool {
	return stateMode == Bypass && !runSkips && runMode != Bypass
}

// Summary is tool limits in one short line, for people to read:
// "allow Read, Grep; deny Write; mode plan". It is "" for no limits.
func Summary(allowed, disallowed []string, mode string) string {
	var parts []string
	if len(allowed) > 0 {
		parts = append(parts, "allow "+strings.Join(allowed, ", "))
	}
	if len(disallowed) > 0 {
		parts = append(parts, "deny "+strings.Join(disallowed, ", "))
	}
	if mode != "" {
		parts = append(parts, "mode "+mode)
	}
	return strings.Join(parts, "; ")
}
