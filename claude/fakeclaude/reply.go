package fakeclaude

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"raymond/claude/wire"
)

// apiError describes one kind of failed API call, worded as in the fixtures.
type apiError struct {
	kind   string // the "error" field of the synthetic message
	status int    // HTTP status
	typ    string // api_error_type
	text   string // default result text
	retry  bool   // whether the CLI reports an api_retry first
}

// apiErrors are the kinds a reply's error field may name.
var apiErrors = map[string]apiError{
	"rate_limit": {"rate_limit", 429, "rate_limit_error",
		"API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit", true},
	"overloaded": {"overloaded", 529, "overloaded_error",
		"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.", true},
	"server_error": {"server_error", 500, "api_error",
		"API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment.", true},
	"authentication_failed": {"authentication_failed", 401, "authentication_error",
		"Invalid API key · Fix external API key", true},
	"billing_error": {"billing_error", 400, "invalid_request_error", "Credit balance is too low", false},
}

// usageLimit is how a usage-limit failure is reported besides its text.
var usageLimit = apiError{kind: "rate_limit", status: 429, typ: "rate_limit_error"}

// outcome is what a reply streams and how its result line reads.
type outcome struct {
	lines      []any
	subtype    string
	isError    bool
	text       *string
	errors     []string
	api        *apiError
	stopReason string
	terminal   string
	turns      int
	used       tokens
}

// plan decides the lines and the result of the reply, honouring --max-turns and
// --max-budget-usd.
func (t *turn) plan() outcome {
	r, o := t.reply, t.opts
	var lines []any
	for _, s := range r.Say {
		lines = append(lines, t.say(s)...)
	}
	cost := r.cost()
	switch {
	case r.Error != "" || r.UsageLimit != "":
		e, text := usageLimit, r.UsageLimit
		if r.Error != "" {
			e, text = apiErrors[r.Error], apiErrors[r.Error].text
			if r.Text != "" {
				text = r.Text
			}
		}
		for _, tool := range r.Tools {
			lines = append(lines, t.toolUse(tool, true)...)
		}
		if e.retry {
			lines = append(lines, t.apiRetry(e))
		}
		lines = append(lines, t.synthetic(text, e))
		return outcome{lines: lines, subtype: "success", isError: true, text: &text, api: &e,
			stopReason: "stop_sequence", terminal: "api_error", turns: 1, used: tokens{cost: cost}}

	case r.MaxTurns || o.maxTurns > 0 && len(r.Tools) >= o.maxTurns:
		n := o.maxTurns
		if n == 0 {
			n = max(len(r.Tools), 1)
		}
		for _, tool := range r.Tools[:min(n, len(r.Tools))] {
			lines = append(lines, t.toolUse(tool, true)...)
		}
		used := turnTokens(n)
		used.cost = cost
		return outcome{lines: lines, subtype: "error_max_turns", isError: true,
			errors:     []string{fmt.Sprintf("Reached maximum number of turns (%d)", n)},
			stopReason: "tool_use", terminal: "max_turns", turns: n + 1, used: used}

	case r.MaxBudget || o.maxBudget > 0 && cost > o.maxBudget:
		limit := o.maxBudget
		if limit == 0 {
			limit = cost
		}
		stop := "tool_use"
		if len(r.Tools) > 0 {
			lines = append(lines, t.toolUse(r.Tools[0], false)...)
		} else if len(r.Say) == 0 && r.Text != "" {
			lines, stop = append(lines, t.say(r.Text)...), "end_turn"
		}
		used := turnTokens(1)
		used.cost = cost
		return outcome{lines: lines, subtype: "error_max_budget_usd", isError: true,
			errors:     []string{"Reached maximum budget ($" + strconv.FormatFloat(limit, 'f', -1, 64) + ")"},
			stopReason: stop, terminal: "budget_exhausted", turns: 1, used: used}
	}
	for _, tool := range r.Tools {
		lines = append(lines, t.toolUse(tool, true)...)
	}
	if len(r.Say) == 0 && r.Text != "" {
		lines = append(lines, t.say(r.Text)...)
	}
	turns := len(r.Tools) + 1
	if r.Turns > 0 {
		turns = r.Turns
	}
	used := turnTokens(turns)
	used.cost = cost
	text := r.Text
	return outcome{lines: lines, subtype: "success", text: &text,
		stopReason: "end_turn", terminal: "completed", turns: turns, used: used}
}

