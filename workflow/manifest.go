package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/internal/yamlerr"
)

// ManifestFile is the name of a folder's or a zip's manifest (§17).
const ManifestFile = "workflow.yaml"

// statesDir is the folder of the layout that keeps states beside, not in,
// the workflow's root (§17).
const statesDir = "states"

// Manifest is what a workflow says about itself (§17): workflow.yaml at the
// root of a folder or zip, or the top-level keys of a YAML workflow.
type Manifest struct {
	// ID, Name and Description are for listings; the CLI ignores them.
	ID, Name, Description string
	// Input says whether a run needs --input.
	Input ManifestInput
	// DefaultBudget is the budget in USD when --budget is not given; 0 is
	// unset.
	DefaultBudget float64
	// RequiresHumanInput is "auto" (also when absent), "true" or "false".
	RequiresHumanInput string
	// WorkingDirectory and Environment are for the daemon; the CLI ignores
	// them.
	WorkingDirectory string
	Environment      map[string]string
	// Backend is the backend's name: "" or "claude" are the ones raymond
	// runs.
	Backend string
	// Workspace is where the run's agents work unless --workspace or the
	// config says: "shared" or "worktree" (issue 22); "" says nothing.
	Workspace string
	// Merge is how workers' branches come back in the worktree mode:
	// "auto" or "none"; "" says nothing.
	Merge string
	// OnConflict is the state an agent goes to instead of its next one
	// when merges into its workspace conflicted, for states whose
	// frontmatter names none; "" for none.
	OnConflict string
	// Limits are the defaults of the workflow's states' max_turns,
	// loop_warn and loop_stop.
	Limits Limits
	// Schedule is when the daemon launches the workflow by itself; nil
	// for never. The CLI ignores it.
	Schedule *ManifestSchedule
	// Model and Fallbacks are the models of the workflow's states that
	// name none (model: [opus, sonnet]), before the run's --model.
	Model     string
	Fallbacks []string
	// MCP is the mcp_config of the states that name none; nil for none.
	MCP *MCPConfig
	// Warnings are unknown keys, one line each, as FILE:LINE: message.
	Warnings []string
}

// ManifestInput is the manifest's input rule.
type ManifestInput struct {
	// Mode is "required", "optional" or "none"; "" means optional.
	Mode string
	// Label and Description tell a person what to give.
	Label, Description string
}

// SupportedBackend reports whether raymond can run a workflow whose
// manifest names backend.
func SupportedBackend(backend string) bool { return backend == "" || backend == "claude" }

// manifestKeys are the top-level keys a manifest knows.
var manifestKeys = []string{"id", "name", "description", "input", "default_budget",
	"requires_human_input", "working_directory", "environment", "backend", "workspace", "merge", "on_conflict",
	keyMaxTurns, keyLoopWarn, keyLoopStop, "schedule", keyModel, keyMCP}

// parseManifest decodes a workflow.yaml file's content; name is its path for
// messages.
func parseManifest(name string, data []byte) (*Manifest, error) {
	d := &policyDecoder{name: name, cols: true}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, d.syntaxError(data, "invalid manifest", err)
	}
	m := &Manifest{RequiresHumanInput: "auto"}
	if len(doc.Content) == 0 || kind(doc.Content[0]) == "empty" {
		return m, nil
	}
	top := resolved(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		return nil, d.errorAt(top, "a manifest must be a mapping of keys to values, like \"name: review\"")
	}
	seen := make(map[string]bool)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := resolved(top.Content[i]), resolved(top.Content[i+1])
		if seen[k.Value] {
			return nil, d.errorAt(k, "key %q appears more than once", k.Value)
		}
		seen[k.Value] = true
		known, err := d.manifestKey(m, k, v)
		if err != nil {
			return nil, err
		}
		if !known {
			d.warnAt(k, "unknown manifest key %q ignored%s", k.Value, didYouMean(k.Value, manifestKeys))
		}
	}
	m.Warnings = d.warnings
	return m, nil
}

// manifestKey decodes one top-level manifest key into m; it reports false
// for a key a manifest does not know.
func (d *policyDecoder) manifestKey(m *Manifest, k, v *yaml.Node) (bool, error) {
	if kind(k) != "a text" || !slices.Contains(manifestKeys, k.Value) {
		return false, nil
	}
	var err error
	switch k.Value {
	case "id":
		m.ID, err = d.str(k, v)
	case "name":
		m.Name, err = d.str(k, v)
	case "description":
		m.Description, err = d.str(k, v)
	case "working_directory":
		m.WorkingDirectory, err = d.str(k, v)
	case "input":
		m.Input, err = d.manifestInput(k, v)
	case "default_budget":
		if kind(v) == "empty" {
			return true, nil
		}
		var f float64
		if kind(v) != "a number" || v.Decode(&f) != nil || f < 0 {
			return true, d.errorAt(k, "default_budget must be a number of USD, 0 or more, not %q", v.Value)
		}
		m.DefaultBudget = f
	case "requires_human_input":
		switch {
		case kind(v) == "empty":
		case kind(v) == "a boolean":
			m.RequiresHumanInput = fmt.Sprint(truth(v))
		case kind(v) == "a text" && v.Value == "auto":
		default:
			return true, d.errorAt(k, "requires_human_input must be auto, true or false, not %q", v.Value)
		}
	case "environment":
		m.Environment, err = d.stringMap(k, v)
	case "backend":
		m.Backend, err = d.backend(k, v)
	case "workspace":
		m.Workspace, err = d.oneOf(k, v, "shared", "worktree")
	case "merge":
		m.Merge, err = d.oneOf(k, v, "auto", "none")
	case "on_conflict":
		m.OnConflict, err = d.str(k, v)
	case keyMaxTurns:
		m.Limits.MaxTurns, err = d.count(k, v)
	case keyLoopWarn:
		m.Limits.LoopWarn, err = d.count(k, v)
	case keyLoopStop:
		m.Limits.LoopStop, err = d.count(k, v)
	case "schedule":
		m.Schedule, err = d.manifestSchedule(k, v)
	case keyModel:
		m.Model, m.Fallbacks, err = d.models(k, v)
	case keyMCP:
		m.MCP, err = d.decodeMCP(k, v)
	}
	return true, err
}

