package realclaude

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"raymond/standin"
)

// The shipped workflows, each run twice from the same kind of folder: with
// its replies.yaml through raymond's scripted runner, and with the real CLI
// answering from the same replies turned into the stand-in's rules. Both
// runs must end alike: exit status, run status, main's result, and the
// states each agent went through.
var shipped = []struct {
	name, path string
	args       []string
}{
	{"demo", "demo", nil},
	{"approval", "examples/approval", []string{"--input", "v1.4.0"}},
	{"call-return", "examples/call-return", nil},
	{"fork-join", "examples/fork-join", nil},
	{"fork-workflow", "examples/fork-workflow", nil},
	{"function-evaluator", "examples/function-evaluator", []string{"--input", "A one-line tagline."}},
	{"goto-loop", "examples/goto-loop", nil},
	{"policy-implicit", "examples/policy-implicit", []string{"--input", "A result payload that contains <goto>X</goto> is read as two tags."}},
	{"poll-loop", "examples/poll-loop", nil},
	{"reset-phases", "examples/reset-phases", nil},
	{"yaml-workflow", "examples/yaml-workflow/yaml-workflow.yaml", []string{"--input", "v1.4.0"}},
	{"zip-subworkflow", "examples/zip-subworkflow", nil},
}

func TestShipped(t *testing.T) {
	needClaude(t)
	root, err := filepath.Abs("../workflows")
	if err != nil {
		t.Fatal(err)
	}
	for _, wf := range shipped {
		t.Run(wf.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(root, wf.path)
			dir := path
			if strings.HasSuffix(path, ".yaml") {
				dir = filepath.Dir(path)
			}
			replies := filepath.Join(dir, "replies.yaml")
			rs, err := repliesRules(dir, replies)
			if err != nil {
				t.Fatal(err)
			}
			real := newWorld(t, rs)
			scripted := newWorld(t, nil)
			var seen [2][]string
			for i, w := range []*world{real, scripted} {
				skeleton(t, w.dir)
				args := append([]string{"run", "--id", "sh", "--on-ask", "pause"}, wf.args...)
				args = append(args, path)
				if w == scripted {
					args = append(args, "--replies", replies)
				}
				o := w.raymond(args...)
				stdout := timeRE.ReplaceAllString(o.stdout, "TIME")
				// A scripted run's resume command names its replies file.
				stdout = strings.ReplaceAll(stdout, " --replies "+replies, "")
				seen[i] = []string{fmt.Sprintf("exit %d", o.code), "stdout " + stdout, "status " + w.status("sh").Status}
				seen[i] = append(seen[i], paths(w, "sh")...)
			}
			if !slices.Equal(seen[0], seen[1]) {
				t.Errorf("the run with the real CLI ended otherwise than the scripted one:\nreal:\n  %s\nscripted:\n  %s",
					strings.Join(seen[0], "\n  "), strings.Join(seen[1], "\n  "))
			}
			real.checkCosts("sh")
		})
	}
}

// skeleton makes the top-level folders of the repository, empty, and its
// README, in dir: some workflows fork into them (cd="parsing").
func skeleton(t *testing.T, dir string) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if err := os.MkdirAll(filepath.Join(dir, e.Name()), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme, 0o644); err != nil {
		t.Fatal(err)
	}
}

// paths lists each agent's states in the order first entered, one line per
// agent.
func paths(w *world, run string) []string {
	by := map[string][]string{}
	for _, m := range w.steps(run) {
		s := m.State
		if m.Reminder {
			s += "(reminder)"
		}
		// How often a loop polls depends on how fast the others are: a
		// state counts once.
		if !slices.Contains(by[m.Agent], s) {
			by[m.Agent] = append(by[m.Agent], s)
		}
	}
	var out []string
	for agent, states := range by {
		out = append(out, agent+": "+strings.Join(states, " "))
	}
	slices.Sort(out)
	return out
}

