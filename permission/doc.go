// Package permission knows what Claude Code accepts for its permission
// settings: the modes of --permission-mode, and the tool rules of
// --allowedTools and --disallowedTools ("Read", "Bash(git log:*)",
// "mcp__github__get_issue"). It splits a rule list the way claude does,
// checks rules, and settles how a state's own settings combine with a run's.
package permission
