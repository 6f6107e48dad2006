package scripted

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/internal/yamlerr"
	"raymond/parsing"
)

// replyKeys and toolKeys are the keys a reply and a tool take, as error
// messages list them.
const (
	replyKeys = "text, outcome, times, repeat, cost, delay, wait_for, reset, say, tools, writes, template"
	toolKeys  = "name, input, result, error"
)

// Load reads the replies file at path; see the package documentation for
// its format.
func Load(path string) (*Runner, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load replies: %w", err)
	}
	r, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	// wait_for paths are relative to the file's folder; made absolute now,
	// they do not depend on where the process is when a step runs.
	if r.dir, err = filepath.Abs(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("load replies: %w", err)
	}
	return r, nil
}

// Parse reads the content of a replies file. name is the file's name, used
// in error messages (and in the message of a step that finds no reply left).
// An error about one state's replies is a *ReplyError.
func Parse(name string, data []byte) (*Runner, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml.v3 names the line a collection starts on, not the line
		// that is wrong: a bad indent would be said to be at line 1.
		if line, msg := yamlerr.Locate(data, err); line > 0 {
			return nil, fmt.Errorf("%s:%d: %s", name, line, msg)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	v := Value(&doc)
	top, ok := v.(Mapping)
	if !ok && v != nil {
		return nil, fmt.Errorf("%s: a replies file is a mapping with the one key replies, not %s", name, Describe(v))
	}
	var replies any
	found := false
	for _, item := range top {
		if item.Key != "replies" {
			return nil, fmt.Errorf("%s: unknown key %q at the top of the file; the only key is replies", name, fmt.Sprint(item.Key))
		}
		if found {
			return nil, fmt.Errorf("%s: replies is given twice", name)
		}
		found = true
		replies = item.Value
	}
	if !found {
		return nil, fmt.Errorf("%s: no replies key; a replies file lists the replies of each state under the key replies", name)
	}
	return ParseValue(name, replies)
}

// ParseValue reads the value of a replies key that another file embeds (a
// workflow test case has one), as Value decodes it: mappings are
// Mappings, lists []any. name says
// where the value comes from in error messages. An error about one state's
// replies is a *ReplyError.
func ParseValue(name string, v any) (*Runner, error) {
	r := &Runner{name: name, byName: make(map[string]*queue)}
	if v == nil {
		return r, nil
	}
	states, ok := v.(Mapping)
	if !ok {
		return nil, fmt.Errorf("%s: replies must map state names to lists of replies", name)
	}
	for _, item := range states {
		key, ok := item.Key.(string)
		if !ok {
			return nil, r.keyError(fmt.Sprint(item.Key), 0,
				fmt.Errorf("state name %v is not a text; name a state by its file name, such as WORKER.md", item.Key))
		}
		if block, ok := item.Value.(Mapping); ok {
			// A workflow's own replies: its states' keys, one level down.
			if err := r.addWorkflow(key, block); err != nil {
				return nil, err
			}
			continue
		}
		if err := r.addKey("", key, item.Value); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// addKey parses the replies of one key (STATE or AGENT/STATE) of the
// workflow named wf ("" for any workflow).
func (r *Runner) addKey(wf, key string, v any) error {
	shown := key
	if wf != "" {
		shown = wf + ": " + key
	}
	q, err := r.addQueue(wf, key)
	if err != nil {
		return r.keyError(shown, 0, err)
	}
	var index int
	if q.replies, index, err = parseList(v); err != nil {
		return r.keyError(shown, index, fmt.Errorf("%s %w", shown, err))
	}
	return nil
}

// addWorkflow parses the block of replies that only the states of workflow
// wf take: a mapping of its state keys, as at the top.
func (r *Runner) addWorkflow(wf string, block Mapping) error {
	if err := validWorkflowKey(wf); err != nil {
		return r.keyError(wf, 0, err)
	}
	for _, item := range block {
		key, ok := item.Key.(string)
		if !ok {
			return r.keyError(wf, 0, fmt.Errorf("%s: state name %v is not a text; name a state by its file name, such as WORKER.md", wf, item.Key))
		}
		if _, ok := item.Value.(Mapping); ok {
			return r.keyError(wf+": "+key, 0, fmt.Errorf("%s: %s holds a mapping, but a workflow's block holds only its states' lists of replies", wf, key))
		}
		if err := r.addKey(wf, key, item.Value); err != nil {
			return err
		}
	}
	r.qualified = true
	return nil
}

// validWorkflowKey checks the name of a workflow's block: a workflow's
// name, or the end of its path (examples/hello).
func validWorkflowKey(wf string) error {
	switch {
	case strings.TrimSpace(wf) == "" || strings.TrimSpace(wf) != wf:
		return fmt.Errorf("%q holds replies for states, so it names a workflow; give the workflow's folder or file name, such as greet", wf)
	case strings.HasPrefix(wf, "/") || strings.HasSuffix(wf, "/") || strings.Contains(wf, "//"):
		return fmt.Errorf("workflow %q: give its folder or file name, or the end of its path (examples/greet), without a leading or trailing /", wf)
	}
	return nil
}

// ReplyError is a problem with the replies of one key of a replies file:
// the key itself, its list, or one reply of it. A file that embeds replies
// (a workflow test) uses State and Reply to point at the line.
type ReplyError struct {
	// File is the name given to Parse or ParseValue.
	File string
	// State is the key as written: STATE or AGENT/STATE.
	State string
	// Reply is the position of the reply in the key's list, from 1; 0 when
	// the problem is the key or the list as a whole.
	Reply int
	// Err says what is wrong, starting with the key or the reply it is
	// about, without the file's name.
	Err error
}

// Error returns the file's name followed by Err's message.
func (e *ReplyError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *ReplyError) Unwrap() error { return e.Err }

func (r *Runner) keyError(key string, reply int, err error) error {
	return &ReplyError{File: r.name, State: key, Reply: reply, Err: err}
}

// addQueue registers the queue of key (STATE or AGENT/STATE) of the
// workflow wf ("" for any) under every name a step may give that state.
// Its errors say what is wrong with key.
func (r *Runner) addQueue(wf, key string) (*queue, error) {
	agent, stateName, err := splitKey(key)
	if err != nil {
		return nil, err
	}
	q := &queue{key: key, workflow: wf, agent: agent, state: stateName}
	if wf != "" {
		q.key = wf + ": " + key
	}
	for _, alias := range aliases(stateName) {
		if agent != "" {
			alias = agent + "/" + alias
		}
		alias = qualify(wf, alias)
		if other, dup := r.byName[alias]; dup {
			return nil, fmt.Errorf("%q and %q name the same state; put their replies in one list", other.key, q.key)
		}
		r.byName[alias] = q
	}
	r.queues = append(r.queues, q)
	return q, nil
}

// splitKey splits a key of the replies mapping into the agent it is for (""
// for every agent) and the state.
func splitKey(key string) (agent, stateName string, err error) {
	agent, stateName, found := strings.Cut(key, "/")
	if !found {
		stateName, agent = key, ""
	} else if !agentID.MatchString(agent) {
		return "", "", fmt.Errorf("%q is not a state: %q is not the id of an agent (main, main_worker1, …); name a state such as WORKER.md, or one agent's state such as main_worker1/WORKER.md", key, agent)
	}
	if err := parsing.ValidTarget(stateName); err != nil {
		return "", "", fmt.Errorf("state %q is not a file name in the workflow folder (%v); name a state such as WORKER.md or WORKER", key, err)
	}
	return agent, stateName, nil
}

// agentID matches the ids the orchestrator gives agents: main, and for a
// fork the parent's id, _, a lower-case short name and a counter.
var agentID = regexp.MustCompile(`^main(_[a-z0-9]+)*$`)

// aliases returns the state names key stands for: itself, and when it has
// no state extension the markdown and script states of that name.
func aliases(key string) []string {
	if strings.HasSuffix(key, ".md") || strings.HasSuffix(key, ".sh") {
		return []string{key}
	}
	return []string{key, key + ".md", key + ".sh"}
}

// parseList parses the replies of one state. Its errors start with the
// reply they are about ("reply 2: …"), whose position it returns, or say
// the list itself is wrong (position 0).
func parseList(v any) ([]*reply, int, error) {
	if v == nil {
		return nil, 0, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, 0, errors.New(`must hold a list of replies: start each reply with "- "`)
	}
	replies := make([]*reply, 0, len(list))
	for i, item := range list {
		if i > 0 && replies[i-1].repeat {
			return nil, i + 1, fmt.Errorf("reply %d: it follows a reply with repeat: true, so no step would ever get it", i+1)
		}
		rep, err := parseReply(item)
		if err != nil {
			return nil, i + 1, fmt.Errorf("reply %d: %w", i+1, err)
		}
		rep.index = i + 1
		replies = append(replies, rep)
	}
	return replies, 0, nil
}

// parseReply parses one reply: a string (the final text) or a mapping.
func parseReply(v any) (*reply, error) {
	switch v := v.(type) {
	case string:
		return &reply{text: v, times: 1}, nil
	case Mapping:
		return parseFields(v)
	case nil:
		return nil, fmt.Errorf("empty reply; give the final text, or a mapping with keys %s", replyKeys)
	}
	return nil, fmt.Errorf("%s is not a reply; a reply is a text (quote it if YAML would read a number or a boolean) or a mapping with keys %s", Describe(v), replyKeys)
}

// parseFields parses a reply written as a mapping.
func parseFields(fields Mapping) (*reply, error) {
	rep := &reply{times: 1}
	seen := make(map[string]bool)
	for _, f := range fields {
		key, ok := f.Key.(string)
		if !ok {
			return nil, fmt.Errorf("unknown key %v; a reply takes %s", f.Key, replyKeys)
		}
		if seen[key] {
			return nil, fmt.Errorf("%s is given twice", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "text":
			rep.text, err = text(f.Value)
		case "outcome":
			rep.outcome, err = parseOutcome(f.Value)
		case "times":
			rep.times, err = count(f.Value)
		case "repeat":
			rep.repeat, err = boolean(f.Value)
		case "cost":
			rep.cost, err = cost(f.Value)
		case "delay":
			rep.delay, err = duration(f.Value)
		case "wait_for":
			rep.waitFor, err = fileName(f.Value)
		case "reset":
			rep.reset, err = duration(f.Value)
			if err == nil && rep.reset == 0 {
				err = errors.New("must be longer than 0")
			}
		case "say":
			rep.say, err = texts(f.Value)
		case "tools":
			rep.tools, err = parseTools(f.Value)
		case "writes":
			rep.writes, err = parseWrites(f.Value)
		case "template":
			var render bool
			render, err = boolean(f.Value)
			rep.verbatim = !render
		default:
			return nil, fmt.Errorf("unknown key %q; a reply takes %s", fmt.Sprint(f.Key), replyKeys)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := checkFields(rep, seen); err != nil {
		return nil, err
	}
	if rep.outcome == usageLimit && rep.reset == 0 {
		rep.reset = defaultReset
	}
	return rep, nil
}

// parseWrites reads the files a reply writes: a mapping of paths to their
// content.
func parseWrites(v any) ([]write, error) {
	m, ok := v.(Mapping)
	if !ok {
		return nil, errors.New("must be a mapping of file paths to their content, such as {notes/{{item}}.md: \"done\"}")
	}
	out := make([]write, 0, len(m))
	for _, f := range m {
		path, err := fileName(f.Key)
		if err != nil {
			return nil, fmt.Errorf("a path: %w", err)
		}
		content, err := text(f.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, write{path: path, content: content})
	}
	return out, nil
}

// checkFields refuses combinations of keys that mean nothing.
func checkFields(rep *reply, seen map[string]bool) error {
	o := rep.outcome
	switch {
	case rep.repeat && seen["times"]:
		return errors.New("times and repeat: true exclude each other; keep one")
	case seen["text"] && o != success:
		return fmt.Errorf("text is the answer of a successful step; outcome %s has none (its message is generated)", o)
	case seen["reset"] && o != usageLimit:
		return fmt.Errorf("reset applies to outcome usage_limit only, not %s", o)
	case seen["cost"] && !o.hasResult():
		return fmt.Errorf("outcome %s ends without a result line, so its step has no known cost; remove cost", o)
	}
	return nil
}

// parseOutcome parses an outcome name.
func parseOutcome(v any) (outcome, error) {
	s, _ := v.(string)
	for o, name := range outcomeNames {
		if s == name {
			return outcome(o), nil
		}
	}
	return 0, fmt.Errorf("unknown outcome %s; use one of %s", Describe(v), strings.Join(outcomeNames, ", "))
}

// parseTools parses the tools of a reply: a list of mappings.
func parseTools(v any) ([]tool, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of tools, each a mapping with keys %s", toolKeys)
	}
	tools := make([]tool, 0, len(list))
	for i, item := range list {
		t, err := parseTool(item)
		if err != nil {
			return nil, fmt.Errorf("tool %d: %w", i+1, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// parseTool parses one tool call.
func parseTool(v any) (tool, error) {
	var t tool
	fields, ok := v.(Mapping)
	if !ok {
		return t, fmt.Errorf("must be a mapping with keys %s", toolKeys)
	}
	for _, f := range fields {
		key, _ := f.Key.(string)
		var err error
		switch key {
		case "name":
			t.name, err = text(f.Value)
		case "input":
			t.input, err = object(f.Value)
		case "result":
			t.result, err = text(f.Value)
		case "error":
			t.isError, err = boolean(f.Value)
		default:
			return t, fmt.Errorf("unknown key %q; a tool takes %s", fmt.Sprint(f.Key), toolKeys)
		}
		if err != nil {
			return t, fmt.Errorf("%s: %w", key, err)
		}
	}
	if strings.TrimSpace(t.name) == "" {
		return t, errors.New("name is required, such as Bash or Read")
	}
	return t, nil
}