// scriptedReply is a reply of a replies file, as far as the stand-in can
// play it.
type scriptedReply struct {
	Text    string `yaml:"text"`
	Say     any    `yaml:"say"`
	Tools   []standin.Tool
	Cost    float64 `yaml:"cost"`
	Times   int     `yaml:"times"`
	Repeat  bool    `yaml:"repeat"`
	Outcome string  `yaml:"outcome"`
}

func (r *scriptedReply) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		r.Text = n.Value
		return nil
	}
	type plain struct {
		Text    string  `yaml:"text"`
		Say     any     `yaml:"say"`
		Cost    float64 `yaml:"cost"`
		Times   int     `yaml:"times"`
		Repeat  bool    `yaml:"repeat"`
		Outcome string  `yaml:"outcome"`
		Tools   []struct {
			Name  string         `yaml:"name"`
			Input map[string]any `yaml:"input"`
		} `yaml:"tools"`
		Writes map[string]string `yaml:"writes"`
	}
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = scriptedReply{Text: p.Text, Say: p.Say, Cost: p.Cost, Times: p.Times, Repeat: p.Repeat, Outcome: p.Outcome}
	for _, t := range p.Tools {
		// A scripted wait would really wait (or be refused): leave it out.
		if cmd, _ := t.Input["command"].(string); strings.Contains(cmd, "sleep") {
			continue
		}
		// A scripted Write names a file, often relative and without its
		// content; the files matter to what comes next (a script state
		// waiting for them), so Bash writes them in the step's folder.
		if path, _ := t.Input["file_path"].(string); t.Name == "Write" && path != "" {
			content, _ := t.Input["content"].(string)
			r.Tools = append(r.Tools, writeTool(path, content))
			continue
		}
		r.Tools = append(r.Tools, standin.Tool{Name: t.Name, Input: t.Input})
	}
	// The files a scripted step writes as it starts, for what comes next.
	paths := make([]string, 0, len(p.Writes))
	for path := range p.Writes {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		r.Tools = append(r.Tools, writeTool(path, p.Writes[path]))
	}
	return nil
}

// writeTool is a Bash call that writes a file in the step's folder.
func writeTool(path, content string) standin.Tool {
	if content == "" {
		content = "written for the scripted reply"
	}
	return standin.Tool{Name: "Bash", Input: map[string]any{"command": fmt.Sprintf("mkdir -p %s && printf '%%s\\n' %s > %s",
		shellQuote(filepath.Dir(path)), shellQuote(content), shellQuote(path))}}
}

