package wftest

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/internal/spelling"
	"raymond/internal/yamlerr"
	"raymond/scripted"
	"raymond/workflow"
)

// parser reads one test file and collects every problem it finds.
type parser struct {
	name  string     // the file, as given
	dir   string     // its absolute folder
	lines int        // how many lines it has
	root  *yaml.Node // the document's top node; nil for an empty file
	errs  []error
	// scope is the workflow's, open while the file is read; nil when the
	// workflow cannot start. scopes holds it and the workflows it calls.
	scope  *workflow.Scope
	scopes *workflow.Scopes
	called []*workflow.Scope
}

// known checks that name is a state of the workflow or of one it calls;
// the error is the workflow's own.
func (p *parser) known(name string) error {
	_, err := p.scope.Resolve(name)
	if err == nil {
		return nil
	}
	for _, c := range p.reached() {
		if _, cerr := c.Resolve(name); cerr == nil {
			return nil
		}
	}
	return err
}

// reached returns the workflows the file's workflow calls (once found, kept).
func (p *parser) reached() []*workflow.Scope {
	if p.called == nil && p.scopes != nil && p.scope != nil {
		p.called = p.scopes.Reached(p.scope)[1:]
	}
	return p.called
}

// errorf returns an error at the line of the value at path (see lineOf);
// without one it names the file only.
func (p *parser) errorf(path []any, format string, args ...any) error {
	return p.errorAt(lineOf(p.root, path...), format, args...)
}

// errorAt returns an error at line, or naming the file only for line 0.
func (p *parser) errorAt(line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		return fmt.Errorf("%s:%d: %s", p.name, line, msg)
	}
	return fmt.Errorf("%s: %s", p.name, msg)
}

// fail records an error at path.
func (p *parser) fail(path []any, format string, args ...any) {
	p.errs = append(p.errs, p.errorf(path, format, args...))
}

// mapping reads the mapping at path at, whose keys must be among keys,
// each at most once. label starts the messages ("case \"x\": expect"),
// kind names the mapping in them ("a case").
func (p *parser) mapping(v any, at []any, label, kind, keys string) (map[string]any, bool) {
	m, ok := v.(scripted.Mapping)
	if !ok {
		p.fail(at, "%s%s is not a mapping; %s takes the keys %s", lead(label), scripted.Describe(v), kind, keys)
		return nil, false
	}
	allowed := strings.Split(keys, ", ")
	fields := make(map[string]any, len(m))
	ok = true
	for _, item := range m {
		key, isText := item.Key.(string)
		_, dup := fields[key]
		switch {
		case !isText || !slices.Contains(allowed, key):
			hint := ""
			if near := spelling.Suggest(key, allowed); isText && near != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
			p.fail(sub(at, key), "%sunknown key %s%s; %s takes %s", lead(label), scripted.Describe(item.Key), hint, kind, keys)
			ok = false
		case dup:
			p.errs = append(p.errs, p.errorAt(lineOfSecond(p.root, at, key), "%s%s is given twice", lead(label), key))
			ok = false
		default:
			fields[key] = item.Value
		}
	}
	return fields, ok
}

// lead returns label followed by ": ", or nothing for no label.
func lead(label string) string {
	if label == "" {
		return ""
	}
	return label + ": "
}

// sub returns the path at followed by more, sharing nothing with at.
func sub(at []any, more ...any) []any {
	return append(slices.Clone(at), more...)
}

