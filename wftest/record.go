package wftest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/analysis"
	"raymond/scripted"
)

// RecordOptions say how a run becomes a test case.
type RecordOptions struct {
	// Name is the case's name; "" means "recorded <run id>".
	Name string
	// Input is the run's --input (the state file's Options.Input); nil when
	// the run had none or it is unknown.
	Input *string
	// Detail reads one step in full; nil means analysis.LoadDetail on the
	// run's folder.
	Detail func(*analysis.Step) (*analysis.Detail, error)
	// Scripts records what each script step wrote on stdout as its
	// reply, so that the case replays the scripts too; without it the
	// case's script states run for real (raymond transcript --to-test
	// --scripts).
	Scripts bool
}

// recording is a case being recorded.
type recording struct {
	run  *analysis.Run
	o    RecordOptions
	b    strings.Builder
	hist *history
	left []string // steps not replayed, with their outcome
	// real are the script states left to run for real.
	real []string
	// standIns are the steps replayed with another outcome than their
	// own, by that outcome.
	standIns map[string][]string
	// answers are the texts written, to check that they read back the same.
	answers []string
	// reminders and retries count those that follow the replayed steps.
	reminders, retries int
}

// Record returns one test case that replays run, as the YAML of an item
// of a test file's cases list, each line indented by indent spaces. Its
// replies are the recorded answers of the steps, in order, per state (per
// AGENT/STATE for a state more than one agent went through), verbatim
// (template: false), with their costs, and the outcome of the steps that
// failed; its expectations are what happened: status, result, every
// agent's path (each state but an agent's first with the tag that led
// there), steps, reminders and retries (when there were any) and cost. A
// step that stopped and ran again later (canceled, cut short, stopped by
// an authentication error) is left out;
// one whose outcome a reply cannot give is replayed with one that leads
// to the same path (session not found as max_turns: both fail the
// agent). Both are named in comments above the case.
//
// A script step is left to run for real (named in a comment), unless
// o.Scripts: its stdout is then its reply. The run's asks become the
// case's answers (each answered ask's answer, by id) and timeouts (the
// asks that expired), and expect lists the asks; an ask still pending
// leaves the case expecting the status asking.
//
// A run a replay cannot reproduce is refused with the reason: one that
// has not ended (paused, waiting, still going), and one in which an agent
// failed and was resumed, as a replay never resumes.
func Record(run *analysis.Run, o RecordOptions, indent int) (string, error) {
	if err := checkEnded(run); err != nil {
		return "", err
	}
	hist, err := readHistory(run)
	if err != nil {
		return "", err
	}
	if o.Name == "" {
		o.Name = "recorded " + run.ID
	}
	if o.Detail == nil {
		o.Detail = func(s *analysis.Step) (*analysis.Detail, error) { return analysis.LoadDetail(run.Dir, s) }
	}
	rc := &recording{run: run, o: o, hist: hist, standIns: make(map[string][]string)}
	replies, cost, steps, err := rc.replies()
	if err != nil {
		return "", err
	}
	// The case is written at column 0, then indented as a whole: block
	// literals stay valid, as their lines move with their keys.
	b := &rc.b
	b.WriteString(rc.comments())
	fmt.Fprintf(b, "- name: %s\n", rc.scalar(o.Name, 2, false))
	if o.Input != nil {
		fmt.Fprintf(b, "  input: %s\n", rc.scalar(*o.Input, 2, false))
	}
	if run.BudgetUSD > 0 {
		fmt.Fprintf(b, "  budget: %s\n", money(run.BudgetUSD))
	}
	b.WriteString("  replies:\n")
	b.WriteString(replies)
	rc.asks()
	b.WriteString("  expect:\n")
	fmt.Fprintf(b, "    status: %s\n", run.Status)
	if run.Result != nil {
		fmt.Fprintf(b, "    result: %s\n", rc.scalar(strings.TrimSpace(*run.Result), 4, false))
	}
	b.WriteString("    path:\n")
	for _, a := range run.Agents {
		states := make([]string, len(a.Path))
		for i, v := range a.Path {
			states[i] = flowScalar(pathEntry(v, i == 0))
		}
		fmt.Fprintf(b, "      %s: [%s]\n", rc.scalar(a.ID, 0, false), strings.Join(states, ", "))
	}
	fmt.Fprintf(b, "    steps: %d\n", steps)
	if rc.reminders > 0 {
		fmt.Fprintf(b, "    reminders: %d\n", rc.reminders)
	}
	if rc.retries > 0 {
		fmt.Fprintf(b, "    retries: %d\n", rc.retries)
	}
	fmt.Fprintf(b, "    cost: %s\n", money(cost))
	if len(run.Asks) > 0 {
		ids := make([]string, len(run.Asks))
		for i, k := range run.Asks {
			ids[i] = flowScalar(k.ID)
		}
		fmt.Fprintf(b, "    asks: [%s]\n", strings.Join(ids, ", "))
	}
	if err := rc.verify(); err != nil {
		return "", err
	}
	return indentLines(b.String(), indent), nil
}

