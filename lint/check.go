package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"raymond/internal/spelling"
	"raymond/parsing"
	"raymond/permission"
	"raymond/project"
	"raymond/workflow"
)

// checker holds what Check learns about the scopes it visits.
type checker struct {
	ss     *workflow.Scopes
	out    []Finding
	scopes map[string]*scopeInfo // by Dir
	order  []*scopeInfo
	links  []link
}

// scopeInfo is one scope, its states and the states runs enter it at.
type scopeInfo struct {
	s      *workflow.Scope
	starts []string
	// startVars are the fork variables fork-workflow tags give a start.
	startVars map[string][]string
	nodes     map[string]*node
	names     []string
	loaded    bool
}

// node is one state of a scope.
type node struct {
	name   string
	st     *workflow.State // nil when it could not be loaded
	file   string          // the file findings name
	raw    []byte          // the file's bytes, for places in its frontmatter
	edges  []edge
	result bool // may emit <result> or leave the scope for good
	// dynamic is set for a state whose transitions are not known: a script
	// that prints no tag as written, or a state that failed to load.
	dynamic bool
	// broken is set when a transition of the state names no state: it is
	// reported, and the graph checks do not blame the state for it again.
	broken bool
	// capped is set for a state with max_visits and no on_max_visits: an
	// agent that loops through it fails once past the cap.
	capped bool
	// capResult is the max_visits of a state whose on_max_visits is a
	// <result>: past it, the agent leaves with a result (0: none).
	capResult int
}

// edge is one transition a state may take within its scope.
type edge struct {
	tag, role string // role: target, return, next, timeout_next
	to        string // the state's file name
	input     bool   // carries an input
	vars      []string
	place     place
	// visits is the max_visits after which an on_max_visits edge is taken.
	visits int
}

// place is where something is written.
type place struct {
	file      string
	line, col int
}

// link is a cross-workflow tag that leads from one scope into another.
type link struct {
	tag      string
	from, to string // scope dirs
	state    string // the state of from it is written in
	target   string // the state of to it enters at
	place    place
}

// Check lints the workflow arg names (a folder, a state in it, a YAML or
// zip file, or a pinned URL, as raymond run takes them) and every workflow
// it reaches through cross-workflow tags. A workflow that cannot be found
// at all is an error; everything wrong inside one is a finding.
func Check(scopes *workflow.Scopes, arg string) (Report, error) {
	c, err := walk(scopes, arg)
	if err != nil {
		return Report{}, err
	}
	r := Report{Workflow: arg, Findings: sortFindings(c.out)}
	for _, si := range c.order {
		r.Scopes = append(r.Scopes, si.s.Dir())
	}
	return r, nil
}

// walk visits the workflow arg names and every workflow it reaches, and
// runs every check; the checker holds the graph and the findings.
func walk(scopes *workflow.Scopes, arg string) (*checker, error) {
	c := &checker{ss: scopes, scopes: make(map[string]*scopeInfo)}
	s, first, err := scopes.Start(arg)
	if err != nil {
		s, err = c.unstartable(arg, err)
		if err != nil {
			return nil, err
		}
		if s != nil {
			c.scope(s)
		}
	} else {
		c.enter(s, first)
		// Started from a state, the workflow's entry still starts other
		// runs: what it reaches is not unreachable.
		if entry, err := s.Entry(); err == nil && entry != first {
			c.enter(s, entry)
		}
	}
	for i := 0; i < len(c.order); i++ {
		c.load(c.order[i])
	}
	for _, si := range c.order {
		c.graph(si)
	}
	c.cycles()
	return c, nil
}

