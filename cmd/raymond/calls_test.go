package main

import (
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/claude/fakeclaude"
)

// cmdCalls prints one line per call the fake claude received, so a script can
// compare the sessions raymond used with what the protocol says:
//
//	calls
//	cmp stdout want.calls
//
// Each line holds the session, model and effort flags of the call's argv, the
// session the call produced, its working directory and the first line of its
// prompt; with -perm, its --permission-mode or --dangerously-skip-permissions
// too. The rules of --allowedTools and --disallowedTools, when given, follow,
// comma-separated. Session ids are renamed S1, S2, … in order of first appearance and
// the script's work folder is written $WORK:
//
//	--resume S1 --fork-session --session-id S2 -> S2 in $WORK: Callee asked …
//
// With -argv it prints each call's whole command line instead, one line a
// call, session ids renamed the same way, so a script can check what any
// local user could read of it in /proc/PID/cmdline.
func cmdCalls(ts *testscript.TestScript, neg bool, args []string) {
	perm := len(args) == 1 && args[0] == "-perm"
	argv := len(args) == 1 && args[0] == "-argv"
	if neg || len(args) != 0 && !perm && !argv {
		ts.Fatalf("usage: calls [-perm|-argv]")
	}
	calls, err := fakeclaude.ReadCalls(ts.Getenv("FAKE_CLAUDE_DIR"))
	ts.Check(err)
	work := ts.Getenv("WORK")
	names := map[string]string{}
	sid := func(id string) string {
		if id == "" {
			return "-"
		}
		if _, ok := names[id]; !ok {
			names[id] = fmt.Sprintf("S%d", len(names)+1)
		}
		return names[id]
	}
	rel := func(s string) string {
		if work == "" {
			return s
		}
		return strings.ReplaceAll(s, work, "$WORK")
	}
	var b strings.Builder
	for _, c := range calls {
		if argv {
			words := make([]string, len(c.Argv))
			for i, a := range c.Argv {
				if i > 0 && (c.Argv[i-1] == "--resume" || c.Argv[i-1] == "--session-id") {
					a = sid(a)
				}
				words[i] = rel(a)
			}
			fmt.Fprintln(&b, strings.Join(words, " "))
			continue
		}
		var flags []string
		for i := 0; i < len(c.Argv) && c.Argv[i] != "--"; i++ {
			switch a := c.Argv[i]; a {
			case "--resume", "--session-id":
				if i+1 < len(c.Argv) {
					i++
					flags = append(flags, a, sid(c.Argv[i]))
				}
			case "--model", "--effort", "--fallback-model":
				if i+1 < len(c.Argv) {
					i++
					flags = append(flags, a, c.Argv[i])
				}
			case "--fork-session":
				flags = append(flags, a)
			case "--resume-session-at":
				// A uuid of the stream: what matters is that it is there.
				if i+1 < len(c.Argv) {
					i++
					flags = append(flags, a, "MSG")
				}
			case "--dangerously-skip-permissions":
				if perm {
					flags = append(flags, a)
				}
			case "--permission-mode":
				if perm && i+1 < len(c.Argv) {
					i++
					flags = append(flags, a, c.Argv[i])
				}
			}
		}
		// Tool rules show when given, one word per flag, as the fake
		// split them: a prompt they swallowed would show among them.
		if len(c.AllowedTools) > 0 {
			flags = append(flags, "--allowedTools", strings.Join(c.AllowedTools, ","))
		}
		if len(c.DisallowedTools) > 0 {
			flags = append(flags, "--disallowedTools", strings.Join(c.DisallowedTools, ","))
		}
		prompt, _, _ := strings.Cut(c.Prompt, "\n")
		fmt.Fprintf(&b, "%s -> %s in %s: %s\n", strings.Join(flags, " "), sid(c.SessionID), rel(c.Cwd), rel(prompt))
	}
	_, _ = ts.Stdout().Write([]byte(b.String()))
}
