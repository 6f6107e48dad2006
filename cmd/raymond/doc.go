// Command raymond orchestrates Claude Code agents through workflows written as
// folders of markdown prompts. See README.md and docs/ for how to use it.
//
// The command line is specified in the project's spec/cli.md: run, start,
// resume, recover, list, status and version, their flags, the optional
// .raymond/config.toml, and the exit codes (0 completed, 1 failed, 2 bad usage,
// 3 paused and resumable). stdout carries only the product of a command (a
// run's result, an id, a listing, a JSON summary); progress and errors go to
// stderr.
package main
