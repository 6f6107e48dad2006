package fakeclaude

import (
	"flag"
	"fmt"
	"strings"

	"raymond/claude/wire"
)

// makeSessionFlag is the fake's own subcommand, not an option of the real CLI: it
// leaves a session in the store as a user's earlier interactive claude would have.
const makeSessionFlag = "--make-session"

// Defaults of --make-session.
const (
	madePrompt = "Let's look at this project together."
	madeReply  = "Sure. I've read the README; what shall we work on?"
)

// makeSession serves `claude --make-session [ID] [--prompt TEXT] [--reply TEXT]
// [--cost USD]`: it writes a session of one exchange (the prompt, the reply, the
// cost and one turn's tokens) into the store for the working directory, with ID or a
// fresh UUID, and prints its id. It needs no FAKE_CLAUDE_DIR and logs no call. An id
// already in use is an error.
func makeSession(inv *invocation) int {
	fs := flag.NewFlagSet("claude "+makeSessionFlag, flag.ContinueOnError)
	fs.SetOutput(inv.stderr)
	prompt := fs.String("prompt", madePrompt, "the user's message")
	reply := fs.String("reply", madeReply, "the assistant's answer")
	cost := fs.Float64("cost", defaultCost, "the session's cost so far, in USD")
	args := inv.args[1:]
	id := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() == 1 && id == "":
		id = fs.Arg(0)
	case fs.NArg() > 0:
		fmt.Fprintf(inv.stderr, "usage: claude %s [ID] [--prompt TEXT] [--reply TEXT] [--cost USD]\n", makeSessionFlag)
		return 2
	}
	if id == "" {
		id = wire.NewUUID()
	}
	config, err := inv.configDir()
	if err != nil {
		fmt.Fprintf(inv.stderr, "fake claude: make session: %v\n", err)
		return 1
	}
	used := turnTokens(1)
	s := &Session{ID: id, Cwd: inv.cwd, CostUSD: *cost, InputTokens: used.in, OutputTokens: used.out,
		History: []Message{{Role: "user", Text: *prompt}, {Role: "assistant", Text: *reply}}}
	if err := WriteSession(config, s); err != nil {
		fmt.Fprintf(inv.stderr, "fake claude: make session: %v\n", err)
		return 1
	}
	fmt.Fprintln(inv.stdout, id)
	return 0
}
