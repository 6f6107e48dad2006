package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"raymond/daemon"
	"raymond/orchestrator"
	"raymond/project"
)

// scheduleClock is the clock the daemon's schedules fire by; nil is the
// daemon's own. The command's tests set it (RAYMOND_TEST_SCHEDULE_CLOCK) to fire
// schedules without waiting for them.
var scheduleClock orchestrator.Clock

// minSecretLen is the shortest hook secret raymond serve accepts.
const minSecretLen = 16

// serveTriggers checks the config's schedules and hooks against the
// workflows of cat, reads the hooks' secrets, and returns the daemon's
// schedules (the manifests' too) and hooks (nil for none). A schedule or
// hook the daemon could not use stops the start, naming its line.
func serveTriggers(p *project.Project, sv project.Serve, cat daemon.Catalog, d *daemon.Daemon) (*daemon.Schedules, *daemon.Hooks, error) {
	config := filepath.Join(p.Dir, ".raymond", "config.toml")
	at := func(line int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d", config, line)
		}
		return config
	}
	for _, s := range sv.Schedules {
		if err := daemon.CheckSchedule(s, cat); err != nil {
			return nil, nil, &usageError{msg: fmt.Sprintf("%s: %v", at(s.Line), err),
				hint: "Give the id of a workflow under the daemon's roots (GET /api/v1/workflows lists them), or remove the schedule."}
		}
	}
	var hooks *daemon.Hooks
	if len(sv.Hooks) > 0 {
		secrets := make(map[string][]byte, len(sv.Hooks))
		for _, h := range sv.Hooks {
			if err := daemon.CheckHook(h, cat); err != nil {
				return nil, nil, &usageError{msg: fmt.Sprintf("%s: %v", at(h.Line), err),
					hint: "Give the id of a workflow under the daemon's roots (GET /api/v1/workflows lists them), or remove the hook."}
			}
			secret, err := hookSecret(p.Dir, h)
			if err != nil {
				return nil, nil, err
			}
			secrets[h.Name] = secret
		}
		hooks = d.NewHooks(sv.Hooks, secrets, cat)
	}
	return d.NewSchedules(sv.Schedules, cat, scheduleClock), hooks, nil
}

// hookSecret reads the secret of hook h from its secret_file, which must
// be as private as the API token's file: the secret lets its holder start
// runs.
func hookSecret(projectDir string, h project.Hook) ([]byte, error) {
	path := h.SecretFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(projectDir, path)
	}
	newSecret := fmt.Sprintf("(umask 077; openssl rand -hex 32 > %s), and give the same secret to the sender", path)
	fix := "Make one only you can read: " + newSecret + "."
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &usageError{msg: fmt.Sprintf("[[serve.hook]] %q: its secret_file %s does not exist", h.Name, path), hint: fix}
	}
	if err != nil {
		return nil, fmt.Errorf("read the secret of hook %s: %w", h.Name, err)
	}
	if err := trustPrivate(projectDir, path, fi, private{what: "secret", made: ": give the file itself, made by you",
		renew:   "Remove it, and make a new secret only you can read: rm " + path + "; " + newSecret + ".",
		untrack: fmt.Sprintf("Untrack it (git rm --cached %s), make a new secret, and keep it out of git.", path)}); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the secret of hook %s: %w", h.Name, err)
	}
	secret := bytes.TrimSpace(data)
	if len(secret) < minSecretLen {
		return nil, &usageError{msg: fmt.Sprintf("%s holds a secret of %d characters, too few to be safe from guessing (give %d or more)", path, len(secret), minSecretLen), hint: fix}
	}
	return secret, nil
}

// serveTriggersBanner says at start how many schedules the daemon keeps
// and where its hooks receive deliveries; nothing when it has neither.
func serveTriggersBanner(w io.Writer, url string, schedules *daemon.Schedules, hooks *daemon.Hooks) {
	if n := len(schedules.List()); n > 0 {
		fmt.Fprintf(w, "  schedules: %d (GET /api/v1/schedules lists them)\n", n)
	}
	if hooks == nil {
		return
	}
	names := hooks.Names()
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(w, "  hook:  POST %sapi/v1/hooks/%s\n", url, name)
	}
}
