// Package scripted runs steps without a model: each state's replies come, in
// order, from a replies file. It backs `raymond run --replies FILE` (the
// offline demo, workflow tests, benchmarks) and implements step.Runner, so
// the orchestrator cannot tell a scripted step from a real one: the Result
// has the same fields and the handler sees the same stream-json lines and
// events a `claude -p` process would produce.
//
// # Replies file
//
// A replies file is YAML with one key, replies, mapping a state's file name
// (the .md may be omitted) to the list of its replies. A key AGENT/STATE,
// such as main_worker2/WORKER.md, holds replies for that agent only (see
// Order). A key whose value is a mapping, not a list, names a workflow (its
// folder's or file's name, or the end of its path) and holds the keys of
// that workflow's own replies, which only its steps take, before the keys
// at the top ([Runner.InWorkflow] says which workflow a run's steps are in):
//
//	replies:
//	  START.md:
//	    - "Planning. <call return=\"REPORT.md\">PLAN.md</call>"
//	  WORKER:
//	    - text: "Checked {{item}}. <result>{{item}}: ok</result>"
//	      times: 3
//	      cost: 0.0123
//	      delay: 1s
//	      say: ["Looking at {{item}}…"]
//	      tools: [{name: Bash, input: {command: "ls {{item}}"}, result: "a.go"}]
//	  FLAKY.md:
//	    - outcome: crash
//	    - outcome: usage_limit
//	      reset: 30m
//	    - "<goto>DONE</goto>"
//
// A plain string is a successful reply with that final text. A mapping
// takes these keys:
//
//	text     the final answer (outcome success only)
//	outcome  success (default), crash, api_error, usage_limit, timeout or
//	         max_turns
//	times    how many steps the reply answers (default 1; 0 disables it)
//	repeat   true: the reply answers any number of steps; no reply may
//	         follow it
//	cost     the step's own cost in USD (default 0; not for crash or timeout,
//	         which end without a result line and so without a known cost)
//	delay    a Go duration ("1s"; a bare number means seconds) waited after
//	         the streamed messages and before the answer; canceling the
//	         step's context ends the wait
//	wait_for a file to wait for after the init line, before the say blocks:
//	         the step goes on once the file exists. The name is rendered
//	         like the texts (release/{{item}}); a relative one starts from
//	         the folder of the replies file (for replies a workflow test
//	         embeds, from the working directory); canceling the step's
//	         context ends the wait. A test of a running run holds a step
//	         with it until it has looked, then creates the file, where a
//	         delay would make it guess how long that takes
//	reset    usage_limit only: how long after the step the limit resets
//	         (default 1h)
//	say      text blocks streamed before the answer (a list, or one string)
//	tools    tool calls streamed before the answer, each a mapping of name
//	         (required), input (a mapping), result (the tool's output) and
//	         error (true for a failed call)
//	writes   files the step writes as it starts, before its init line: a
//	         mapping of paths to contents, both rendered; a relative path
//	         starts from the step's working directory, and missing folders
//	         are made. It stands in for what a model writes with its tools,
//	         so that a script state after it reads a verdict or a plan as
//	         it would after a real step. A file that cannot be written ends
//	         the step as an invocation error
//	template false: the texts are used as written, placeholders included
//	         (default true; see Templates)
//
// # Outcomes
//
// Each outcome ends the step as the claude package would classify a real
// process ending so, with the same lines on the way: success writes the
// answer as an assistant text block and a success result line; api_error a
// synthetic assistant message and an error result (HTTP 500, an APIError);
// usage_limit a rate_limit_event, a synthetic message and an error result
// whose text reads "You've hit your session limit · resets 3:30pm" (a
// UsageLimit whose ResetAt is the reset); max_turns an error_max_turns
// result (Exhausted); crash and timeout no result line at all (Crash, exit
// status 1; Timeout, killed by SIGTERM). A successful reply whose cost is
// above the step's own budget (step.Request.MaxBudgetUSD) ends as the CLI
// ends such a step: error_max_budget_usd, Exhausted.
//
// Results carry the reply's cost as the step's own (CallCostUSD, and
// TotalCostUSD too), one turn, token counts made up from the lengths of the
// prompt and of the text written (about four bytes a token), the model of
// the step or "scripted", and the version "scripted".
//
// # Templates
//
// Reply texts, say blocks, tool inputs and tool results are rendered with
// the step's template values (input, run_id, agent_id, state, fork
// variables) as prompts are, so one list of replies serves a fan-out: every
// worker that consumes "Checked {{item}}" answers about its own item. A
// reply with template: false is used byte for byte as written: a recorded
// answer that itself contains {{...}} (a model writing about templates)
// comes back unchanged.
//
// # Order
//
// A Runner is one run's: a file read once per run gives each run queues of
// its own. Each state has one queue of replies shared by all agents: steps take them
// in the order they ask, whichever agent they belong to. An agent that has
// its own queue at a state (a key AGENT/STATE) takes from it first, and from
// the shared queue once its own is used up; so a recorded fan-out replays
// each worker's own answers in whatever order the workers run. A step
// canceled during its wait_for or delay puts its reply back at the front of the queue
// it came from, so the step run again after an interruption answers the
// same. When no reply is left for a step it ends as an invocation error
// naming the state, which fails its agent; [Runner.Exhausted] lists those
// steps and [Runner.Unused] the replies no step consumed.
//
// # Script states
//
// A replies file may answer a script state (POLL.sh, or POLL when that
// means the script): its replies are played like a prompt's, but the step
// costs 0, has no session, and fails where claude's would be retried or
// wait (crash, timeout, api_error, usage_limit); the script does not run.
// [Runner.Scripts] wraps the runner so that a script step without a reply
// left runs the real script instead, and is not counted as exhausted.
package scripted
