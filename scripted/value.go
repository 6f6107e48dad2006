package scripted

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"gopkg.in/yaml.v2"
)

// The helpers below read one value of a reply as yaml.v2 decodes it into an
// interface: string, int, int64, uint64, float64, bool, nil, []any, or
// yaml.MapSlice for a mapping. Their errors say what the value should be.

// Describe shows a decoded YAML value in an error message: a scalar as
// written, a mapping or a list by its kind. Test files, which embed
// replies, word their errors the same way.
func Describe(v any) string {
	switch v := v.(type) {
	case yaml.MapSlice:
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
	if _, ok := v.(yaml.MapSlice); !ok {
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
	case yaml.MapSlice:
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