// unstartable turns the failure to start arg into findings when the
// workflow exists: no or two entry points, a YAML or zip file that cannot
// be read. It returns the scope to lint further when it opened, and err
// when arg names no workflow at all.
func (c *checker) unstartable(arg string, startErr error) (*workflow.Scope, error) {
	if strings.Contains(arg, "://") {
		return nil, startErr
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, startErr
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, startErr
	}
	ext := strings.ToLower(filepath.Ext(abs))
	if !fi.IsDir() && ext != ".yaml" && ext != ".yml" && ext != ".zip" {
		return nil, startErr
	}
	s, err := c.ss.Open(abs, "")
	if err != nil {
		f := placed(err, abs)
		f.Check, f.Severity = "workflow-parse-error", Error
		f.Fix = "fix the file at the place named, then lint again"
		if strings.Contains(f.Message, "is a workflow test") {
			f.Fix = "lint the workflow the test names (its workflow: key); raymond test runs the test"
		}
		c.add(f)
		return nil, nil
	}
	if _, err := s.Entry(); err != nil {
		var te *workflow.TargetError
		if errors.As(err, &te) && (te.Kind == workflow.OutsideScope || te.Kind == workflow.NotAState && !strings.Contains(te.Msg, "is a folder")) {
			// The entry state is there, but a link out of the workflow or
			// not a regular file (a FIFO): the state's own finding
			// (unreadable-state or -script) says so; "add a START.md"
			// would be wrong. A folder named START.md is no state, and
			// no-entry-point says so.
			return s, nil
		}
		f := Finding{Check: "no-entry-point", Severity: Error, File: abs, Message: stripPrefix(err.Error(), abs),
			Fix: "add a START.md (or 1_START.md) state, or give the state to start from"}
		if strings.Contains(err.Error(), "both") {
			f.Check, f.Fix = "ambiguous-entry-point", "remove or rename one of the two start states"
		}
		c.add(f)
		return s, nil
	}
	// The entry is fine, so something else refused the start (a manifest's
	// backend): say so as it is.
	c.add(Finding{Check: "workflow-parse-error", Severity: Error, File: abs, Message: startErr.Error(),
		Fix: "fix what the message names"})
	return s, nil
}

// scope returns the record of s, making it the first time.
func (c *checker) scope(s *workflow.Scope) *scopeInfo {
	if si, ok := c.scopes[s.Dir()]; ok {
		return si
	}
	si := &scopeInfo{s: s, nodes: make(map[string]*node)}
	c.scopes[s.Dir()] = si
	c.order = append(c.order, si)
	return si
}

// enter records that a run may enter s at the state first.
func (c *checker) enter(s *workflow.Scope, first string, vars ...string) {
	si := c.scope(s)
	if si.startVars == nil {
		si.startVars = make(map[string][]string)
	}
	si.startVars[first] = append(si.startVars[first], vars...)
	if !slices.Contains(si.starts, first) {
		si.starts = append(si.starts, first)
	}
}

func (c *checker) add(f Finding) { c.out = append(c.out, f) }

// load reads every state of si and checks each one on its own.
func (c *checker) load(si *scopeInfo) {
	if si.loaded {
		return
	}
	si.loaded = true
	names, err := si.s.States()
	if err != nil {
		f := placed(err, si.s.Dir())
		f.Check, f.Severity, f.Fix = "workflow-parse-error", Error, "fix the file at the place named, then lint again"
		c.add(f)
		return
	}
	c.manifest(si)
	// Every state is named before any is checked: a did-you-mean, or the
	// list of states a fix offers, is drawn from all of them, not from the
	// ones that sort before the state being checked.
	for _, name := range names {
		if strings.EqualFold(name, "README.md") {
			continue // a workflow's documentation, not a state a run reaches
		}
		si.names = append(si.names, name)
		n := &node{name: name, file: stateFile(si.s, name)}
		si.nodes[name] = n
		if si.s.Kind() != workflow.YAML {
			// Only a regular file is read: a FIFO named X.md would block
			// lint for ever (Load refuses it as no state, and says so).
			if fsys := si.s.FS(); fsys != nil {
				if fi, err := fs.Stat(fsys, name); err == nil && fi.Mode().IsRegular() {
					n.raw, _ = fs.ReadFile(fsys, name)
				}
			}
		} else {
			n.raw, _ = os.ReadFile(si.s.Dir())
		}
	}
	for _, name := range si.names {
		n := si.nodes[name]
		st, err := si.s.Load(name)
		if err != nil {
			n.dynamic = true
			// The finding's file names the workflow and the state already.
			msg := strings.TrimPrefix(err.Error(), "workflow "+si.s.Label()+": ")
			msg = strings.TrimPrefix(msg, name+": ")
			var te *workflow.TargetError
			var pe *fs.PathError
			unreadable := errors.As(err, &pe)
			switch {
			case errors.As(err, &te) && (te.Kind == workflow.OutsideScope || te.Kind == workflow.NotAState):
				// Said of the state itself, not of a target leading to it.
				msg, unreadable = strings.Replace(te.Msg, fmt.Sprintf("target %q", te.Target), name, 1), true
			case errors.As(err, &te) && te.Kind == workflow.Unsafe:
				// A file name no target can name (a control character):
				// quoted, so that it cannot break the report's lines.
				msg, unreadable = strings.Replace(te.Msg, "target ", "the file name ", 1), true
			}
			c.loadError(n, errors.New(msg), unreadable)
			continue
		}
		n.st = st
		c.state(si, n)
	}
}

