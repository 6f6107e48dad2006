package workflow

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"raymond/parsing"
)

// Windows script extensions: such states may sit in a scope but never run
// here (§11.1).
const (
	batExt = ".bat"
	ps1Ext = ".ps1"
)

// scriptKeys map a YAML state's script keys to the extension of the virtual
// file each one makes.
var scriptKeys = map[string]string{"sh": shExt, "bat": batExt, "ps1": ps1Ext}

// yamlWorkflow is a YAML workflow's file, parsed (§12).
type yamlWorkflow struct {
	// states maps each virtual file name (NAME.md, NAME.sh, …) to its
	// state.
	states   map[string]*yamlState
	manifest *Manifest
}

// yamlState is one virtual file of a YAML workflow.
type yamlState struct {
	body     string
	script   bool
	policy   Policy
	warnings []string
	line     int
}

// parseYAMLWorkflow reads a YAML workflow from data; name is the file's
// path, used in messages as FILE:LINE:COL.
func parseYAMLWorkflow(name string, data []byte) (*yamlWorkflow, error) {
	d := &policyDecoder{name: name, cols: true}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, d.syntaxError(data, "invalid YAML", err)
	}
	if len(doc.Content) == 0 || kind(doc.Content[0]) == "empty" {
		return nil, d.errorf(0, "the file is empty; a YAML workflow needs a states: map of state names to states")
	}
	top := resolved(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		return nil, d.errorAt(top, "a YAML workflow must be a mapping with a states: key, not %s", kind(top))
	}
	wf := &yamlWorkflow{states: make(map[string]*yamlState), manifest: &Manifest{RequiresHumanInput: "auto"}}
	var states *yaml.Node
	var stateLike, manifestLike bool
	seen := make(map[string]bool)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := resolved(top.Content[i]), resolved(top.Content[i+1])
		if seen[k.Value] {
			return nil, d.errorAt(k, "key %q appears more than once", k.Value)
		}
		seen[k.Value] = true
		if k.Value == "states" && kind(k) == "a text" {
			states = top.Content[i+1]
			continue
		}
		known, err := d.manifestKey(wf.manifest, k, v)
		if err != nil {
			return nil, err
		}
		if known {
			manifestLike = true
			continue
		}
		if v.Kind == yaml.MappingNode && hasAnyKey(v, "prompt", "sh", "bat", "ps1") {
			stateLike = true
		}
		d.warnAt(k, "unknown top-level key %q ignored%s", k.Value, didYouMean(k.Value, append([]string{"states"}, manifestKeys...)))
	}
	wf.manifest.Warnings = d.warnings
	if states == nil {
		switch {
		case seen["cases"]:
			// A *.test.yaml given where a workflow is wanted: fixing it by
			// adding states: would be the wrong fix.
			return nil, d.errorAt(top, "no states: key; this is a workflow test (it has cases:), not a workflow: raymond test runs it, and the workflow it tests is the one its workflow: key names")
		case stateLike:
			return nil, d.errorAt(top, "no states: key; put the states under one, like states: { START: { prompt: \"…\" } }")
		case manifestLike:
			return nil, d.errorAt(top, "no states: key; this looks like a manifest (%s): start from the folder that holds it", ManifestFile)
		}
		return nil, d.errorAt(top, "no states: key; a YAML workflow maps state names to states under states:")
	}
	return wf, wf.parseStates(d, states)
}

// parseStates reads the states: map.
func (wf *yamlWorkflow) parseStates(d *policyDecoder, n *yaml.Node) error {
	n = resolved(n)
	if n.Kind != yaml.MappingNode {
		return d.errorAt(n, "states must be a mapping of state names to states, not %s", kind(n))
	}
	if len(n.Content) == 0 {
		return d.errorAt(n, "states is empty; add at least one state, like START: { prompt: \"…\" }")
	}
	names := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolved(n.Content[i]), resolved(n.Content[i+1])
		name := k.Value
		if names[name] {
			return d.errorAt(k, "state %q appears more than once", name)
		}
		names[name] = true
		if err := d.stateName(k); err != nil {
			return err
		}
		if err := wf.parseState(d, k, v); err != nil {
			return err
		}
	}
	return nil
}