// play streams the reply and returns the exit status.
func (t *turn) play() int {
	r := t.reply
	if len(r.Lines) > 0 {
		return t.playLines()
	}
	t.emitInit()
	if sig := t.waitFor(); sig != nil {
		return t.interrupted(sig)
	}
	out := t.plan()
	// What the call has paid grows as its API requests end: one with each
	// tool call, the last with the answer (with the last line, when there is
	// no answer). A signal from here on leaves it in the session.
	paid, answer := requests(out), lastAnswer(out.lines)
	for i, l := range out.lines {
		if c, ok := l.(command); ok {
			if sig := t.runCommand(string(c)); sig != nil {
				return t.interrupted(sig)
			}
			continue
		}
		switch {
		case isToolUse(l):
			t.paid = paid()
		case i == answer:
			t.paid = out.used.cost
		}
		t.out.line(l)
	}
	t.paid = out.used.cost
	if r.Stderr != "" {
		fmt.Fprintln(t.inv.stderr, strings.TrimSuffix(r.Stderr, "\n"))
	}
	if r.Hang {
		return t.interrupted(<-t.inv.signals)
	}
	if sig := t.sleep(t.delay); sig != nil {
		return t.interrupted(sig)
	}
	if r.Crash {
		if err := t.saveCost(); err != nil {
			fmt.Fprintf(t.inv.stderr, "fake claude: %v\n", err)
		}
		return exitStatus(r.Exit, 1)
	}
	if r.RateLimitReset != 0 {
		t.out.line(t.rateLimitEvent())
	}
	if sig := t.pending(); sig != nil {
		return t.interrupted(sig)
	}
	text := ""
	if out.text != nil && !out.isError {
		text = *out.text
	}
	total, err := t.record(text, out.used)
	if err == nil {
		err = t.saveCost()
	}
	if err != nil {
		fmt.Fprintf(t.inv.stderr, "fake claude: %v\n", err)
		return 1
	}
	// A branch's copied history does not hold its parent's running cost.
	total.cost = max(total.cost, t.costBase+out.used.cost)
	t.call.Cost = out.used.cost
	t.out.result(t.resultLine(out, total))
	status := 0
	if out.isError {
		status = 1
	}
	return exitStatus(r.Exit, status)
}

// requests is the running cost of out's API requests: each call of the func it
// returns ends one more request (one for each tool call, then the answer) and gives
// what the requests so far have cost, the reply's cost spread evenly over them.
func requests(out outcome) func() float64 {
	n := 1
	for _, l := range out.lines {
		if isToolUse(l) {
			n++
		}
	}
	done := 0
	return func() float64 {
		done = min(done+1, n)
		return out.used.cost * float64(done) / float64(n)
	}
}

// lastAnswer is the index among lines of the last assistant line that calls no
// tool, -1 for none.
func lastAnswer(lines []any) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if _, ok := lines[i].(wire.AssistantLine); ok && !isToolUse(lines[i]) {
			return i
		}
	}
	return -1
}

// isToolUse reports whether l is an assistant line calling a tool: the end of an
// API request that asked for one.
func isToolUse(l any) bool {
	a, ok := l.(wire.AssistantLine)
	return ok && len(a.Message.Content) > 0 && a.Message.Content[0].Type == "tool_use"
}

// playLines writes the reply's raw lines, the delay falling before the last one
// (the reply's cost is paid before the delay).
func (t *turn) playLines() int {
	r := t.reply
	if sig := t.waitFor(); sig != nil {
		return t.interrupted(sig)
	}
	if r.Stderr != "" {
		fmt.Fprintln(t.inv.stderr, strings.TrimSuffix(r.Stderr, "\n"))
	}
	for i, l := range r.Lines {
		if i == len(r.Lines)-1 {
			t.paid = r.cost()
			if sig := t.sleep(t.delay); sig != nil {
				return t.interrupted(sig)
			}
		}
		t.out.raw(l)
		t.inited = true
	}
	used := tokens{cost: r.cost()}
	t.paid = used.cost
	_, err := t.record(r.Text, used)
	if err == nil {
		err = t.saveCost()
	}
	if err != nil {
		fmt.Fprintf(t.inv.stderr, "fake claude: %v\n", err)
		return 1
	}
	t.call.Cost = used.cost
	return exitStatus(r.Exit, 0)
}