// manifestInput decodes the input mapping.
func (d *policyDecoder) manifestInput(k, v *yaml.Node) (ManifestInput, error) {
	var in ManifestInput
	if kind(v) == "empty" {
		return in, nil
	}
	if v.Kind != yaml.MappingNode {
		return in, d.errorAt(k, "input must be a mapping like { mode: required, label: \"Ticket\" }")
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		ik, iv := resolved(v.Content[i]), resolved(v.Content[i+1])
		var err error
		switch ik.Value {
		case "mode":
			in.Mode, err = d.str(ik, iv)
			if err == nil && !slices.Contains([]string{"", "required", "optional", "none"}, in.Mode) {
				err = d.errorAt(ik, "input.mode must be required, optional or none, not %q", in.Mode)
			}
		case "label":
			in.Label, err = d.str(ik, iv)
		case "description":
			in.Description, err = d.str(ik, iv)
		default:
			d.warnAt(ik, "unknown key %q under input ignored", ik.Value)
		}
		if err != nil {
			return ManifestInput{}, err
		}
	}
	return in, nil
}

// stringMap decodes a mapping of strings to strings.
func (d *policyDecoder) stringMap(k, v *yaml.Node) (map[string]string, error) {
	if kind(v) == "empty" {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, d.errorAt(k, "%s must be a mapping of names to strings", k.Value)
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		ek, ev := resolved(v.Content[i]), resolved(v.Content[i+1])
		if ev.Kind != yaml.ScalarNode || ek.Kind != yaml.ScalarNode {
			return nil, d.errorAt(ek, "%s.%s must be a string", k.Value, ek.Value)
		}
		m[ek.Value] = ev.Value
	}
	return m, nil
}

// backend decodes backend: a name, or a mapping {name, options}.
func (d *policyDecoder) backend(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.MappingNode {
		return d.str(k, v)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		bk, bv := resolved(v.Content[i]), resolved(v.Content[i+1])
		switch bk.Value {
		case "name":
			return d.str(bk, bv)
		case "options":
		default:
			d.warnAt(bk, "unknown key %q under backend ignored", bk.Value)
		}
	}
	return "", nil
}

// warnAt records a warning naming the file and the place of n.
func (d *policyDecoder) warnAt(n *yaml.Node, format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf("%s:%d: %s", d.name, d.openLine+n.Line, fmt.Sprintf(format, args...)))
}

// syntaxError rewrites a YAML syntax error so that it names the file and
// the line.
func (d *policyDecoder) syntaxError(data []byte, what string, err error) error {
	line, msg := yamlerr.Locate(data, err)
	return d.errorf(line, "%s: %s", what, msg)
}

// folderManifest reads the manifest of a folder scope: its own
// workflow.yaml, or for a folder named states/ without one, its parent's.
func folderManifest(s *Scope) (*Manifest, error) {
	path := filepath.Join(s.dir, ManifestFile)
	data, err := readRegular(path, func() ([]byte, error) { return fs.ReadFile(s.fsys, ManifestFile) })
	if errors.Is(err, fs.ErrNotExist) && filepath.Base(s.dir) == statesDir {
		path = filepath.Join(filepath.Dir(s.dir), ManifestFile)
		data, err = readRegular(path, func() ([]byte, error) { return os.ReadFile(path) })
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return parseManifest(path, data)
}

// readRegular reads the file at path with read, unless it is there but not
// a regular file: a FIFO named workflow.yaml would block a reader for ever.
func readRegular(path string, read func() ([]byte, error)) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a folder, not a manifest file", path)
		}
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return read()
}

// oneOf decodes a text that must be one of values.
func (d *policyDecoder) oneOf(k, v *yaml.Node, values ...string) (string, error) {
	if kind(v) == "empty" {
		return "", nil
	}
	s, err := d.str(k, v)
	if err != nil {
		return "", err
	}
	if !slices.Contains(values, s) {
		return "", d.errorAt(k, "%s must be %s or %s, not %q", k.Value, strings.Join(values[:len(values)-1], ", "), values[len(values)-1], s)
	}
	return s, nil
}
