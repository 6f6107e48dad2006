package workflow

import (
	"go.yaml.in/yaml/v3"

	"raymond/internal/yamlerr"
)

// Frontmatter is read as yaml.v2 read it before (YAML 1.1): a plain yes,
// no, on, off, y or n is a boolean, so "payload: yes" is refused rather
// than taken as the text "yes".

// bools11 are the plain scalars YAML 1.1 reads as booleans, with their
// value.
var bools11 = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

// resolved follows an alias to the node it names.
func resolved(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// kind names what the node holds, for decisions and error messages:
// "empty", "a boolean", "a number", "a list", "a mapping" or "a text".
func kind(n *yaml.Node) string {
	n = resolved(n)
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if _, ok := bools11[n.Value]; ok && n.Kind == yaml.ScalarNode && n.Style == 0 {
		return "a boolean"
	}
	switch n.ShortTag() {
	case "!!null":
		return "empty"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	}
	return "a text"
}

// truth is the value of a node kind calls a boolean.
func truth(n *yaml.Node) bool { return bools11[resolved(n).Value] }

// yamlError rewrites a YAML error so that it names the file and the line in
// the file rather than in the frontmatter.
func (d *policyDecoder) yamlError(data []byte, err error) error {
	line, msg := yamlerr.Locate(data, err)
	return d.errorf(line, "invalid frontmatter: %s", msg)
}