// resultLine builds the result line from the outcome and the session's cumulative
// usage after this call.
func (t *turn) resultLine(out outcome, total tokens) *wire.ResultLine {
	elapsed := time.Since(t.started).Milliseconds()
	res := &wire.ResultLine{
		Type: "result", Subtype: out.subtype, IsError: out.isError,
		DurationMS: elapsed, DurationAPIMS: elapsed, NumTurns: out.turns,
		StopReason: ptr(out.stopReason), SessionID: t.sessionID,
		Usage: newUsage(out.used), PermissionDenials: []any{},
		TerminalReason: out.terminal, FastModeState: "off", UUID: wire.NewUUID(),
		Errors: out.errors, QueuedTurnCount: ptr(0),
	}
	if out.subtype == "success" {
		res.Result = out.text
		res.APIErrorStatus = wire.Null()
	}
	if out.api != nil {
		res.DurationAPIMS = 0
		res.APIErrorStatus = wire.Status(out.api.status)
		res.APIErrorType = out.api.typ
	}
	if cumulativeCost(t.version) {
		res.TotalCostUSD = total.cost
		res.ModelUsage = modelUsageMap(t.model, total)
		since := modelUsageMap(t.model, out.used)
		res.SinceLast = &since
	} else {
		res.TotalCostUSD = out.used.cost
		res.ModelUsage = modelUsageMap(t.model, out.used)
	}
	return res
}

// exitStatus is the scripted exit status if any, else def.
func exitStatus(scripted *int, def int) int {
	if scripted != nil {
		return *scripted
	}
	return def
}

// interrupted ends the turn on a signal: SIGTERM exits 143; SIGINT after the init
// line writes the "[Request interrupted by user]" line and exits 0, before it exits
// 130. Neither writes a result line; both leave what the call paid in the session.
func (t *turn) interrupted(sig os.Signal) int {
	if err := t.saveCost(); err != nil {
		fmt.Fprintf(t.inv.stderr, "fake claude: %v\n", err)
	}
	if sig != syscall.SIGINT {
		return 143
	}
	if !t.inited {
		return 130
	}
	t.out.line(t.interruptLine())
	return 0
}

// sleep waits d, or less if a signal comes, which it returns.
func (t *turn) sleep(d time.Duration) os.Signal {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case sig := <-t.inv.signals:
		return sig
	}
}

// runCommand runs a tool's shell command to its end, or until a signal
// comes, which it returns (leaving the command running, as a killed CLI
// would). The command's own output goes nowhere, so that what it leaves in
// the background holds none of the fake's pipes.
func (t *turn) runCommand(c string) os.Signal {
	cmd := exec.Command("sh", "-c", c)
	cmd.Dir, cmd.Env = t.inv.cwd, t.inv.env
	// In a group of its own, so that a signal to the fake's group ends the
	// fake alone (and it always reports that signal) while the command goes
	// on, as what a killed CLI's tool started does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(t.inv.stderr, "fake claude: run %q: %v\n", c, err)
		return nil
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case sig := <-t.inv.signals:
		return sig
	}
}

// pending returns a signal that has arrived, without waiting.
func (t *turn) pending() os.Signal {
	select {
	case sig := <-t.inv.signals:
		return sig
	default:
		return nil
	}
}

// waitForPoll is how often waitFor looks for its file.
const waitForPoll = 5 * time.Millisecond

// waitFor waits until the reply's wait_for file exists, or a signal comes, which it
// returns.
func (t *turn) waitFor() os.Signal {
	if t.reply.WaitFor == "" {
		return nil
	}
	path := os.Expand(t.reply.WaitFor, func(k string) string { v, _ := t.inv.getenv(k); return v })
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.dir, path)
	}
	tick := time.NewTicker(waitForPoll)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-tick.C:
		case sig := <-t.inv.signals:
			return sig
		}
	}
}
