package fakeclaude

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// options is what one command line asks for.
type options struct {
	print          bool
	verbose        bool
	version        bool
	outputFormat   string
	inputFormat    string
	resume         string
	resumeGiven    bool
	forkSession    bool
	resumeAt       string
	sessionID      string
	model          string
	effort         string
	permissionMode string
	skipPerms      bool
	partial        bool
	appendPrompt   string
	maxTurns       float64 // 0: no limit, as the real CLI takes --max-turns 0
	maxBudget      float64
	allowedTools   []string
	disallowed     []string
	addDirs        []string
	fallbackModels string
	mcpConfigs     []string
	strictMCP      bool
	tools          []string
	toolsGiven     bool
	positionals    []string
}

// prompt is the prompt argument: the last positional, if any.
func (o *options) prompt() string {
	if len(o.positionals) == 0 {
		return ""
	}
	return o.positionals[len(o.positionals)-1]
}

// optKind says how an option takes its arguments, as commander.js (the real CLI's
// parser) does.
type optKind int

const (
	flagOpt     optKind = iota // no argument
	valueOpt                   // exactly one argument, taken even if it starts with "-"
	optionalOpt                // one argument unless the next word looks like an option
	variadicOpt                // every following word up to the next option or "--"
)

// optSpec describes one option. usage is how commander names it in error messages.
type optSpec struct {
	names []string
	kind  optKind
	usage string
	set   func(o *options, v string) error
}