// manifest reports the warnings of si's manifest (its workflow.yaml, or a
// YAML workflow's top-level keys): a misspelt default_budget or input is
// ignored by the run, which says so only as it starts.
func (c *checker) manifest(si *scopeInfo) {
	m := si.s.Manifest()
	if m == nil {
		return
	}
	file := si.s.Dir() // a YAML workflow's file
	if si.s.Kind() != workflow.YAML {
		file = filepath.Join(file, workflow.ManifestFile)
	}
	c.schedule(m.Schedule, file)
	if m.MCP != nil {
		if _, err := si.s.MCP(filepath.Base(file), m.MCP); err != nil {
			c.add(Finding{Check: "mcp-config", Severity: Error, File: file, Message: stripPrefix(err.Error(), filepath.Base(file)),
				Fix: "give mcp_config a readable JSON file (or inline servers) with at least one server under mcpServers"})
		}
	}
	for _, model := range append([]string{m.Model}, m.Fallbacks...) {
		if model == "" {
			continue
		}
		if err := project.CheckModel(model); err != nil {
			c.add(Finding{Check: "invalid-model", Severity: Error, File: file, Message: err.Error(),
				Fix: fmt.Sprintf("give an alias (%s) or a full model id", strings.Join(project.ModelAliases, ", "))})
		} else if w := project.ModelWarning(model); w != "" {
			c.add(Finding{Check: "unknown-model", Severity: Warning, File: file, Message: didYouMeanSuffixRE.ReplaceAllString(w, ""),
				Fix: "check the id against the models your account offers"})
		}
	}
	for _, w := range m.Warnings {
		f := placed(errors.New(w), file)
		f.Severity = Warning
		f.Check, f.Fix = "frontmatter-warning", "see the message"
		if unknownKeyRE.MatchString(f.Message) {
			f.Check, f.Fix = "unknown-key", "remove the key, or spell it as one of the keys docs/writing-workflows.md lists"
			if s := didYouMeanRE.FindStringSubmatch(f.Message); s != nil {
				f.Fix = fmt.Sprintf("did you mean %q? rename the key", s[1])
			}
			f.Message = didYouMeanSuffixRE.ReplaceAllString(f.Message, "")
		}
		c.add(f)
	}
}

// schedule reports what is wrong with a manifest's schedule: the daemon
// would not fire it.
func (c *checker) schedule(ms *workflow.ManifestSchedule, file string) {
	if ms == nil {
		return
	}
	s := project.Schedule{Cron: ms.Cron, Timezone: ms.Timezone, Missed: ms.Missed, Overlap: ms.Overlap, Budget: ms.Budget}
	if key, err := s.Check(); err != nil {
		c.add(Finding{Check: "bad-schedule", Severity: Error, File: file, Line: ms.Line,
			Message: fmt.Sprintf("schedule.%v; the daemon would not launch the workflow on it", err),
			Fix:     fmt.Sprintf("correct schedule.%s (docs/writing-workflows.md, \"Schedules\")", key)})
	}
}

func stateFile(s *workflow.Scope, name string) string {
	if s.Kind() == workflow.YAML {
		return s.Dir()
	}
	return filepath.Join(s.Dir(), name)
}

