// Package lint checks a workflow without running it (issue 12): entry
// points, frontmatter and YAML, targets, the shape of calls, forks and
// asks, the state graph (unreachable states, dead ends, calls that never
// return, loops without an exit), placeholders nothing binds, and the
// workflows reached through cross-workflow tags, which are linted too.
//
// Check returns a Report of Findings. Each has a stable check id (the
// original Raymond's where one matches; docs/lint.md lists them all), a
// Severity, a place (file, line, column) and a one-line fix. SARIF turns a
// report into a SARIF 2.1.0 log for code-scanning tools.
//
// Errors are what cannot work as written: raymond run and raymond start
// refuse a workflow with one. Warnings are probably mistakes; infos are
// worth knowing. The checks lean towards silence where a run decides: a
// script whose tags are built when it runs, or a target rendered from a
// placeholder, makes the graph checks of its workflow hold their tongue
// rather than guess.
package lint
