package scripted

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// A replies file is read with yaml.v3 into nodes, and Value turns the
// nodes into plain values: string, int, int64, uint64, float64, bool, nil,
// []any, or Mapping for a mapping, scalars read as YAML 1.1 reads them
// (yes, no, on and off are booleans), as the files were always read. The
// helpers below read one value of a reply; their errors say what the value
// should be.

// Mapping is a YAML mapping as Value decodes it: its keys and values in the
// order written, duplicates kept for the reader to refuse.
type Mapping []Item

// Item is one key of a Mapping and its value.
type Item struct {
	Key, Value any
}

// bools11 are the plain scalars YAML 1.1 reads as booleans, with their
// value.
var bools11 = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

// Value decodes the YAML node n into a plain value (see above); a nil node
// is nil. A file that embeds replies (a workflow test) decodes its replies
// key with it before it calls ParseValue.
func Value(n *yaml.Node) any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return Value(n.Content[0])
	case yaml.AliasNode:
		return Value(n.Alias)
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, item := range n.Content {
			list[i] = Value(item)
		}
		return list
	case yaml.MappingNode:
		m := make(Mapping, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.ShortTag() == "!!merge" {
				m = append(m, merged(v)...)
				continue
			}
			m = append(m, Item{Key: Value(k), Value: Value(v)})
		}
		return m
	}
	if n.Style != 0 {
		return n.Value // quoted, literal or folded: a text
	}
	if b, ok := bools11[n.Value]; ok {
		return b
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err == nil {
			return v
		}
	}
	return n.Value
}

// merged returns the items a merge key (<<) brings in: those of the mapping
// it names, or of each mapping of a list.
func merged(n *yaml.Node) Mapping {
	switch v := Value(n).(type) {
	case Mapping:
		return v
	case []any:
		var m Mapping
		for _, item := range v {
			if mm, ok := item.(Mapping); ok {
				m = append(m, mm...)
			}
		}
		return m
	}
	return nil
}

// Describe shows a decoded YAML value in an error message: a scalar as
// written, a mapping or a list by its kind. Test files, which embed
// replies, word their errors the same way.
func Describe(v any) string {
	switch v := v.(type) {
	case Mapping:
		return "a mapping"
	case []any:
		return "a list"
	case nil:
		return "nothing"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

// text reads a string.
func text(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is not a text; quote it", Describe(v))
	}
	return s, nil
}

// fileName reads the name of a file: a string that is not empty.
func fileName(v any) (string, error) {
	s, err := text(v)
	if err == nil && s == "" {
		err = errors.New("must name a file, such as go or release/{{item}}")
	}
	return s, err
}

// texts reads a list of strings, or one string as a list of one.
func texts(v any) ([]string, error) {
	if s, ok := v.(string); ok {
		return []string{s}, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("must be a list of texts")
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, err := text(item)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// boolean reads true or false.
func boolean(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s is not true or false", Describe(v))
	}
	return b, nil
}

// number reads an integer or a decimal number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// count reads a whole number of steps, 0 or more.
func count(v any) (int, error) {
	n, ok := v.(int)
	if !ok || n < 0 {
		return 0, fmt.Errorf("%s is not a number of steps; give a whole number, 0 or more", Describe(v))
	}
	return n, nil
}

// cost reads an amount in USD, 0 or more.
func cost(v any) (float64, error) {
	c, ok := number(v)
	if !ok || c < 0 || math.IsInf(c, 0) || math.IsNaN(c) {
		return 0, fmt.Errorf("%s is not a cost; give an amount in USD, 0 or more, such as 0.0123", Describe(v))
	}
	return c, nil
}

// duration reads a Go duration ("1m30s"), or a bare number of seconds, not
// negative.
func duration(v any) (time.Duration, error) {
	var d time.Duration
	switch s := v.(type) {
	case string:
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			if secs, err := strconv.ParseFloat(s, 64); err == nil {
				return duration(secs)
			}
			return 0, fmt.Errorf("%s is not a duration; write a Go duration such as 500ms, 2s or 1m30s", Describe(s))
		}
	default:
		secs, ok := number(v)
		if !ok || math.IsNaN(secs) || math.Abs(secs) > math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("%s is not a duration; write a Go duration such as 500ms, 2s or 1m30s", Describe(v))
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative; give a duration of 0 or more", Describe(v))
	}
	return d, nil
}

// object reads a mapping as JSON would carry it, nested mappings and lists
// included; every key must be a string.
func object(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	if _, ok := v.(Mapping); !ok {
		return nil, errors.New("must be a mapping, such as {command: ls}")
	}
	out, err := jsonValue(v)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// jsonValue converts a decoded YAML value into one encoding/json can write.
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case Mapping:
		m := make(map[string]any, len(v))
		for _, item := range v {
			key, ok := item.Key.(string)
			if !ok {
				// YAML 1.1 reads y, n, on, off… as booleans.
				return nil, fmt.Errorf("key %s is not a text; quote it", Describe(item.Key))
			}
			val, err := jsonValue(item.Value)
			if err != nil {
				return nil, err
			}
			m[key] = val
		}
		return m, nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			val, err := jsonValue(item)
			if err != nil {
				return nil, err
			}
			out[i] = val
		}
		return out, nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%v cannot be written as JSON", v)
		}
	}
	return v, nil
}
