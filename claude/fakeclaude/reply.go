package fakeclaude

import (
	"fmt"
	"math"
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

// notLoggedIn is how an authentication failure reads without an API key: the
// CLI has no login to send, so it does not call the API, nor retry.
var notLoggedIn = apiError{kind: "authentication_failed", text: "Not logged in · Please run /login"}

// keyRetries is how often the CLI retries a 401 for an API key, each retry
// announced by an api_retry line, before it gives up (about 3 minutes).
const keyRetries = 10

// apiErrors are the kinds a reply's error field may name.
var apiErrors = map[string]apiError{
	"rate_limit": {"rate_limit", 429, "rate_limit_error",
		"API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit", true},
	"overloaded": {"overloaded", 529, "overloaded_error",
		"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.", true},
	"server_error": {"server_error", 500, "api_error",
		"API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment.", true},
	"rate_limit_rejected": {"rate_limit", 429, "rate_limit_error",
		"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.", false},
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
		if r.Error == "authentication_failed" && t.keySource() == "none" {
			e, text = notLoggedIn, notLoggedIn.text
			if r.Text != "" {
				text = r.Text
			}
		}
		for _, tool := range r.Tools {
			lines = append(lines, t.toolUse(tool, true)...)
		}
		switch {
		case e.kind == "authentication_failed" && e.status == 401:
			lines = append(lines, t.keyRetries(e)...)
		case e.retry:
			lines = append(lines, t.apiRetry(e))
		}
		lines = append(lines, t.synthetic(text, e))
		return outcome{lines: lines, subtype: "success", isError: true, text: &text, api: &e,
			stopReason: "stop_sequence", terminal: "api_error", turns: 1, used: tokens{cost: cost}}

	case r.ExecutionError != "":
		for _, tool := range r.Tools {
			lines = append(lines, t.toolUse(tool, true)...)
		}
		used := turnTokens(1)
		used.cost = cost
		return outcome{lines: lines, subtype: "error_during_execution", isError: true,
			errors: []string{r.ExecutionError}, stopReason: "end_turn", turns: 1, used: used}

	case r.MaxTurns || o.maxTurns != 0 && len(r.Tools) >= turnLimit(o.maxTurns):
		n := turnLimit(o.maxTurns)
		shown := strconv.FormatFloat(o.maxTurns, 'f', -1, 64)
		if o.maxTurns == 0 {
			n = max(len(r.Tools), 1)
			shown = strconv.Itoa(n)
		}
		for _, tool := range r.Tools[:min(n, len(r.Tools))] {
			lines = append(lines, t.toolUse(tool, true)...)
		}
		used := turnTokens(n)
		used.cost = cost
		return outcome{lines: lines, subtype: "error_max_turns", isError: true,
			errors:     []string{"Reached maximum number of turns (" + shown + ")"},
			stopReason: "tool_use", terminal: "max_turns", turns: n + 1, used: used}

	case r.MaxBudget:
		return t.overBudget(lines, 1, cost, cost)

	case o.maxBudget > 0:
		if n, spent, over := budgetStop(cost, len(r.Tools)+1, o.maxBudget); over {
			return t.overBudget(lines, n, spent, o.maxBudget)
		}
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

// turnLimit is how many turns that call tools a call may take under
// --max-turns m (not 0) before the real CLI stops it with error_max_turns,
// the model still wanting another turn: m for a whole m, the whole part of
// a fractional one, and at least one (--max-turns -1 and 0.5 stop after
// the first).
func turnLimit(m float64) int {
	return max(1, int(math.Floor(m)))
}

// budgetStop is where --max-budget-usd ends a call of requests API requests
// costing cost in all, as the real CLI checks it: against this call's own
// spend (from $0, whatever the session cost before), after each request. The
// fake spreads the cost evenly over the requests: one per tool call and one
// for the final answer. It returns the request after which the call stops
// and what the call had spent then, or over false when it never goes over.
func budgetStop(cost float64, requests int, limit float64) (n int, spent float64, over bool) {
	for n = 1; n <= requests; n++ {
		spent = math.Round(cost*float64(n)/float64(requests)*1e9) / 1e9
		if spent > limit {
			return n, spent, true
		}
	}
	return 0, 0, false
}

// overBudget is the outcome of a call stopped by its budget after its n-th
// API request, having spent spent: the tool calls of the requests before
// it, then what the n-th request answered (a tool call, left without its
// result, or the final text), and an error_max_budget_usd result naming
// limit (the cap, else the spend).
func (t *turn) overBudget(lines []any, n int, spent, limit float64) outcome {
	r := t.reply
	if t.opts.maxBudget > 0 {
		limit = t.opts.maxBudget
	}
	done := min(n-1, len(r.Tools))
	for _, tool := range r.Tools[:done] {
		lines = append(lines, t.toolUse(tool, true)...)
	}
	stop := "tool_use"
	if done < len(r.Tools) {
		lines = append(lines, t.toolUse(r.Tools[done], false)...)
	} else if len(r.Say) == 0 && r.Text != "" {
		lines, stop = append(lines, t.say(r.Text)...), "end_turn"
	}
	used := turnTokens(n)
	used.cost = spent
	return outcome{lines: lines, subtype: "error_max_budget_usd", isError: true,
		errors:     []string{"Reached maximum budget ($" + strconv.FormatFloat(limit, 'f', -1, 64) + ")"},
		stopReason: stop, terminal: "budget_exhausted", turns: n, used: used}
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
	for _, sub := range r.System {
		t.out.line(t.systemLine(sub))
	}
	for _, f := range t.fellBack {
		for _, l := range t.fallbackLines(f[0], f[1]) {
			t.out.line(l)
		}
		t.call.FellBack = append(t.call.FellBack, f[1])
	}
	out := t.plan()
	// What the call has paid grows as its API requests end: one with each
	// tool call, the last with the answer (with the last line, when there is
	// no answer). A signal from here on leaves it in the session.
	paid, answer := requests(out), lastAnswer(out.lines)
	for i, l := range out.lines {
		if p, ok := l.(pause); ok {
			if sig := t.sleep(time.Duration(p)); sig != nil {
				return t.interrupted(sig)
			}
			continue
		}
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
		if out.api.status == 0 {
			res.APIErrorStatus = wire.Null()
		}
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