// indentLines indents every line of text that is not empty by n spaces.
func indentLines(text string, n int) string {
	if n == 0 {
		return text
	}
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for line := range strings.Lines(text) {
		if line != "\n" {
			b.WriteString(pad)
		}
		b.WriteString(line)
	}
	return b.String()
}

// replies writes the replies mapping of the case and returns it with the
// cost and number of the steps it replays. Each list holds its steps in
// the order their agent ran them.
func (rc *recording) replies() (text string, cost float64, steps int, err error) {
	// A state in another workflow (scope/STATE.md) is replied to by its
	// name, as the runner is asked for it.
	name := func(s *analysis.Step) string { return path.Base(s.State) }
	agents := make(map[string][]string) // state → agents that ran it
	for _, s := range rc.run.Steps {
		if !slices.Contains(agents[name(s)], s.Agent) {
			agents[name(s)] = append(agents[name(s)], s.Agent)
		}
	}
	key := func(s *analysis.Step) string {
		if len(agents[name(s)]) > 1 {
			return s.Agent + "/" + name(s)
		}
		return name(s)
	}
	lists := make(map[string][]string)
	for _, s := range bySeq(rc.run) {
		if s.IsScript() && !rc.o.Scripts {
			if !slices.Contains(rc.real, s.State) {
				rc.real = append(rc.real, s.State)
			}
			steps++
			if s.Reminded {
				rc.reminders++
			}
			continue
		}
		outcome, standIn, err := rc.hist.replayAs(rc.run, s)
		switch {
		case err != nil:
			return "", 0, 0, err
		case outcome == skip:
			rc.left = append(rc.left, fmt.Sprintf("%s (%s)", s.Name, notReplayed(s.Outcome)))
			continue
		case standIn:
			rc.standIns[outcome] = append(rc.standIns[outcome], fmt.Sprintf("%s (%s)", s.Name, s.Outcome))
		}
		reply, err := rc.reply(s, outcome)
		if err != nil {
			return "", 0, 0, err
		}
		lists[key(s)] = append(lists[key(s)], reply)
		cost += s.CostUSD
		steps++
		if s.Reminded {
			rc.reminders++
		}
		if s.Retried {
			rc.retries++
		}
	}
	// The keys come in the order their first step started.
	var b strings.Builder
	for _, s := range rc.run.Steps {
		k := key(s)
		if len(lists[k]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "    %s:\n", rc.scalar(k, 0, false))
		for _, r := range lists[k] {
			b.WriteString(r)
		}
		delete(lists, k)
	}
	return b.String(), cost, steps, nil
}

// reply writes one reply, indented for its place under replies.
func (rc *recording) reply(s *analysis.Step, outcome string) (string, error) {
	const in = "        " // the keys of a reply, after "      - "
	var b strings.Builder
	if outcome != "" {
		fmt.Fprintf(&b, "      - outcome: %s\n", outcome)
		if s.CostUSD > 0 && outcome != "crash" && outcome != "timeout" {
			fmt.Fprintf(&b, "%scost: %s\n", in, money(s.CostUSD))
		}
		return b.String(), nil
	}
	if s.IsScript() && (s.Script == nil || !s.Script.Replayed) {
		return rc.scriptReply(s)
	}
	if !s.HasLines {
		return "", fmt.Errorf("step %s: its stream file is missing, so its answer is unknown and the run cannot be recorded", s.Name)
	}
	d, err := rc.o.Detail(s)
	if err != nil {
		return "", fmt.Errorf("step %s: %w", s.Name, err)
	}
	fmt.Fprintf(&b, "      - text: %s\n", rc.scalar(d.Answer, len(in), true))
	fmt.Fprintf(&b, "%stemplate: false\n", in)
	if s.CostUSD > 0 {
		fmt.Fprintf(&b, "%scost: %s\n", in, money(s.CostUSD))
	}
	return b.String(), nil
}

