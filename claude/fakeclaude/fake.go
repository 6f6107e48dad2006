package fakeclaude

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"raymond/claude/wire"
)

// Main runs the fake with the process's arguments, standard streams and environment,
// and returns its exit status.
func Main() int {
	return Run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr)
}

// Run runs the fake once with args (without the program name), env (as os.Environ
// gives it), stdin (nil for /dev/null) and the given writers, in the process's working
// directory, and returns the exit status. While it runs it catches SIGINT and SIGTERM,
// which end a scripted hang.
func Run(args []string, env []string, stdin *os.File, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "fake claude: %v\n", err)
		return 1
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	return run(&invocation{args: args, env: env, cwd: cwd, stdin: stdin,
		stdout: stdout, stderr: stderr, signals: signals})
}

// invocation is everything one run of the fake gets from outside.
type invocation struct {
	args    []string
	env     []string
	cwd     string
	stdin   *os.File
	stdout  io.Writer
	stderr  io.Writer
	signals <-chan os.Signal
}

// getenv looks key up in the invocation's environment; the last entry wins.
func (inv *invocation) getenv(key string) (string, bool) {
	for i := len(inv.env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(inv.env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Defaults of the simulated CLI.
const (
	defaultVersion = "2.1.330"
	defaultModel   = "claude-opus-5-5"
)

// modelAliases maps the CLI's model aliases to the ids the fake reports;
// "default" is the CLI's own default.
var modelAliases = map[string]string{
	"default": defaultModel,
	"opus":    "claude-opus-5-5",
	"sonnet":  "claude-sonnet-5-5",
	"haiku":   "claude-haiku-5-5",
}

// turn is one run of the fake in progress.
type turn struct {
	inv     *invocation
	dir     string // FAKE_CLAUDE_DIR
	config  string // the configuration folder, which holds the session store
	version string
	opts    *options
	prompt  string
	call    Call
	started time.Time

	sessionID string
	lastUUID  string  // of the session's line this call wrote last
	saidUUID  string  // of the last assistant line of the stream, "" for none
	costBase  float64 // the session lineage's cost before this call
	paid      float64 // what this call's finished API requests cost
	reply     *Reply
	delay     time.Duration
	model     string
	// sessionModel is the model of the last answer of the session this call
	// resumes or branches, "" for a new session or none recorded.
	sessionModel string
	// mcp are the servers --mcp-config named.
	mcp []string
	// fellBack are the fallbacks taken before the reply played: the
	// models left and taken, in order.
	fellBack [][2]string
	out      *emitter
	inited   bool // the init line is out: a SIGINT now is "mid-turn"
}

func run(inv *invocation) int {
	if len(inv.args) > 0 && inv.args[0] == makeSessionFlag {
		return makeSession(inv)
	}
	dir, _ := inv.getenv("FAKE_CLAUDE_DIR")
	if dir == "" {
		fmt.Fprintln(inv.stderr, "fake claude: FAKE_CLAUDE_DIR is not set")
		return 1
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(inv.cwd, dir)
	}
	_, claudeCode := inv.getenv("CLAUDECODE")
	t := &turn{inv: inv, dir: dir, started: time.Now(), version: defaultVersion}
	if v, ok := inv.getenv("FAKE_CLAUDE_VERSION"); ok && v != "" {
		t.version = v
	}
	traceParent, _ := inv.getenv("TRACEPARENT")
	t.call = Call{Argv: slices.Clone(inv.args), Cwd: inv.cwd, Pid: os.Getpid(), Reply: -1,
		EnvClaudeCode: claudeCode, TraceParent: traceParent, Started: t.started}
	if t.call.Argv == nil {
		t.call.Argv = []string{}
	}

	code, err := t.run()
	if err != nil {
		var refusal cliError
		if errors.As(err, &refusal) {
			fmt.Fprintln(inv.stderr, refusal)
		} else {
			fmt.Fprintf(inv.stderr, "fake claude: %v\n", err)
		}
		code = 1
	}
	t.call.Exit, t.call.Paid = code, t.paid
	t.call.Ended = time.Now()
	if err := appendCall(dir, &t.call); err != nil {
		fmt.Fprintf(inv.stderr, "fake claude: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// run checks the command line, reads the prompt, settles the session and plays the
// scripted reply. An error means exit status 1 with the error on stderr.
func (t *turn) run() (int, error) {
	opts, err := parseArgs(t.inv.args)
	if err != nil {
		return 1, err
	}
	t.opts = opts
	t.call.Model, t.call.PermissionMode = opts.model, opts.permissionMode
	t.call.SkipPermissions = opts.skipPerms
	t.call.AllowedTools, t.call.DisallowedTools = splitTools(opts.allowedTools), splitTools(opts.disallowed)
	t.call.Resumed, t.call.Forked = opts.resume, opts.resumeGiven && opts.forkSession
	if opts.version {
		fmt.Fprintf(t.inv.stdout, "%s (Claude Code)\n", t.version)
		return 0, nil
	}
	if err := t.check(); err != nil {
		return 1, err
	}
	t.call.Effort = opts.effort // check drops an unknown one
	t.call.FallbackModel, t.call.StrictMCP = opts.fallbackModels, opts.strictMCP
	if t.mcp, err = t.mcpServers(); err != nil {
		return 1, err
	}
	t.call.MCPServers = t.mcp
	if err := t.readPrompt(); err != nil {
		return 1, err
	}
	scriptPath, ok := t.inv.getenv("FAKE_CLAUDE_SCRIPT")
	if !ok || scriptPath == "" {
		scriptPath = filepath.Join(t.dir, "script.yaml")
	} else if !filepath.IsAbs(scriptPath) {
		scriptPath = filepath.Join(t.inv.cwd, scriptPath)
	}
	sc, err := loadScript(scriptPath)
	if err != nil {
		return 1, err
	}
	if t.config, err = t.inv.configDir(); err != nil {
		return 1, err
	}
	t.out = &emitter{w: t.inv.stdout, format: opts.outputFormat}
	index, err := t.begin(sc)
	if errors.Is(err, errNoSession) {
		return t.sessionNotFound(), nil
	}
	if errors.Is(err, errNoMessage) {
		return t.messageNotFound(), nil
	}
	if err != nil {
		return 1, err
	}
	t.model = t.modelName()
	if index < 0 {
		t.emitInit()
		return 1, fmt.Errorf("no scripted reply left for prompt: %s", head(t.prompt, 80))
	}
	t.call.SessionID, t.call.Reply = t.sessionID, index
	t.delay = sc.delay[index]
	code := t.play()
	if t.out.err != nil {
		return 1, fmt.Errorf("write output: %w", t.out.err)
	}
	return code, nil
}

// check refuses what the real CLI refuses before doing any work.
func (t *turn) check() error {
	o := t.opts
	if !o.print {
		return errors.New("only print mode (-p) is supported")
	}
	if (o.skipPerms || o.permissionMode == "bypassPermissions") && t.isRoot() {
		if v, _ := t.inv.getenv("IS_SANDBOX"); v != "1" {
			return cliError("--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons")
		}
	}
	if o.outputFormat == "stream-json" && !o.verbose {
		return cliError("Error: When using --print, --output-format=stream-json requires --verbose")
	}
	if o.inputFormat != "text" {
		return errors.New("--input-format " + o.inputFormat + " is not supported")
	}
	if o.effort != "" && !slices.Contains(effortLevels, o.effort) {
		fmt.Fprintf(t.inv.stderr, "Warning: unknown effort level '%s' ignored; valid levels are %s\n",
			o.effort, strings.Join(effortLevels, ", "))
		o.effort = ""
	}
	if o.resumeGiven && o.resume == "" {
		return cliError("Error: --resume requires a valid session ID when used with --print")
	}
	if o.sessionID != "" {
		if !uuidPattern.MatchString(o.sessionID) {
			return cliError("Error: Invalid session ID. Must be a valid UUID.")
		}
		if o.resumeGiven && !o.forkSession {
			return cliError("Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.")
		}
	}
	return nil
}

// isRoot is FAKE_CLAUDE_ROOT when set to "1" or "0", else whether the euid is 0.
func (t *turn) isRoot() bool {
	switch v, _ := t.inv.getenv("FAKE_CLAUDE_ROOT"); v {
	case "1":
		return true
	case "0":
		return false
	}
	return os.Geteuid() == 0
}

// readPrompt builds the prompt from the prompt argument and stdin.
func (t *turn) readPrompt() error {
	data, silent, err := readStdin(t.inv.stdin)
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if silent {
		fmt.Fprintln(t.inv.stderr, stdinWarning)
	}
	t.call.Stdin = string(data)
	prompt, ok := composePrompt(t.opts.prompt(), data)
	if !ok {
		return cliError("Error: Input must be provided either through stdin or as a prompt argument when using --print")
	}
	t.prompt, t.call.Prompt = prompt, prompt
	return nil
}

// sessionNotFound answers a --resume of an unknown id exactly as the real CLI does:
// a message on stderr, one error_during_execution result line and no init line.
func (t *turn) sessionNotFound() int {
	msg := "No conversation found with session ID: " + t.opts.resume
	fmt.Fprintln(t.inv.stderr, msg)
	t.out.result(&wire.ResultLine{
		Type: "result", Subtype: "error_during_execution", IsError: true,
		DurationMS: time.Since(t.started).Milliseconds(), SessionID: t.opts.resume,
		Usage: newUsage(tokens{}), ModelUsage: map[string]wire.ModelUsage{}, PermissionDenials: []any{},
		UUID: wire.NewUUID(), Errors: []string{msg},
	})
	return 1
}

// messageNotFound answers a --resume-session-at that names no message of the
// session as the real CLI 2.1.330 does: its message, exit status 1.
func (t *turn) messageNotFound() int {
	msg := "No message found with message.uuid of: " + t.opts.resumeAt
	fmt.Fprintln(t.inv.stderr, msg)
	t.out.result(&wire.ResultLine{
		Type: "result", Subtype: "error_during_execution", IsError: true,
		DurationMS: time.Since(t.started).Milliseconds(), SessionID: t.opts.resume,
		Usage: newUsage(tokens{}), ModelUsage: map[string]wire.ModelUsage{}, PermissionDenials: []any{},
		UUID: wire.NewUUID(), Errors: []string{msg},
	})
	return 1
}

// modelName is the model the call runs on and its output names: the reply's,
// else --model (aliases resolved), else, as the real CLI does for --resume and
// --fork-session, the model the session answered with last, else the default.
func (t *turn) modelName() string {
	switch {
	case t.reply.Model != "":
		return t.reply.Model
	case len(t.fellBack) > 0:
		return t.fellBack[len(t.fellBack)-1][1]
	case t.opts.model == "" && t.sessionModel != "":
		return t.sessionModel
	case t.opts.model == "":
		return defaultModel
	case modelAliases[t.opts.model] != "":
		return modelAliases[t.opts.model]
	}
	return t.opts.model
}

// requestedModel is the model the call asks for before any reply is
// picked: --model (aliases resolved), else the session's last, else the
// default.
func (t *turn) requestedModel() string {
	switch {
	case t.opts.model == "" && t.sessionModel != "":
		return t.sessionModel
	case t.opts.model == "":
		return defaultModel
	case modelAliases[t.opts.model] != "":
		return modelAliases[t.opts.model]
	}
	return t.opts.model
}

// fallbackModels are the models of --fallback-model, aliases resolved.
func (t *turn) fallbackModels() []string {
	var out []string
	for m := range strings.SplitSeq(t.opts.fallbackModels, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if id := modelAliases[m]; id != "" {
			m = id
		}
		out = append(out, m)
	}
	return out
}

// cumulativeCost reports whether this CLI version reports total_cost_usd for the whole
// session lineage (2.1.277 and later) rather than for this call only.
func cumulativeCost(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	want := []int{2, 1, 277}
	for i, w := range want {
		if i >= len(parts) {
			return false
		}
		n, err := strconv.Atoi(strings.TrimFunc(parts[i], func(r rune) bool { return r < '0' || r > '9' }))
		if err != nil {
			return true // unparsable: assume a current CLI
		}
		if n != w {
			return n > w
		}
	}
	return true
}

// head is the first n characters of s.
func head(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
