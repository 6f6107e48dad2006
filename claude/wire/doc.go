// Package wire holds the lines of Claude Code's `--output-format stream-json`
// as a writer makes them: one struct a kind of line, its fields in the order
// the real CLI writes them, so that what raymond's stand-ins for claude write
// reads like the captures in testdata/claude at the repository root.
//
// The fake claude CLI (claude/fakeclaude) and the scripted runner (scripted)
// both write these. Reading is package claude's business: its decoder keeps
// its own lenient union of every line's fields. Package claude's tests start
// the fake, so wire cannot live in package claude itself without an import
// cycle; it imports nothing of raymond's.
//
// The shapes follow Claude Code 2.1.330: the fields a consumer may read are
// all there, with the same names and types; the many informational ones are
// trimmed.
package wire
