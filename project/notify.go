package project

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"raymond/internal/spelling"
	"raymond/notify"
)

// setNotify reads the [[notify]] entries: where notifications go (package
// notify). Each entry is checked here, so a bad one is an error of the
// config file at its key's line.
func (s *Settings) setNotify(v any) error {
	list, ok := v.([]map[string]any)
	if !ok {
		return fmt.Errorf("notify must be an array of tables ([[notify]] entries, one per receiver), not %s", tomlType(v))
	}
	for i, table := range list {
		t, err := notifyTarget(i, table)
		if err != nil {
			return err
		}
		s.Notify = append(s.Notify, t)
	}
	return nil
}

// notifyTarget reads entry i of [[notify]]. An error is a *keyError whose
// key is "i.KEY" (or "i" for the entry as a whole).
func notifyTarget(i int, table map[string]any) (notify.Target, error) {
	var t notify.Target
	what := fmt.Sprintf("notify[%d]", i)
	if n, ok := table["name"].(string); ok && n != "" {
		what = fmt.Sprintf("notify %q", n)
	}
	bad := func(key string, err error) error {
		return &keyError{path: []string{strconv.Itoa(i), key}, err: err}
	}
	for _, key := range sortedKeys(table) {
		v := table[key]
		name := what + "." + key
		var err error
		switch key {
		case "name":
			var p *string
			if p, err = tomlString(name, v); err == nil {
				t.Name = *p
			}
		case "url":
			var p *string
			if p, err = tomlString(name, v); err == nil {
				t.URL = *p
			}
		case "format":
			var p *string
			if p, err = tomlString(name, v); err == nil {
				t.Format = *p
			}
		case "secret_file":
			var p *string
			if p, err = tomlString(name, v); err == nil {
				if *p == "" {
					err = fmt.Errorf("%s is empty; leave it out to send unsigned", name)
				}
				t.SecretFile = *p
			}
		case "page_url":
			var p *string
			if p, err = tomlString(name, v); err == nil {
				t.PageURL = *p
			}
		case "include_text":
			var b *bool
			if b, err = tomlBool(name, v); err == nil {
				t.IncludeText = *b
			}
		case "allow_insecure":
			var b *bool
			if b, err = tomlBool(name, v); err == nil {
				t.AllowInsecure = *b
			}
		case "events":
			list, ok := v.([]any)
			if !ok {
				err = fmt.Errorf("%s must be an array of event names such as [\"ask\", \"failed\"], not %s", name, tomlType(v))
				break
			}
			if len(list) == 0 {
				err = fmt.Errorf("%s is empty, so nothing would be sent; leave it out for every event (%s)", name, strings.Join(notify.Events, ", "))
				break
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					err = fmt.Errorf("%s must hold event names, not %s", name, tomlType(e))
					break
				}
				t.Events = append(t.Events, s)
			}
		case "timeout":
			var d time.Duration
			switch x := v.(type) {
			case string:
				d, err = ParseTimeout(x)
			case int64, float64:
				d, err = ParseTimeout(fmt.Sprint(x))
			default:
				err = fmt.Errorf("%s must be a duration such as \"10s\" or a number of seconds, not %s", name, tomlType(v))
			}
			if err == nil && d == 0 {
				err = fmt.Errorf("%s is 0; give how long one request may take, such as \"10s\"", name)
			}
			if err != nil && !strings.HasPrefix(err.Error(), what) {
				err = fmt.Errorf("%s: %w", name, err)
			}
			t.Timeout = d
		default:
			if near := spelling.Suggest(key, notify.Keys); near != "" {
				err = fmt.Errorf("unknown key %s; did you mean %s? The keys of [[notify]] are %s", name, near, strings.Join(notify.Keys, ", "))
			} else {
				err = fmt.Errorf("unknown key %s; the keys of [[notify]] are %s", name, strings.Join(notify.Keys, ", "))
			}
		}
		if err != nil {
			return t, bad(key, err)
		}
	}
	if err := t.Check(what); err != nil {
		if ke, ok := err.(*notify.KeyError); ok {
			if _, given := table[ke.Key]; given {
				return t, bad(ke.Key, err)
			}
		}
		return t, &keyError{path: []string{strconv.Itoa(i)}, err: err}
	}
	return t, nil
}

// NotifyTargets are the [[notify]] entries of the project's config, with
// each secret_file made absolute from the project folder.
func (p *Project) NotifyTargets() []notify.Target {
	out := make([]notify.Target, 0, len(p.config().Notify))
	for _, t := range p.config().Notify {
		if t.SecretFile != "" && !filepath.IsAbs(t.SecretFile) {
			t.SecretFile = filepath.Join(p.Dir, t.SecretFile)
		}
		out = append(out, t)
	}
	return out
}