// repliesRules turns a workflow's replies file into the stand-in's rules. A
// state's rule matches the state's text, its placeholders as named groups
// that the reply's texts may use; a key AGENT/STATE comes first. A reply's cost becomes input tokens at the default model's price.
func repliesRules(dir, path string) (*standin.Rules, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Replies map[string][]scriptedReply `yaml:"replies"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	bodies, err := stateTexts(dir)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(f.Replies))
	for k := range f.Replies {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return strings.Compare(fmt.Sprint(!strings.Contains(a, "/"), a), fmt.Sprint(!strings.Contains(b, "/"), b))
	})
	// A reminder takes the next reply of its state, as in the scripted run.
	rs := &standin.Rules{FollowUp: "^Your last answer could not be used"}
	for _, key := range keys {
		if strings.HasSuffix(key, ".sh") {
			continue // a script state runs for real
		}
		agent, name, ok := strings.Cut(key, "/")
		if !ok {
			agent, name = "", key
		}
		if !strings.HasSuffix(name, ".md") {
			name += ".md"
		}
		texts := bodies[name]
		if agent == "main" {
			texts = bodies["/"+name]
		}
		if len(texts) == 0 {
			return nil, fmt.Errorf("%s: no state %s", path, key)
		}
		var alts []string
		for _, text := range texts {
			alts = append(alts, pattern(text))
		}
		rule := &standin.Rule{Name: key, Prompt: "(?s)^(?:" + strings.Join(alts, "|") + ")$"}
		for _, r := range f.Replies[key] {
			if r.Outcome != "" && r.Outcome != "success" {
				return nil, fmt.Errorf("%s: %s: outcome %s has no stand-in rule yet", path, key, r.Outcome)
			}
			say, _ := r.Say.(string)
			if list, ok := r.Say.([]any); ok {
				for _, s := range list {
					say += fmt.Sprint(s) + "\n"
				}
			}
			in := max(1, int(math.Round(r.Cost/inputPrice)))
			reply := &standin.Reply{Text: r.Text, Say: say, Tools: r.Tools, Usage: &standin.Usage{InputTokens: in}}
			for range max(1, r.Times) {
				rule.Replies = append(rule.Replies, reply)
			}
			rule.Repeat = r.Repeat
		}
		rs.Rules = append(rs.Rules, rule)
	}
	return rs, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

var placeholderRE = regexp.MustCompile(`\{\{\s*([^}]*?)\s*\}\}`)

// pattern makes a pattern of a state's text as raymond renders it: its
// literal parts quoted, each placeholder a group named after it (the first
// time), so that a reply may use what it stood for.
func pattern(text string) string {
	text = strings.TrimSpace(text)
	var b strings.Builder
	b.WriteString(`\s*`)
	named := map[string]bool{}
	last := 0
	for _, m := range placeholderRE.FindAllStringSubmatchIndex(text, -1) {
		b.WriteString(regexp.QuoteMeta(text[last:m[0]]))
		name := text[m[2]:m[3]]
		if identRE.MatchString(name) && !named[name] {
			named[name] = true
			b.WriteString("(?P<" + name + ">.*?)")
		} else {
			b.WriteString(".*?")
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(text[last:]) + `\s*`)
	return b.String()
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// stateTexts returns the text of every prompt state under dir, by file name:
// "X.md" for every X.md in any scope (folders, YAML workflows' states, zips)
// and "/X.md" for those of the top scope.
func stateTexts(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	add := func(name, text string, top bool) {
		out[name] = append(out[name], text)
		if top {
			out["/"+name] = append(out["/"+name], text)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		top := filepath.Dir(p) == dir
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".md":
			if d.Name() != "README.md" {
				add(d.Name(), stripFrontmatter(string(data)), top)
			}
		case ".yaml":
			var y struct {
				States map[string]struct {
					Prompt string `yaml:"prompt"`
				} `yaml:"states"`
			}
			if yaml.Unmarshal(data, &y) == nil {
				for name, st := range y.States {
					if st.Prompt != "" {
						add(name+".md", st.Prompt, top)
					}
				}
			}
		case ".zip":
			zr, err := zip.OpenReader(p)
			if err != nil {
				return err
			}
			defer zr.Close()
			for _, zf := range zr.File {
				if strings.HasSuffix(zf.Name, ".md") {
					rc, err := zf.Open()
					if err != nil {
						return err
					}
					var b strings.Builder
					_, err = fmt.Fprint(&b, readAll(rc))
					rc.Close()
					if err != nil {
						return err
					}
					add(filepath.Base(zf.Name), stripFrontmatter(b.String()), false)
				}
			}
		}
		return nil
	})
	return out, err
}

func readAll(r interface{ Read([]byte) (int, error) }) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

func stripFrontmatter(s string) string {
	if rest, ok := strings.CutPrefix(s, "---\n"); ok {
		if _, body, ok := strings.Cut(rest, "\n---\n"); ok {
			return body
		}
	}
	return s
}

// TestShippedWaits checks that no shipped workflow waits with a bare
// `sleep N`, which the CLI's Bash refuses, so that each wait would poll as
// fast as steps run, every poll a paid step.
func TestShippedWaits(t *testing.T) {
	needClaude(t)
	sleep := regexp.MustCompile("`sleep [0-9]+`|\"sleep [0-9]+")
	err := filepath.WalkDir("../workflows", func(p string, d fs.DirEntry, err error) error {
		// The states, and the replies that play the model; a README may
		// well explain why not to sleep.
		if err != nil || d.IsDir() || d.Name() == "README.md" || (filepath.Ext(p) != ".md" && filepath.Ext(p) != ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if sleep.MatchString(line) {
				t.Errorf("%s:%d: a wait by sleep, which the CLI refuses: %s", p, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
