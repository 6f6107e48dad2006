// Package fakeclaude is a fake Claude Code CLI for tests: it behaves like the real
// `claude -p` in everything raymond relies on (the project's claude-code.md spec, and
// the real outputs captured in the repository's testdata/claude), but its replies come from a script
// the test writes. No test needs a real model.
//
// # Running it
//
// Main runs the fake on the process's arguments, standard streams and environment;
// testscript registers it as the `claude` command, and a test binary re-executed as a
// helper process calls it. Run does the same in-process. The command
// ./cmd/fake-claude builds it as an executable.
//
// The environment configures it:
//
//	FAKE_CLAUDE_DIR      required: holds the reply state (replies.json), the call
//	                     log (calls.jsonl) and their lock
//	CLAUDE_CONFIG_DIR    where the session store is, as for the real CLI; unset, it
//	HOME                 is $HOME/.claude. Tests set one of them to a temporary
//	                     folder, so that no test writes into the real ~/.claude
//	FAKE_CLAUDE_SCRIPT   the script file; default $FAKE_CLAUDE_DIR/script.yaml; a
//	                     missing file means no replies
//	FAKE_CLAUDE_VERSION  the CLI version to act as (default 2.1.330); before 2.1.277,
//	                     total_cost_usd is this call's cost only and the result line
//	                     has no model_usage_since_last_result
//	FAKE_CLAUDE_ROOT     "1" or "0": whether to act as if run by root (default: the
//	                     real euid), which refuses --dangerously-skip-permissions and
//	                     --permission-mode bypassPermissions unless IS_SANDBOX=1
//	ANTHROPIC_API_KEY    non-empty: the init line's apiKeySource is ANTHROPIC_API_KEY
//	                     (else none), which changes how authentication_failed reads
//	FAKE_CLAUDE_RETRY_DELAY  a Go duration waited after each of the ten api_retry
//	                     lines of a refused API key (default none; the real CLI
//	                     takes about 3 minutes)
//
// Only print mode is supported, with --output-format stream-json (which needs
// --verbose, as in the real CLI), json (the result object alone) or text (the result
// text alone). The command line is parsed as the real CLI's parser does, traps
// included: --allowedTools, --disallowedTools, --add-dir and --tools swallow every
// following word, so a prompt after them must follow "--". An unknown option prints
// `error: unknown option '--x'` and exits 1. --mcp-config (variadic too) takes
// JSON strings and files, checked as the real CLI 2.1.330 checks them, with its
// words ("Error: Invalid MCP configuration:" and "MCP config is not a valid
// JSON", "MCP config file not found: PATH" or "mcpServers: Invalid input:
// expected record, received undefined" on the next line; exit 1, nothing on
// stdout); the init line lists the servers, and the call log their names and
// --strict-mcp-config.
//
// Each call is logged (see [Call]) with its argv and what the parser made of it: the
// prompt, model, permission mode, --dangerously-skip-permissions, and the rules of
// --allowedTools and --disallowedTools split as the real CLI splits them (at commas
// and spaces outside parentheses). A prompt swallowed by a variadic option shows up
// among the rules, so a test can see it was. The init line's tools leave out the
// disallowed ones, as the real CLI's do.
//
// # Script format
//
// A script is YAML (JSON works too) with one key, replies. Each call of the fake takes
// the first reply that still has calls left and whose match, a Go regular expression,
// matches the prompt (no match: any prompt). A reply serves one call, or times calls,
// or with repeat: true any number. What has been used is kept in FAKE_CLAUDE_DIR, so
// the queue carries across processes; rewriting the script file starts it afresh.
// When no reply is left the fake writes the init line, then
// `fake claude: no scripted reply left for prompt: …` on stderr, and exits 1 with no
// result line, which looks like a crash.
//
//	replies:
//	  - match: "^Write the plan"       # the first prompt that matches
//	    say: ["Let me look around."]   # assistant messages before the result
//	    tools:                         # tool_use + tool_result line pairs
//	      - name: Bash
//	        input: {command: "ls"}
//	        result: "README.md"
//	    text: "Done. <goto>NEXT.md</goto>"  # the result text
//	    cost: 0.02                     # this call's cost (default 0.0053)
//	  - error: overloaded              # a transient API failure, once
//	  - text: "<result>ok</result>"
//	    times: 2                       # serves two calls
//	    delay: 50ms                    # before the result line
//	  - usage_limit: "You've hit your session limit · resets 3pm (America/Chicago)"
//	    rate_limit_reset: 1763700000
//	  - hang: true                     # until SIGTERM (exit 143) or SIGINT (exit 0)
//	  - crash: true                    # no result line
//	    exit: 2
//	    stderr: "boom"
//	  - text: "fallback"
//	    repeat: true                   # never runs out
//
// The fields of a reply:
//
//	match, times, repeat  which calls it serves, as above
//	match_model           a Go regular expression the model the call runs on must
//	                      match (its id, aliases resolved: claude-opus-5-5), so a
//	                      script answers per model. An error: overloaded reply
//	                      for the main model with --fallback-model M (or a list
//	                      a,b) given makes the fake do what the real CLI does
//	                      after three 529s in a row: two api_retry lines (529),
//	                      a system model_fallback line, and the reply that
//	                      matches M answers the call. A rejected 429 or a usage
//	                      limit is not a reason to fall back
//	text                  the final result text; streamed as an assistant message
//	                      too, unless say is given
//	pad                   spaces appended to text until it has this many bytes (a
//	                      huge answer; give say too, or the message repeats it)
//	say                   assistant text messages streamed before the result
//	tools                 list of {name, input (map), result (string), error (bool),
//	                      run (string)}; run is a command the fake runs with sh -c
//	                      between the tool_use and the tool_result lines, silent
//	                      as a real Bash tool is, in a process group of its own
//	                      (its output is discarded; a signal ends the fake and
//	                      leaves the command running). A Bash call whose command
//	                      is a standalone `sleep N` is refused as the real CLI
//	                      refuses it, whatever --allowedTools says: its result
//	                      is "Blocked: standalone sleep N. …", an error, and run
//	                      does not run
//	cost                  this call's cost in USD (default 0.0053; 0 for error and
//	                      usage_limit replies)
//	delay                 a Go duration waited before the result line; the lines
//	                      before it, and the call's cost-state, are already out
//	model                 the model named in the output (default: --model, with the
//	                      aliases opus, sonnet, haiku and default resolved; else,
//	                      for --resume and --fork-session, the model the session
//	                      answered with last, as the real CLI keeps it; else
//	                      claude-opus-5-5)
//	turns                 num_turns of the result (default: tools + 1)
//	error                 an API failure: rate_limit (per minute), rate_limit_rejected,
//	                      overloaded, server_error, authentication_failed or
//	                      billing_error. The fake streams an api_retry line (not for
//	                      billing_error, nor rate_limit_rejected: a 429 whose
//	                      anthropic-ratelimit-unified-status is rejected, which the
//	                      real CLI does not retry and gives no reset time) and a
//	                      synthetic assistant message, then a result with subtype
//	                      success, is_error true, api_error_status and the error's
//	                      text (text overrides it); exit 1. authentication_failed
//	                      with ANTHROPIC_API_KEY set streams ten api_retry lines
//	                      (status 401) before "Invalid API key"; without a key it
//	                      is "Not logged in · Please run /login", no retry, and
//	                      api_error_status null
//	usage_limit           the same shape with this text as the result: a usage limit
//	rate_limit_reset      epoch seconds: a rate_limit_event line before the result,
//	                      with status rate_limit_status (default "rejected") and
//	                      rateLimitType five_hour
//	execution_error       an error_during_execution result whose errors list holds
//	                      this text, with no result field; exit 1
//	system                system lines streamed after the init line, by subtype:
//	                      informational, task_started, task_notification (the real
//	                      CLI writes them too; consumers must pass over them)
//	max_turns, max_budget an error_max_turns or error_max_budget_usd result, with
//	                      errors and no result field; exit 1. --max-turns N on the
//	                      command line causes the first too, when the reply has N or
//	                      more tools (as the real CLI 2.1.330: any number is taken,
//	                      0 is no limit, a negative or fractional N stops after the
//	                      first tool turn, and a value that is no number is refused
//	                      with "is invalid. must be a number"). --max-budget-usd X causes the second as the
//	                      real CLI does: the call's cost is spread evenly over its
//	                      API requests (one per tool, one for the answer) and the
//	                      call stops after the first request that takes its own
//	                      spend, counted from $0 also on a resumed session, over X;
//	                      it is charged what it spent up to there
//	crash                 stream the messages, then exit with exit (default 1) and no
//	                      result line
//	hang                  stream the messages, then block until a signal: SIGTERM
//	                      exits 143, SIGINT writes the "[Request interrupted by user]"
//	                      line and exits 0; no result line either way
//	stderr                text written to stderr before the result line
//	exit                  the exit status after the result line (default 0, or 1
//	                      when the result is an error)
//	lines                 raw stdout lines written verbatim instead of anything
//	                      generated (no init line either; the outcome fields do
//	                      not apply); delay falls before the last one; stderr and
//	                      exit apply; the session is still recorded with cost
//	wait_for              a file to wait for before replying (after the init line);
//	                      $VARS are expanded from the fake's environment and a
//	                      relative path is taken from FAKE_CLAUDE_DIR
//
// # Sessions and cost
//
// Sessions are stored where the real CLI keeps them: in the configuration folder
// ($CLAUDE_CONFIG_DIR, else $HOME/.claude), projects/<folder>/<id>.jsonl, the folder
// named as the CLI names it (sessionfile.Folder: every UTF-16 code unit of the cwd
// outside [A-Za-z0-9] a "-", a name over 200 characters cut and given a hash), one
// JSON line per message (type, sessionId, cwd, uuid, parentUuid, timestamp, message,
// and the call's costUSD and usage on an assistant line).
//
// As it exits, the fake appends a cost-state line,
// {"type":"cost-state","sessionId":…,"totalCostUSD":…}, the lineage's running cost, as
// the real CLI does: after its answer, and also when SIGTERM or SIGINT stops it before
// its result line (during a tool's run, a delay, a hang or a wait_for) or at a crash,
// counting what the API requests that had ended cost (one per tool call, then the
// answer, the reply's cost spread evenly over them); a SIGKILL leaves none. The
// session's running cost (total_cost_usd of a later resume or branch) goes on from the
// last one. A branch copies its parent's messages, not its cost-state lines. A turn
// that ended without an answer (killed, interrupted) stays in the session, and the
// next --resume (or branch) of it first answers it "No response requested.", as the
// real CLI does.
//
// As sessions are kept per folder, resuming from another directory fails as it does
// for real: `No conversation found with session ID: <id>` on stderr, one
// error_during_execution result line, exit 1. --resume ID appends to ID; --resume ID
// --fork-session makes a branch with a new id (or --session-id's) holding a copy of
// the history and the cost so far. A session's cost is cumulative over its lineage,
// and total_cost_usd reports it (for CLI 2.1.277 and later);
// model_usage_since_last_result reports this call alone. LoadSession reads a session
// back; WriteSession makes one.
//
// --resume ID --resume-session-at U (a hidden option of the real CLI 2.1.330) loads
// ID only up to and including its message U, as the real CLI does: with
// --fork-session the branch holds those turns and the new prompt, and ID is left as
// it was. U is the uuid of an assistant line of the stream, which the session's line
// of that answer carries too (the uuid of the answer's last assistant line). A U the
// session does not hold gets the real CLI's `No message found with message.uuid of:
// U` on stderr, one error_during_execution result line, exit 1.
//
// A new session file appears whole; later lines are appended under an flock on the
// file itself, so fakes on different sessions never wait for each other, and fakes
// resuming one session at once interleave their messages as the real CLI does.
//
// `claude --make-session [ID] [--prompt TEXT] [--reply TEXT] [--cost USD]` is the
// fake's own subcommand: it writes a session of one exchange into the store for the
// working directory, as the user's earlier interactive claude would have left it,
// and prints its id (ID, else a fresh UUID). It needs no FAKE_CLAUDE_DIR and logs no
// call. The defaults are a short exchange costing 0.0053.
//
// # Call log
//
// Every call, refused ones included, appends a Call to $FAKE_CLAUDE_DIR/calls.jsonl
// when it exits (its Cost with a result line, what it Paid with or without one);
// ReadCalls returns them. Updates of the reply state and the log
// happen under an flock in FAKE_CLAUDE_DIR, so many fakes may run at once.
package fakeclaude
