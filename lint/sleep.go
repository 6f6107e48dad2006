package lint

import (
	"fmt"
	"regexp"
)

// sleepCommand finds a shell `sleep N` in a prompt: a number of seconds,
// or of minutes, hours or days with their suffix.
var sleepCommand = regexp.MustCompile(`\bsleep\s+[0-9]+(?:\.[0-9]+)?[smhd]?\b`)

// sleeps warns of a prompt that asks the model to run `sleep N`. Claude
// Code's Bash tool refuses a standalone sleep ("Blocked: standalone sleep
// 30. To wait for a condition, use Monitor…"), whatever the permissions
// allow, so the wait does not happen: a state that loops until something
// is there polls as fast as steps run, and every look is a paid step. A
// script state waits for free. The first such command of the prompt is
// reported, once.
func (c *checker) sleeps(n *node) {
	loc := sleepCommand.FindStringIndex(n.st.Body)
	if loc == nil {
		return
	}
	cmd := n.st.Body[loc[0]:loc[1]]
	c.report("prompt-sleep", Warning, c.inBody(n, loc[0]),
		fmt.Sprintf("the prompt asks the model to run `%s`, which Claude Code's Bash tool refuses (\"Blocked: standalone %s\"): "+
			"the wait does not happen, and each look becomes a paid step", cmd, cmd),
		"wait in a script state instead (WAIT.sh: look, sleep and look again in bash, for free, then print the next tag); "+
			"see \"Fork and join through files\" in writing-workflows.md")
}