var (
	outputFormats   = []string{"text", "json", "stream-json"}
	inputFormats    = []string{"text", "stream-json"}
	permissionModes = []string{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual", "plan"}
	effortLevels    = []string{"low", "medium", "high", "xhigh", "max"}
)

// specs lists every option the fake understands; anything else is an unknown option.
var specs = []optSpec{
	{names: []string{"-p", "--print"}, set: func(o *options, _ string) error { o.print = true; return nil }},
	{names: []string{"--verbose"}, set: func(o *options, _ string) error { o.verbose = true; return nil }},
	{names: []string{"-v", "--version"}, set: func(o *options, _ string) error { o.version = true; return nil }},
	{names: []string{"--fork-session"}, set: func(o *options, _ string) error { o.forkSession = true; return nil }},
	{names: []string{"--dangerously-skip-permissions"}, set: func(o *options, _ string) error { o.skipPerms = true; return nil }},
	{names: []string{"--include-partial-messages"}, set: func(o *options, _ string) error { o.partial = true; return nil }},
	{names: []string{"--output-format"}, kind: valueOpt, usage: "--output-format <format>",
		set: func(o *options, v string) error { o.outputFormat = v; return choice(v, outputFormats) }},
	{names: []string{"--input-format"}, kind: valueOpt, usage: "--input-format <format>",
		set: func(o *options, v string) error { o.inputFormat = v; return choice(v, inputFormats) }},
	{names: []string{"-r", "--resume"}, kind: optionalOpt, usage: "-r, --resume [value]",
		set: func(o *options, v string) error { o.resume, o.resumeGiven = v, true; return nil }},
	{names: []string{"--resume-session-at"}, kind: valueOpt, usage: "--resume-session-at <message id>",
		set: func(o *options, v string) error { o.resumeAt = v; return nil }},
	{names: []string{"--session-id"}, kind: valueOpt, usage: "--session-id <uuid>",
		set: func(o *options, v string) error { o.sessionID = v; return nil }},
	{names: []string{"--model"}, kind: valueOpt, usage: "--model <model>",
		set: func(o *options, v string) error { o.model = v; return nil }},
	{names: []string{"--fallback-model"}, kind: valueOpt, usage: "--fallback-model <model>",
		set: func(o *options, v string) error { o.fallbackModels = v; return nil }},
	{names: []string{"--strict-mcp-config"}, set: func(o *options, _ string) error { o.strictMCP = true; return nil }},
	{names: []string{"--mcp-config"}, kind: variadicOpt, usage: "--mcp-config <configs...>",
		set: func(o *options, v string) error { o.mcpConfigs = append(o.mcpConfigs, v); return nil }},
	{names: []string{"--effort"}, kind: valueOpt, usage: "--effort <level>",
		set: func(o *options, v string) error { o.effort = v; return nil }},
	{names: []string{"--permission-mode"}, kind: valueOpt, usage: "--permission-mode <mode>",
		set: func(o *options, v string) error { o.permissionMode = v; return choice(v, permissionModes) }},
	{names: []string{"--append-system-prompt"}, kind: valueOpt, usage: "--append-system-prompt <prompt>",
		set: func(o *options, v string) error { o.appendPrompt = v; return nil }},
	{names: []string{"--max-turns"}, kind: valueOpt, usage: "--max-turns <turns>", set: setMaxTurns},
	{names: []string{"--max-budget-usd"}, kind: valueOpt, usage: "--max-budget-usd <amount>", set: setMaxBudget},
	{names: []string{"--allowedTools", "--allowed-tools"}, kind: variadicOpt, usage: "--allowedTools, --allowed-tools <tools...>",
		set: func(o *options, v string) error { o.allowedTools = append(o.allowedTools, v); return nil }},
	{names: []string{"--disallowedTools", "--disallowed-tools"}, kind: variadicOpt, usage: "--disallowedTools, --disallowed-tools <tools...>",
		set: func(o *options, v string) error { o.disallowed = append(o.disallowed, v); return nil }},
	{names: []string{"--add-dir"}, kind: variadicOpt, usage: "--add-dir <directories...>",
		set: func(o *options, v string) error { o.addDirs = append(o.addDirs, v); return nil }},
	{names: []string{"--tools"}, kind: variadicOpt, usage: "--tools <tools...>",
		set: func(o *options, v string) error { o.tools, o.toolsGiven = append(o.tools, v), true; return nil }},
}

// badValue is returned by an option's setter when commander would reject its argument;
// the parser turns it into commander's message.
type badValue struct {
	allowed []string
	reason  string // what the option's own parser said ("must be a number")
}

func (b badValue) Error() string {
	if b.reason != "" {
		return "is invalid. " + b.reason
	}
	if len(b.allowed) == 0 {
		return "is invalid."
	}
	return "is invalid. Allowed choices are " + strings.Join(b.allowed, ", ") + "."
}

func choice(v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return badValue{allowed: allowed}
}

// setMaxTurns takes any number, as the real CLI 2.1.330 does: 0 is no
// limit, and a negative or fractional limit stops after the first turn
// that calls a tool (see turnLimit); a value that is no number is refused
// with the parser's "must be a number".
func setMaxTurns(o *options, v string) error {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(n) {
		return badValue{reason: "must be a number"}
	}
	o.maxTurns = n
	return nil
}

func setMaxBudget(o *options, v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x <= 0 {
		return badValue{}
	}
	o.maxBudget = x
	return nil
}

// lookup finds the spec for an option name such as "--model" or "-p".
func lookup(name string) *optSpec {
	for i := range specs {
		for _, n := range specs[i].names {
			if n == name {
				return &specs[i]
			}
		}
	}
	return nil
}

// looksLikeOption reports whether commander would read word as an option rather than
// as an argument of a variadic or optional-value option.
func looksLikeOption(word string) bool {
	return len(word) > 1 && word[0] == '-'
}

// parseArgs reads a command line the way the real CLI's commander.js parser does,
// including its traps: variadic options swallow every following word that does not
// start with "-", so a prompt after them needs "--". A returned error is a
// cliError holding the exact stderr line.
func parseArgs(args []string) (*options, error) {
	o := &options{outputFormat: "text", inputFormat: "text"}
	var variadic *optSpec // the last variadic option seen, still swallowing words
	for i := 0; i < len(args); i++ {
		word := args[i]
		if word == "--" {
			o.positionals = append(o.positionals, args[i+1:]...)
			break
		}
		if !looksLikeOption(word) {
			if variadic != nil {
				if err := variadic.set(o, word); err != nil {
					return nil, err
				}
				continue
			}
			o.positionals = append(o.positionals, word)
			continue
		}
		variadic = nil
		name, value, hasValue := strings.Cut(word, "=")
		if !strings.HasPrefix(word, "--") {
			// Short options: "-p", or "-rVALUE" for an option that takes a value.
			name, value, hasValue = word[:2], word[2:], len(word) > 2
		}
		spec := lookup(name)
		if spec == nil {
			return nil, cliError(fmt.Sprintf("error: unknown option '%s'", name))
		}
		switch spec.kind {
		case flagOpt:
			if hasValue {
				if !strings.HasPrefix(word, "--") {
					return nil, cliError(fmt.Sprintf("error: unknown option '%s'", word))
				}
				return nil, cliError(fmt.Sprintf("error: option '%s' does not take an argument", name))
			}
		case valueOpt:
			if !hasValue {
				if i+1 >= len(args) {
					return nil, cliError(fmt.Sprintf("error: option '%s' argument missing", spec.usage))
				}
				i++
				value = args[i]
			}
		case optionalOpt:
			if !hasValue && i+1 < len(args) && !looksLikeOption(args[i+1]) && args[i+1] != "--" {
				i++
				value = args[i]
			}
		case variadicOpt:
			variadic = spec
			if !hasValue {
				if i+1 >= len(args) || looksLikeOption(args[i+1]) || args[i+1] == "--" {
					return nil, cliError(fmt.Sprintf("error: option '%s' argument missing", spec.usage))
				}
				i++
				value = args[i]
			}
		}
		if err := spec.set(o, value); err != nil {
			return nil, cliError(fmt.Sprintf("error: option '%s' argument '%s' %v", spec.usage, value, err))
		}
	}
	return o, nil
}

// cliError is a refusal worded exactly as the real CLI words it; it is printed to
// stderr as is, where other errors get the "fake claude: " prefix.
type cliError string

func (e cliError) Error() string { return string(e) }
