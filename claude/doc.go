// Package claude runs one step of a workflow as a `claude -p` process and
// tells the caller how it ended.
//
// [Args] builds the command line (`-p --output-format stream-json --verbose
// [options]`); the prompt goes on stdin, never on the command line that
// every local user can read. [Run] starts the process in its own process
// group with the prompt on a stdin pipe, reads its stream of JSON lines as they arrive, reports them as
// [Event] values (what the model says, which tools it uses, retries, rate
// limits, <print> payloads) and returns a [Result] once the process has
// exited. Every way the process can end is a Result with an [Outcome]; Run
// returns an error only when the process could not be started at all.
//
// The outcome is decided by the stream's final `result` line, never by the
// exit code alone, following the table "Deciding the outcome of a step" in
// the Claude Code notes (shared/spec/claude-code.md). On top of that table
// this package separates two kinds of API errors that retrying cannot fix:
// [AuthError] (not logged in, invalid API key) and [BillingError] (credit
// balance too low). A refusal by the root guard is an [InvocationError] with
// Result.RootRefused set, so the CLI can explain it; this package never sets
// IS_SANDBOX to get around it.
//
// [StepCost] turns the cost fields of a Result into the cost of one step,
// taking care not to double-count the cumulative totals that newer CLIs
// report for resumed and branched sessions. [IsUsageLimit] and
// [ParseResetTime] recognise the usage-limit messages of every CLI version
// seen so far and work out when the limit resets.
//
// [LatestSession] finds the user's newest Claude Code session for a working
// directory in Claude Code's own store ([ConfigDir], [ProjectDir]), for
// `--continue-session` (protocol.md 18).
package claude
