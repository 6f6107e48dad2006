// Package parsing reads transition tags out of a step's final answer, as
// docs/protocol (../shared/spec/protocol.md §3 and §5.6) defines them.
//
// It knows the grammar (names, attributes, bodies), the exactly-one rule,
// multi-fork fan-out, attribute rules per tag and the path safety of targets.
// It knows nothing about files or policies: the prompts package checks a
// decoded transition against a state's frontmatter and the scope's files.
package parsing
