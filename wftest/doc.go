// Package wftest runs workflow tests: cases that drive a workflow through
// the real orchestrator with scripted replies instead of a model, and check
// where it went. It backs `raymond test` and the recording of a real run as
// a test case (`raymond transcript RUN_ID --to-test FILE`). The guide for
// workflow authors is docs/testing-workflows.md.
//
// # Test files
//
// A test file is YAML, usually named <something>.test.yaml beside the
// workflow it tests:
//
//	workflow: .        # the workflow folder or entry state file, relative to
//	                   # this file; default: the folder this file is in
//	cwd: ../..         # the folder the agents work in (a fork's cd= is
//	                   # relative to it), relative to this file; default: the
//	                   # folder raymond test runs in
//	cases:
//	  - name: fixes on the second try   # required, unique in the file
//	    input: "the failing test"       # --input
//	    budget: 1.00                    # --budget in USD
//	    max_parallel: 1                 # default 1: replies are taken in a
//	                                    # fixed order
//	    files:                          # a fresh working folder with these
//	      seed.txt: "text"              # files, instead of the file's cwd
//	    task_files:                     # written into main's task folder
//	      plan.md: "- [ ] one"          # before the first step
//	    interrupt_after: 3              # kill -9 the run as it starts step
//	                                    # 4, then resume it (interrupt.go)
//	    replies:                        # the replies: of a replies file
//	      START.md: ["Found it. <goto>FIX.md</goto>"]
//	      FIX:
//	        - {text: "Tried. <goto>FIX.md</goto>", cost: 0.01}
//	        - "Fixed. <goto>SUMMARY.md</goto>"
//	      main_worker2/WORKER.md: [...]  # one agent's own replies
//	    expect:                         # every key optional
//	      status: completed             # the default
//	      result: "exact text"          # both sides trimmed
//	      result_matches: "^Fixed .*"   # a Go regexp, on the trimmed result
//	      path:                         # every agent of the run, in order;
//	        main: [START, FIX, goto FIX, SUMMARY]  # STATE, or TAG STATE when
//	                                    # the tag that led there must match
//	      steps: 4                      # reminders and retries count
//	      reminders: 0                  # reminders the run sent
//	      retries: 0                    # retries the run made
//	      cost: 0.03                    # USD, within 1e-6
//	      unvisited: [GIVE_UP]          # states no agent entered
//	      files:                        # what files hold after the run
//	        out.txt: "exact content"    # relative to the working folder, or
//	        "{{task_folder}}/plan.md":  # under main's task folder, or
//	                                    # {{task_folder:main_worker1}}/
//	          {contains: [x], not_contains: [y], matches: RE}
//	        gone.txt: {absent: true}
//	      prints: [item 1, item 2]      # substrings of the <print>s, in order
//
// The replies value is parsed by package scripted (see its documentation
// for replies, outcomes, AGENT/STATE keys and template: false). [Parse]
// reports every problem of a file as FILE:LINE: unknown keys, values of the
// wrong type, duplicate case names, and states in replies or unvisited that
// the workflow does not have. The file is read into yaml.v3 nodes, which
// give every key and item its line.
//
// # Running
//
// [Run] loads the files [Discover] found and runs their cases in parallel
// (bounded by Options.Parallel, default GOMAXPROCS). Each case runs in a
// project folder of its own, removed afterwards, through
// orchestrator.Create and orchestrator.Driver with a fresh scripted runner
// and an InstantClock, so retries and usage-limit waits take no time; the
// transcript it writes is read back with analysis.Load, and the checks use
// that, so a test sees exactly what `raymond transcript` would show. A case
// fails when an expectation does not hold, when a step found no reply
// (scripted.Runner.Exhausted), when a reply was left over
// (scripted.Runner.Unused), or when it runs longer than Options.Timeout.
// Failure messages are kept short whatever the run did (limit.go): lists
// are cut after ten items, agents that failed alike are named together.
// A case's id is its file's stem and its name; [IDPrefixes] tells apart
// files of the same name run together.
//
// [WriteText], [WriteJSON] and [WriteJUnit] write a [Report]. [Record] and
// [WriteRecorded] turn an analysed run into a case; replay.go decides how
// each step is replayed, and refuses a run that a replay, which runs in one
// process and never pauses or resumes, could not reproduce.
package wftest