// loadError turns the failure to load the state n into a finding;
// unreadable says the file itself could not be read from the workflow (a
// link out of it, no permission), as opposed to what it holds.
func (c *checker) loadError(n *node, err error, unreadable bool) {
	f := placed(err, n.file)
	f.Message = stripPrefix(f.Message, n.name)
	msg := f.Message
	f.Severity = Error
	switch {
	case strings.HasSuffix(n.name, ".sh"):
		f.Check, f.Fix = "unreadable-script", "make the script a readable file inside the workflow"
	case unreadable:
		f.Check, f.Fix = "unreadable-state", "make the state a readable file inside the workflow"
		if strings.HasPrefix(msg, "the file name ") {
			f.Fix = "rename the file: no target can name a state whose name holds a control character"
		}
	case strings.Contains(msg, "NUL byte"):
		f.Check, f.Fix = "nul-byte", "remove the NUL byte: a prompt must be text"
	case strings.Contains(msg, "not valid UTF-8"):
		f.Check, f.Fix = "invalid-utf8", "save the file as UTF-8"
	case strings.Contains(msg, "the file is empty") || strings.Contains(msg, "nothing after its frontmatter"):
		f.Check, f.Fix = "empty-state", "write the prompt the agent should follow"
	case strings.Contains(msg, "appears more than once"):
		// Before the checks by key name: a repeated allowed_tools is not a
		// malformed tool rule, nor a repeated permission_mode a bad mode.
		f.Check, f.Fix = "frontmatter-parse-error", "keep one of them: a key is given once, with every value it needs"
	case strings.Contains(msg, "on_max_visits"):
		f.Check, f.Fix = "invalid-on-max-visits", "write it like { tag: goto, target: MANUAL_FIX.md }: goto or reset with a target, or result with a payload"
	case strings.Contains(msg, "max_visits"):
		f.Check, f.Fix = "invalid-max-visits", "give a whole number of at least 1, like max_visits: 3"
	case strings.Contains(msg, "max_turns") || strings.Contains(msg, "loop_warn") || strings.Contains(msg, "loop_stop") || strings.Contains(msg, "cycle_check"):
		f.Check, f.Fix = "invalid-runaway-limit", "give max_turns, loop_warn and loop_stop a whole number (0 for none), like loop_stop: 10, and cycle_check true or false"
	case strings.Contains(msg, "force_implicit"):
		f.Check, f.Fix = "invalid-force-implicit", "keep exactly one allowed transition that fixes everything, or remove force_implicit"
	case strings.Contains(msg, "permission_mode"):
		f.Check, f.Fix = "invalid-permission-mode", "use one of "+strings.Join(permission.Modes, ", ")
		if m := didYouMeanRE.FindStringSubmatch(msg); m != nil {
			f.Fix = fmt.Sprintf("did you mean %q?", m[1])
		}
	case strings.Contains(msg, "allowed_tools") || strings.Contains(msg, "disallowed_tools"):
		f.Check, f.Fix = "malformed-tool-rule", `write each rule as a tool name, with what it allows in balanced parentheses if needed: Read, "Bash(git log:*)"`
	case strings.Contains(msg, "cd is ") || strings.Contains(msg, "takes no cd"):
		f.Check, f.Fix = "unsupported-cd-attribute", "remove cd from this entry: only reset, fork, function-workflow, fork-workflow and reset-workflow take it"
	default:
		f.Check, f.Fix = "frontmatter-parse-error", "fix the frontmatter at the place named"
	}
	c.add(f)
}

// frontmatterKeys are the keys a state's frontmatter may hold; a YAML
// workflow's state also takes prompt and the script keys.
var frontmatterKeys = []string{"allowed_transitions", "model", "effort", "force_implicit", "step_timeout", "timeout",
	"allowed_tools", "disallowed_tools", "permission_mode", "max_visits", "on_max_visits", "on_conflict", "mcp_config",
	"max_turns", "loop_warn", "loop_stop", "cycle_check", "prompt", "sh"}

// scriptToolKeyRE finds the key of the warning about a tool limit on a
// script state.
var scriptToolKeyRE = regexp.MustCompile(`is a script, so (\w+) does nothing`)

// didYouMeanRE finds the suggestion in a message of the workflow package.
var didYouMeanRE = regexp.MustCompile(`did you mean "([^"]*)"\?`)

