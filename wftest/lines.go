package wftest

import "go.yaml.in/yaml/v3"

// Error messages point at the line of the value they are about, found in
// the YAML nodes the file was read into: a path is a sequence of keys
// (string) and list positions (int, from 0), such as
// cases[2].replies.WORKER[1].

// lineOf returns the line of the value at path under root: the line of its
// key, or of its list item; where the path goes further than the file, the
// line of the deepest part of it that exists; 0 when not even the first
// part does.
func lineOf(root *yaml.Node, path ...any) int {
	line, n := 0, root
	for _, p := range path {
		l, next := child(n, p)
		if next == nil {
			break
		}
		line, n = l, next
	}
	return line
}

// child returns the value of n that p names, the key p of a mapping or the
// p-th item of a list, and the line where it is written (its key's line for
// a key).
func child(n *yaml.Node, p any) (int, *yaml.Node) {
	if n == nil {
		return 0, nil
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch p := p.(type) {
	case string:
		if n.Kind != yaml.MappingNode {
			return 0, nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == p {
				return k.Line, n.Content[i+1]
			}
		}
	case int:
		if n.Kind == yaml.SequenceNode && p >= 0 && p < len(n.Content) {
			return n.Content[p].Line, n.Content[p]
		}
	}
	return 0, nil
}

// lineOfSecond returns the line of the second key key in the mapping at
// path, where a duplicate is; else the line of the mapping.
func lineOfSecond(root *yaml.Node, path []any, key string) int {
	n := root
	for _, p := range path {
		if _, n = child(n, p); n == nil {
			return lineOf(root, path...)
		}
	}
	seen := 0
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == key {
			if seen++; seen == 2 {
				return k.Line
			}
		}
	}
	return lineOf(root, path...)
}
