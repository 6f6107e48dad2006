package scripted

// The stream-json lines a scripted step writes are package claude/wire's,
// the same the fake claude writes, shaped like the real CLI's
// (claude-code.md, the captures in testdata/claude).

// initTools is the tool list of the init line.
var initTools = []string{"Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch", "WebSearch"}
