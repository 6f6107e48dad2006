package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// configKeys are the keys .raymond/config.toml may hold, in the order the
// error message lists them. They mirror the flags of run; --input is not one.
var configKeys = []string{
	"model", "effort", "budget", "max_parallel", "timeout", "no_wait",
	"permission_mode", "dangerously_skip_permissions", "claude", "debug", "quiet",
}

// config is the content of .raymond/config.toml. A nil field is a key the
// file does not set.
type config struct {
	model           *string
	effort          *string
	budget          *float64
	maxParallel     *int
	timeout         *time.Duration
	noWait          *bool
	permissionMode  *string
	skipPermissions *bool
	claude          *string
	debug           *bool
	quiet           *bool
}

// configPath returns the config file of a project.
func configPath(project string) string {
	return filepath.Join(project, ".raymond", "config.toml")
}

// loadConfig reads the config file at path. A missing file is an empty
// config; a malformed one, an unknown key or a value of the wrong type is a
// usage error naming path:line.
func loadConfig(path string) (*config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return parseConfig(path, data)
}

// parseConfig parses the content of a config file; path only names it in
// errors.
func parseConfig(path string, data []byte) (*config, error) {
	var raw map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, configError(path, pe.Position.Line, pe.Message)
		}
		return nil, configError(path, 0, err.Error())
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	// Report the first problem in the file, not a random one.
	order := func(k string) int {
		if n := keyLine(data, k); n > 0 {
			return n
		}
		return math.MaxInt32
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(order(a), order(b)) })

	c := &config{}
	for _, k := range keys {
		if err := c.set(k, raw[k]); err != nil {
			return nil, configError(path, keyLine(data, k), err.Error())
		}
	}
	return c, nil
}

// set stores one key of the file.
func (c *config) set(key string, v any) error {
	var err error
	switch key {
	case "model":
		c.model, err = tomlString(key, v)
	case "effort":
		c.effort, err = tomlString(key, v)
	case "permission_mode":
		c.permissionMode, err = tomlString(key, v)
	case "claude":
		c.claude, err = tomlString(key, v)
	case "no_wait":
		c.noWait, err = tomlBool(key, v)
	case "dangerously_skip_permissions":
		c.skipPermissions, err = tomlBool(key, v)
	case "debug":
		c.debug, err = tomlBool(key, v)
	case "quiet":
		c.quiet, err = tomlBool(key, v)
	case "budget":
		var f float64
		if f, err = tomlNumber(key, v); err == nil {
			if err = checkBudget(f); err == nil {
				c.budget = &f
			}
		}
	case "max_parallel":
		n, ok := v.(int64)
		switch {
		case !ok:
			err = fmt.Errorf("max_parallel must be a whole number, not %s", tomlType(v))
		case n < 1 || n > math.MaxInt32:
			err = fmt.Errorf("max_parallel must be at least 1, not %d", n)
		default:
			m := int(n)
			c.maxParallel = &m
		}
	case "timeout":
		var d time.Duration
		switch t := v.(type) {
		case string:
			d, err = parseTimeout(t)
		case int64:
			d, err = parseTimeout(fmt.Sprint(t))
		case float64:
			d, err = parseTimeout(fmt.Sprint(t))
		default:
			err = fmt.Errorf("timeout must be a duration such as \"90s\" or a number of seconds, not %s", tomlType(v))
		}
		if err == nil {
			c.timeout = &d
		}
	default:
		err = fmt.Errorf("unknown key %q; the keys allowed are %s", key, strings.Join(configKeys, ", "))
	}
	return err
}

func tomlString(key string, v any) (*string, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s must be a string, not %s", key, tomlType(v))
	}
	return &s, nil
}

func tomlBool(key string, v any) (*bool, error) {
	b, ok := v.(bool)
	if !ok {
		return nil, fmt.Errorf("%s must be true or false, not %s", key, tomlType(v))
	}
	return &b, nil
}

func tomlNumber(key string, v any) (float64, error) {
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		return n, nil
	}
	return 0, fmt.Errorf("%s must be a number, not %s", key, tomlType(v))
}

// tomlType names the TOML type of a decoded value for error messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// configError is a usage error about the config file.
func configError(path string, line int, msg string) error {
	where := path
	if line > 0 {
		where = fmt.Sprintf("%s:%d", path, line)
	}
	return &usageError{
		msg:  fmt.Sprintf("%s: %s", where, msg),
		hint: "Fix or remove the config file; its keys are " + strings.Join(configKeys, ", ") + ".",
	}
}

// keyLine returns the line (from 1) where top-level key k is set or opened
// as a table, or 0 when it cannot be found. TOML's decoder keeps
// key positions to itself, so the line is found by reading the text.
func keyLine(data []byte, k string) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimLeft(line, "[")
		line = strings.TrimSpace(line)
		for _, name := range []string{k, `"` + k + `"`, "'" + k + "'"} {
			rest, ok := strings.CutPrefix(line, name)
			if !ok {
				continue
			}
			rest = strings.TrimSpace(rest)
			if rest != "" && strings.ContainsAny(rest[:1], "=.]") {
				return n
			}
		}
	}
	return 0
}