// caseAt reads the i-th case; ok is false when it has errors, and the
// case then holds only what could be read.
func (p *parser) caseAt(f *File, i int, v any) (c *Case, ok bool) {
	at := []any{"cases", i}
	before := len(p.errs)
	label := fmt.Sprintf("case %d", i+1)
	if name, ok := lookup(v, "name").(string); ok && strings.TrimSpace(name) != "" {
		label = fmt.Sprintf("case %q", name)
	}
	c = &Case{Line: lineOf(p.root, at...), MaxParallel: 1}
	if name, ok := lookup(v, "name").(string); ok {
		c.Name = name
	}
	fields, ok := p.mapping(v, at, label, "a case", caseKeys)
	if !ok {
		return c, false
	}
	if name, ok := fields["name"]; !ok {
		p.fail(at, "%s has no name; give every case a name that is unique in the file", label)
	} else if c.Name, ok = p.text(name, sub(at, "name"), label+": name"); ok && strings.TrimSpace(c.Name) == "" {
		p.fail(sub(at, "name"), "%s: name is empty", label)
	}
	c.ID = stem(f.Path) + "/" + c.Name
	if v, ok := fields["input"]; ok {
		if in, ok := p.text(v, sub(at, "input"), label+": input"); ok {
			c.Input = &in
		}
	}
	if v, ok := fields["budget"]; ok {
		c.BudgetUSD, _ = p.amount(v, sub(at, "budget"), label+": budget")
	}
	if v, ok := fields["max_parallel"]; ok {
		if n, ok := v.(int); !ok || n < 1 {
			p.fail(sub(at, "max_parallel"), "%s: max_parallel: %s is not a number of steps; give a whole number, 1 or more", label, scripted.Describe(v))
		} else {
			c.MaxParallel = n
		}
	}
	if v, ok := fields["files"]; ok {
		c.Files, c.Fresh = p.setupFiles(v, sub(at, "files"), label, "files"), true
	}
	if v, ok := fields["task_files"]; ok {
		c.TaskFiles = p.setupFiles(v, sub(at, "task_files"), label, "task_files")
	}
	if v, ok := fields["interrupt_after"]; ok {
		if n, ok := v.(int); !ok || n < 1 {
			p.fail(sub(at, "interrupt_after"), "%s: interrupt_after: %s is not a number of steps; give a whole number, 1 or more", label, scripted.Describe(v))
		} else {
			c.InterruptAfter = n
		}
	}
	c.replies = fields["replies"]
	p.replies(f, c, sub(at, "replies"), label)
	if v, ok := fields["rewind"]; ok {
		p.rewind(c, v, sub(at, "rewind"), label)
	}
	p.asks(c, fields, at, label)
	if v, ok := fields["expect"]; ok {
		p.expect(f, &c.Expect, v, sub(at, "expect"), label)
	}
	if c.Expect.Status == "" {
		c.Expect.Status = "completed"
	}
	return c, len(p.errs) == before
}

// replies checks the replies of a case with the replies file's own parser
// and against the workflow.
func (p *parser) replies(f *File, c *Case, at []any, label string) {
	r, err := scripted.ParseValue(c.ID, c.replies)
	if err == nil && p.scope != nil {
		err = r.Check(p.scope, p.reached()...)
	}
	if err == nil {
		return
	}
	for _, e := range unjoin(err) {
		if re, ok := errors.AsType[*scripted.ReplyError](e); ok {
			where := sub(at, re.State)
			if re.Reply > 0 {
				where = sub(where, re.Reply-1)
			}
			p.fail(where, "%s: replies: %v", label, re.Err)
			continue
		}
		msg := strings.TrimPrefix(e.Error(), c.ID+": ")
		p.fail(at, "%s: %s", label, msg)
	}
}

// unjoin returns the errors that errors.Join joined into err, or err.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// statuses are the final statuses a run can have.
var statuses = []string{"completed", "failed", "budget_exceeded", "paused", "asking"}

// expect reads a case's expectations.
func (p *parser) expect(f *File, e *Expect, v any, at []any, label string) {
	fields, ok := p.mapping(v, at, label+": expect", "expect", expectKeys)
	if !ok {
		return
	}
	key := func(k string) []any { return sub(at, k) }
	if v, ok := fields["status"]; ok {
		if s, _ := v.(string); slices.Contains(statuses, s) {
			e.Status = s
		} else {
			p.fail(key("status"), "%s: expect: status: %s is not a status; use one of %s", label, scripted.Describe(v), strings.Join(statuses, ", "))
		}
	}
	if v, ok := fields["result"]; ok {
		if s, ok := p.text(v, key("result"), label+": expect: result"); ok {
			e.Result = &s
		}
	}
	if v, ok := fields["result_matches"]; ok {
		if s, ok := p.text(v, key("result_matches"), label+": expect: result_matches"); ok {
			re, err := regexp.Compile(s)
			if err != nil {
				p.fail(key("result_matches"), "%s: expect: result_matches: %v", label, err)
			}
			e.ResultMatches = re
		}
	}
	if v, ok := fields["path"]; ok {
		e.Paths = p.paths(f, v, key("path"), label)
	}
	e.Steps = p.number(fields, "steps", at, label)
	e.Reminders = p.number(fields, "reminders", at, label)
	e.Retries = p.number(fields, "retries", at, label)
	if v, ok := fields["cost"]; ok {
		if c, ok := p.amount(v, key("cost"), label+": expect: cost"); ok {
			e.CostUSD = &c
		}
	}
	if v, ok := fields["asks"]; ok {
		e.Asks = p.expectAsks(v, key("asks"), label)
	}
	if v, ok := fields["files"]; ok {
		e.Files = p.expectFiles(v, key("files"), label)
	}
	if v, ok := fields["prints"]; ok {
		e.Prints = p.substrings(fields, "prints", at, label+": expect")
		if v == nil {
			p.fail(key("prints"), "%s: expect: prints must be a text or a list of texts", label)
		}
	}
	if v, ok := fields["unvisited"]; ok {
		e.Unvisited, _ = p.texts(v, key("unvisited"), label+": expect: unvisited")
		for i, s := range e.Unvisited {
			if p.scope == nil {
				break
			}
			if err := p.known(s); err != nil {
				p.fail(sub(key("unvisited"), i), "%s: expect: unvisited: %v", label, err)
			}
		}
	}
}

