// Package script runs the steps of script states (protocol.md §11): a
// state file ending in .sh runs as `bash PATH` in the agent's working
// directory, in a process group of its own, with the run's facts in its
// environment (RAYMOND_RUN_ID, RAYMOND_INPUT, …) and an idle timeout that
// any output restarts.
//
// [Runner] implements step.Runner. It does not parse the script's output:
// a script that exits with status 0 succeeds with its whole stdout as the
// step's text, which the orchestrator reads for the transition as it reads
// a model's answer. A non-zero exit, a death by a signal, an idle timeout
// or more than 64 MiB on stdout fail the step (never a transient outcome: a
// script may have done half its work, so it is not retried by itself).
//
// Both streams go to the handler as they arrive (step.Handler.OnOutput,
// for the transcript's .stdout.txt and .stderr.txt), and the <print>
// payloads in either are shown live.
package script