// scalar writes s as a YAML scalar for a value whose key is indented by
// indent spaces: plain or quoted on one line when it fits, else a block
// literal, whose lines are indented to match. answer marks a reply's text,
// checked by verify.
func (rc *recording) scalar(s string, indent int, answer bool) string {
	if answer {
		rc.answers = append(rc.answers, s)
	}
	text, err := marshalScalar(s)
	if err != nil || strings.ContainsAny(text, "\u0085\u2028\u2029") {
		return doubleQuoted(s)
	}
	if !strings.Contains(text, "\n") {
		return text
	}
	if text[0] != '|' && text[0] != '>' || !readsBack(text, s) {
		return doubleQuoted(s) // a quoted scalar folded over lines, or a block YAML would misread
	}
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = strings.Repeat(" ", indent) + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// flowScalar writes s as an item of a flow list ([a, b]), where a plain
// scalar may not hold the flow indicators.
func flowScalar(s string) string {
	text, err := marshalScalar(s)
	if err != nil || strings.ContainsAny(text, ",[]{}#\n\u0085\u2028\u2029") {
		return doubleQuoted(s)
	}
	return text
}

// marshalScalar writes s as YAML does, with yaml.v2's indentation of 2.
func marshalScalar(s string) (string, error) {
	var b strings.Builder
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(s); err != nil {
		return "", err
	}
	if err := e.Close(); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// readsBack reports whether the block scalar text, as a key's value, reads
// back as s: a literal whose first line starts with a tab does not.
func readsBack(text, s string) bool {
	var got map[string]string
	err := yaml.Unmarshal([]byte("k: "+text+"\n"), &got)
	return err == nil && got["k"] == s
}

// doubleQuoted writes s as a YAML double-quoted scalar on one line. Go's
// escapes (\n, \t, \", \\, \u2028, \U0001f600) are YAML's too; only
// invalid UTF-8, which a decoded stream never holds, would differ.
func doubleQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// verify reads the case back and checks that every answer reads back byte
// for byte: a recording that would replay something else is refused.
func (rc *recording) verify() error {
	var doc yaml.Node
	err := yaml.Unmarshal([]byte(rc.b.String()), &doc)
	items, _ := scripted.Value(&doc).([]any)
	if err != nil || len(items) != 1 {
		return fmt.Errorf("record run %s: the case written does not read back (%v); this is a bug in raymond", rc.run.ID, err)
	}
	var got []string
	replies, _ := lookup(items[0], "replies").(scripted.Mapping)
	for _, st := range replies {
		list, _ := st.Value.([]any)
		for _, r := range list {
			if t, ok := lookup(r, "text").(string); ok {
				got = append(got, t)
			}
		}
	}
	// Replies are written grouped by state, answers were collected in step
	// order: compare them as sets of texts with their counts.
	want := slices.Clone(rc.answers)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return fmt.Errorf("record run %s: an answer does not read back as it was written; this is a bug in raymond", rc.run.ID)
	}
	return nil
}

// scriptReply writes the reply of a script step recorded with
// RecordOptions.Scripts: what it wrote on stdout. A script that failed
// cannot be replayed by a reply.
func (rc *recording) scriptReply(s *analysis.Step) (string, error) {
	if s.Outcome != "success" {
		return "", fmt.Errorf("step %s: the script ended with %s, which a reply cannot replay; record without --scripts, so that the script runs for real", s.Name, s.Outcome)
	}
	data, err := os.ReadFile(filepath.Join(rc.run.Dir, s.Name+".stdout.txt"))
	if err != nil {
		return "", fmt.Errorf("step %s: its stdout is unknown, so its reply cannot be recorded (%w); record without --scripts, so that the script runs for real", s.Name, err)
	}
	const in = "        "
	var b strings.Builder
	fmt.Fprintf(&b, "      - text: %s\n", rc.scalar(string(data), len(in), true))
	fmt.Fprintf(&b, "%stemplate: false\n", in)
	return b.String(), nil
}