// didYouMeanSuffixRE is the suggestion the workflow package adds to its
// warning about an unknown key.
var didYouMeanSuffixRE = regexp.MustCompile(` \(did you mean "[^"]*"\?\)$`)

var unknownKeyRE = regexp.MustCompile(`unknown (?:frontmatter |top-level |manifest )?key "([^"]*)"`)

// state checks the loaded state n of si on its own and collects its edges.
func (c *checker) state(si *scopeInfo, n *node) {
	st := n.st
	for _, w := range st.Warnings {
		msg := stripPrefix(w, st.Name)
		msg = strings.TrimPrefix(msg, si.s.Dir()+": ")
		if m := placeRE.FindStringSubmatch(w); m != nil && !strings.Contains(m[1], " ") {
			msg = m[4]
		}
		if m := unknownKeyRE.FindStringSubmatch(msg); m != nil {
			msg = didYouMeanSuffixRE.ReplaceAllString(msg, "") // the fix says it
			fix := "remove the key, or spell it as one of " + strings.Join(frontmatterKeys[:slices.Index(frontmatterKeys, "prompt")], ", ")
			if s := spelling.Suggest(m[1], frontmatterKeys); s != "" {
				fix = fmt.Sprintf("did you mean %q? rename the key", s)
			}
			c.report("unknown-key", Warning, c.at(n, m[1]+":"), msg, fix)
			continue
		}
		if strings.HasPrefix(msg, "effort ") {
			continue // invalid-effort says it
		}
		if m := scriptToolKeyRE.FindStringSubmatch(msg); m != nil {
			c.report("tool-limits-on-script", Warning, c.at(n, m[1]+":"), msg,
				"remove the key: a script runs no claude, so it has no tools to limit")
			continue
		}
		if strings.HasPrefix(msg, "on_max_visits without max_visits") {
			msg, _, _ = strings.Cut(msg, ";")
			c.report("on-max-visits-without-max-visits", Warning, c.at(n, "on_max_visits"), msg,
				"add max_visits: N beside it, or remove on_max_visits")
			continue
		}
		c.report("frontmatter-warning", Warning, c.at(n, ""), msg, "see the message")
	}
	p := st.Policy
	c.model(n, p.Model)
	for _, m := range p.Fallbacks {
		c.model(n, m)
	}
	if p.MCP != nil && !st.Script {
		if _, err := si.s.MCP(st.Name, p.MCP); err != nil {
			c.report("mcp-config", Error, c.at(n, "mcp_config"), stripPrefix(err.Error(), st.Name),
				"give mcp_config a readable JSON file (or inline servers) with at least one server under mcpServers")
		}
	}
	if p.Effort != "" {
		if err := project.CheckEffort(p.Effort); err != nil {
			fix := "use one of " + strings.Join(project.EffortLevels, ", ")
			if s := spelling.Suggest(p.Effort, project.EffortLevels); s != "" {
				fix = fmt.Sprintf("did you mean %q?", s)
			}
			c.report("invalid-effort", Error, c.at(n, p.Effort), err.Error(), fix)
		}
	}
	c.toolRules(n, p)
	c.fallback(si, n)
	if t := n.st.Policy.OnConflict; t != "" {
		// Where merges that conflicted send the agent: an edge like a goto.
		c.edge(si, n, edge{tag: parsing.Goto, role: "on_conflict", to: t, place: c.at(n, "on_conflict")})
	}
	if st.Script {
		// A script prints its tags when it runs: only a tag written whole
		// on one line, with nothing the shell fills in, is read here, and a
		// comment is not read at all. What such a tag shows is a warning,
		// never an error: a guess about a script must not keep it from
		// running.
		var tags []parsing.Tag
		for i, line := range strings.Split(st.Body, "\n") {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			found, _ := parsing.AllTags(line)
			for _, t := range found {
				if strings.ContainsAny(t.Raw, "$`") {
					n.dynamic = true
					continue
				}
				before := len(c.out)
				c.tag(si, n, t, place{file: n.file, line: st.BodyLine + i}, false)
				for j := before; j < len(c.out); j++ {
					if c.out[j].Severity == Error {
						c.out[j].Severity = Warning
					}
				}
				tags = append(tags, t)
			}
		}
		if len(tags) == 0 {
			n.dynamic = true
			c.add(Finding{Check: "script-state-no-static-analysis", Severity: Info, File: n.file, Line: st.BodyLine,
				Message: fmt.Sprintf("%s is a script whose transitions are printed when it runs; they cannot be checked here", st.Name),
				Fix:     "nothing to do; tags written literally in the script (echo '<goto>NEXT</goto>') are checked"})
		}
		return
	}
	c.rules(si, n)
	c.sleeps(n)
	if p.ForceImplicit {
		// The answer is never read for a tag (protocol §6.3): tags the
		// prompt shows are examples, not transitions, and its one allowed
		// transition is the state's only way on.
		return
	}
	// A malformed tag is reported, and the well-formed tags beside it are
	// still checked: the model sees them all.
	tags, malformed := parsing.AllTags(st.Body)
	for _, pe := range malformed {
		pl := place{file: n.file, line: st.BodyLine}
		if pe.Tag != "" {
			pl = c.inBody(n, strings.Index(st.Body, pe.Tag))
		}
		c.report("malformed-tag", Warning, pl, pe.Error(),
			"write the tag as <name attr=\"value\">BODY</name>, or quote it in `code` when it is an example")
	}
	var unquoted []parsing.Tag
	for _, t := range tags {
		if !t.Quoted {
			unquoted = append(unquoted, t)
		}
	}
	// A fan-out is checked against the policy as a whole when it runs (the
	// goto beside forks is their next): only single tags are compared here.
	fanOut := false
	for _, t := range unquoted {
		fanOut = fanOut || parsing.Forks(t.Name)
	}
	for _, t := range unquoted {
		c.tag(si, n, t, c.inBody(n, t.Offset), true)
		single := !fanOut || !parsing.Forks(t.Name) && t.Name != parsing.Goto
		if p.Restricted() && single && !p.Allows(t) && !templated(t.Raw) {
			c.report("tag-not-allowed", Warning, c.inBody(n, t.Offset),
				fmt.Sprintf("the prompt shows %s, but allowed_transitions refuses it: the agent would get a reminder", short(t.Raw)),
				"add an allowed_transitions entry for it, or change the prompt")
		}
	}
	c.forks(n, unquoted, c.inBody)
	c.lookalikes(si, n)
	if len(unquoted) == 0 && !p.Restricted() {
		c.add(Finding{Check: "dead-end-state", Severity: Warning, File: n.file, Line: st.BodyLine,
			Message: fmt.Sprintf("%s names no transition and has no allowed_transitions, so the agent is never told how to go on", st.Name),
			Fix:     "say in the prompt which tag to emit (e.g. <goto>NEXT.md</goto> or <result>…</result>), or add allowed_transitions"})
		n.result = true // reported once: no loop or call warnings follow from it
	}
}