// number reads the count at expect key k (steps, reminders, retries): a
// whole number, 0 or more; nil when the key is not given or not valid.
func (p *parser) number(fields map[string]any, k string, at []any, label string) *int {
	v, ok := fields[k]
	if !ok {
		return nil
	}
	if n, ok := v.(int); ok && n >= 0 {
		return &n
	}
	p.fail(sub(at, k), "%s: expect: %s: %s is not a number of %s; give a whole number, 0 or more", label, k, scripted.Describe(v), k)
	return nil
}

// paths reads the expected path of every agent: a mapping of agent ids to
// lists of entries, each STATE or TAG STATE (see pathentry.go).
func (p *parser) paths(f *File, v any, at []any, label string) []AgentStates {
	m, ok := v.(scripted.Mapping)
	if !ok || len(m) == 0 {
		p.fail(at, "%s: expect: path must map each agent to its states, such as main: [START, FIX, SUMMARY]", label)
		return nil
	}
	var out []AgentStates
	seen := make(map[string]bool)
	for _, item := range m {
		agent, ok := item.Key.(string)
		if !ok || agent == "" {
			p.fail(at, "%s: expect: path: %s is not an agent id, such as main or main_worker1", label, scripted.Describe(item.Key))
			continue
		}
		if seen[agent] {
			p.fail(sub(at, agent), "%s: expect: path: %s is given twice", label, agent)
			continue
		}
		seen[agent] = true
		entries, ok := p.texts(item.Value, sub(at, agent), label+": expect: path: "+agent)
		if ok && len(entries) == 0 {
			p.fail(sub(at, agent), "%s: expect: path: %s: no states; every agent enters at least one", label, agent)
		}
		out = append(out, p.pathEntries(f, agent, entries, sub(at, agent), label))
	}
	return out
}

// pathEntries reads the entries of one agent's path, each STATE or TAG
// STATE. An entry of two words whose first is no tag is an error, unless
// it is the name of a state of the workflow.
func (p *parser) pathEntries(f *File, agent string, entries []string, at []any, label string) AgentStates {
	w := AgentStates{Agent: agent, States: make([]string, len(entries))}
	for i, e := range entries {
		tag, state, ok := splitEntry(e)
		if !ok && p.scope != nil {
			_, err := p.scope.Resolve(e)
			ok = err == nil
		}
		if !ok {
			first, _, _ := strings.Cut(strings.TrimSpace(e), " ")
			p.fail(sub(at, i), "%s: expect: path: %s: item %d: %q starts with %q, which is not a tag; write STATE or TAG STATE, where TAG is one of %s (the tag that led to the state)",
				label, agent, i+1, e, first, strings.Join(pathTags, ", "))
		}
		w.States[i] = state
		if tag != "" {
			if w.Tags == nil {
				w.Tags = make([]string, len(entries))
			}
			w.Tags[i] = tag
		}
	}
	return w
}

// text reads a string.
func (p *parser) text(v any, at []any, label string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.fail(at, "%s: %s is not a text; quote it", label, scripted.Describe(v))
	}
	return s, ok
}

// texts reads a list of strings.
func (p *parser) texts(v any, at []any, label string) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		p.fail(at, "%s must be a list of states, such as [START, FIX]", label)
		return nil, false
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok || s == "" {
			p.fail(sub(at, i), "%s: item %d: %s is not a state name", label, i+1, scripted.Describe(item))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// amount reads an amount in USD, 0 or more.
func (p *parser) amount(v any, at []any, label string) (float64, bool) {
	var c float64
	switch n := v.(type) {
	case int:
		c = float64(n)
	case float64:
		c = n
	default:
		c = -1
	}
	if c < 0 || math.IsInf(c, 0) || math.IsNaN(c) {
		p.fail(at, "%s: %s is not an amount in USD; give a number, 0 or more, such as 0.25", label, scripted.Describe(v))
		return 0, false
	}
	return c, true
}

// lookup returns the value of key in the mapping v, or nil.
func lookup(v any, key string) any {
	m, _ := v.(scripted.Mapping)
	for _, item := range m {
		if item.Key == key {
			return item.Value
		}
	}
	return nil
}

// yamlError turns a YAML syntax error into "FILE:LINE: problem".
func (p *parser) yamlError(data []byte, err error) error {
	line, msg := yamlerr.Locate(data, err)
	if line == 0 {
		return fmt.Errorf("%s: invalid YAML: %s", p.name, msg)
	}
	// At the end of the text the problem may be past the last line.
	return fmt.Errorf("%s:%d: invalid YAML: %s", p.name, min(line, p.lines), msg)
}