// stateName refuses a state name that cannot be a virtual file's stem.
func (d *policyDecoder) stateName(k *yaml.Node) error {
	name := k.Value
	switch {
	case kind(k) != "a text" && kind(k) != "a number":
		return d.errorAt(k, "state name must be a string, not %s", kind(k))
	case name == "":
		return d.errorAt(k, "state name is empty")
	case strings.ContainsAny(name, `/\`):
		return d.errorAt(k, "state name %q contains a / or \\; name it like a file, without a folder", name)
	}
	for _, ext := range []string{mdExt, shExt, batExt, ps1Ext} {
		if strings.HasSuffix(name, ext) {
			return d.errorAt(k, "state name %q ends in %s; write it without an extension (%s names %s)", name, ext, strings.TrimSuffix(name, ext), name)
		}
	}
	if err := parsing.ValidTarget(name); err != nil {
		return d.errorAt(k, "state name %q: %v", name, err)
	}
	return nil
}

// parseState reads the state written at key k, value v.
func (wf *yamlWorkflow) parseState(parent *policyDecoder, k, v *yaml.Node) error {
	name := k.Value
	d := &policyDecoder{name: parent.name, cols: true}
	if v.Kind != yaml.MappingNode {
		return d.errorAt(k, "state %q must be a mapping with prompt or sh, not %s", name, kind(v))
	}
	var p Policy
	var prompt *string
	scripts := make(map[string]string)
	var policyKey, forceKey *yaml.Node
	var toolKey []*yaml.Node
	seen := make(map[string]bool)
	for i := 0; i+1 < len(v.Content); i += 2 {
		sk, sv := resolved(v.Content[i]), resolved(v.Content[i+1])
		key := sk.Value
		if seen[key] {
			return d.errorAt(sk, "state %q: key %q appears more than once", name, key)
		}
		seen[key] = true
		switch _, script := scriptKeys[key]; {
		case key == "prompt":
			s, err := d.text(sk, sv)
			if err != nil {
				return err
			}
			prompt = &s
			continue
		case script:
			s, err := d.text(sk, sv)
			if err != nil {
				return err
			}
			scripts[key] = s
			continue
		}
		known, err := d.policyKey(&p, sk, sv)
		if err != nil {
			return err
		}
		switch {
		case !known:
			d.warnAt(sk, "state %q: unknown key %q ignored", name, key)
		case key == keyForceImplicit:
			forceKey = sk
		}
		switch {
		case !known || scriptKey(key):
		case slices.Contains(toolKeys, key):
			toolKey = append(toolKey, sk)
		case policyKey == nil:
			policyKey = sk
		}
	}
	if prompt == nil && len(scripts) > 0 {
		// A script calls no claude, so it has no tools to limit. Unlike
		// model, these keys are not refused: they only ever take away,
		// so ignoring them cannot give the step more than was written.
		for _, tk := range toolKey {
			d.warnAt(tk, "state %q is a script, so %s does nothing: a script has no tools to limit; remove it", name, tk.Value)
		}
	}
	switch {
	case prompt != nil && len(scripts) > 0:
		return d.errorAt(k, "state %q has both prompt and a script; a state is one or the other", name)
	case prompt == nil && len(scripts) == 0:
		return d.errorAt(k, "state %q has neither prompt nor sh; give it one", name)
	case prompt == nil && policyKey != nil:
		return d.errorAt(policyKey, "state %q is a script, but %s applies to prompts only; remove it", name, policyKey.Value)
	case prompt != nil && strings.TrimSpace(*prompt) == "":
		return d.errorAt(k, "state %q has an empty prompt; write what the agent should do", name)
	}
	if err := d.checkImplicit(p, forceKey); err != nil {
		return err
	}
	d.checkCap(p)
	if prompt != nil {
		wf.states[name+mdExt] = &yamlState{body: *prompt, policy: p, warnings: d.warnings, line: k.Line}
		return nil
	}
	for key, body := range scripts {
		wf.states[name+scriptKeys[key]] = &yamlState{body: body, script: true,
			policy: Policy{Timeout: p.Timeout, MaxVisits: p.MaxVisits, OnMaxVisits: p.OnMaxVisits}, warnings: d.warnings, line: k.Line}
	}
	return nil
}

// scriptKey reports whether a script state of a YAML workflow takes the
// policy key: its idle timeout, and its visit cap, which counts entries
// whatever the state runs.
func scriptKey(key string) bool {
	return key == keyTimeout || key == keyMaxVisits || key == keyOnMaxVisits
}

// text decodes a prompt or a script: a string, possibly empty.
func (d *policyDecoder) text(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || kind(v) == "empty" && v.Value != "" {
		return "", d.errorAt(k, "%s must be a string (use a block: %s: |), not %s", k.Value, k.Value, kind(v))
	}
	return v.Value, nil
}

// hasAnyKey reports whether the mapping n has one of keys.
func hasAnyKey(n *yaml.Node, keys ...string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if slices.Contains(keys, n.Content[i].Value) {
			return true
		}
	}
	return false
}

// yamlSource is a YAML workflow's file, read again when it changed so that
// an edit takes effect at the next step (§12).
type yamlSource struct {
	path string

	mu   sync.Mutex
	data []byte // the bytes wf and err were parsed from
	wf   *yamlWorkflow
	err  error
}

// maxYAMLBytes caps what a YAML workflow's file may hold.
const maxYAMLBytes = 16 << 20

// load returns the workflow as the file holds it now.
func (y *yamlSource) load() (*yamlWorkflow, error) {
	y.mu.Lock()
	defer y.mu.Unlock()
	fi, err := os.Stat(y.path)
	if err != nil {
		return nil, fmt.Errorf("read YAML workflow: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", y.path)
	}
	if fi.Size() > maxYAMLBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB; a YAML workflow is a short file", y.path, maxYAMLBytes>>20)
	}
	data, err := os.ReadFile(y.path)
	if err != nil {
		return nil, fmt.Errorf("read YAML workflow: %w", err)
	}
	// The file is read at every use and parsed again only when its bytes
	// changed: a modification time can stay the same across a quick edit
	// of the same size (timestamps are coarse), and the file is short.
	if (y.wf != nil || y.err != nil) && bytes.Equal(data, y.data) {
		return y.wf, y.err
	}
	y.wf, y.err = parseYAMLWorkflow(y.path, data)
	y.data = data
	return y.wf, y.err
}

// stat returns the information of the virtual file name.
func (y *yamlSource) stat(name string) (fs.FileInfo, error) {
	wf, err := y.load()
	if err != nil {
		return nil, err
	}
	st, ok := wf.states[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return virtualInfo{name: name, size: int64(len(st.body))}, nil
}

// virtualInfo describes a state of a YAML workflow as a regular file.
type virtualInfo struct {
	name string
	size int64
}

func (v virtualInfo) Name() string       { return v.name }
func (v virtualInfo) Size() int64        { return v.size }
func (v virtualInfo) Mode() fs.FileMode  { return 0o444 }
func (v virtualInfo) ModTime() time.Time { return time.Time{} }
func (v virtualInfo) IsDir() bool        { return false }
func (v virtualInfo) Sys() any           { return nil }

// openYAML opens the YAML workflow at path (absolute) as a scope.
func openYAML(path string) (*Scope, error) {
	src := &yamlSource{path: path}
	wf, err := src.load()
	if err != nil {
		return nil, err
	}
	return &Scope{dir: path, kind: YAML, yaml: src, manifest: wf.manifest, name: scopeName(path)}, nil
}