// short returns s cut to a readable length.
func short(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// toolRules checks the tool rules of a state's policy p: a tool claude
// does not have (an MCP tool, mcp__server__tool, always passes), and a
// rule both allowed and disallowed, where the refusal wins.
func (c *checker) toolRules(n *node, p workflow.Policy) {
	for _, rules := range [][]string{p.AllowedTools, p.DisallowedTools} {
		for _, r := range rules {
			if permission.Known(r) {
				continue
			}
			name := permission.Name(r)
			fix := "check the name against claude's tools (Read, Write, Edit, Glob, Grep, Bash, WebFetch, Task, …); an MCP tool is written mcp__server__tool"
			if s := spelling.Suggest(name, permission.Tools); s != "" {
				fix = fmt.Sprintf("did you mean %q?", s)
			}
			c.report("unknown-tool", Warning, c.at(n, r),
				fmt.Sprintf("tool rule %q names %q, which is not one of claude's tools; claude would ignore it", r, name), fix)
		}
	}
	for _, a := range p.AllowedTools {
		for _, d := range p.DisallowedTools {
			if a == d || d == permission.Name(d) && permission.Name(a) == d {
				c.report("tool-allowed-and-disallowed", Warning, c.at(n, a),
					fmt.Sprintf("%q is allowed, but disallowed_tools has %q, which wins: the state cannot use it", a, d),
					"remove it from one of the lists")
				break
			}
		}
	}
}
