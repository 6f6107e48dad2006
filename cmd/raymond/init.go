package main

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"raymond/project"
)

var initHelp = help{
	name:  "init",
	usage: "raymond init [FOLDER]",
	text: `
Start a project: create .raymond/ with a config.toml whose every setting is
a comment showing its default, and a first workflow in FOLDER (default
workflows/hello in the project folder): a START.md and a replies.yaml that
answers it, so that it runs at once without a model. The project folder is
found as every command finds it (the nearest .raymond/, else the git
repository's root, else the current folder), or given with --project.

init never overwrites: a config.toml or a workflow folder that already exists
is an error, and nothing is written.`,
	examples: []string{
		"raymond init",
		"raymond run workflows/hello --input world --replies workflows/hello/replies.yaml",
		"raymond init review   # the first workflow in ./review",
	},
}

func runInit(_ context.Context, env *cmdEnv, args []string) error {
	flags := newFlagSet("init")
	projectDir := flags.String("project", "", "the project `DIR` to create .raymond/ in (default: found from the current folder)")
	if done, err := parseFlags(flags, args, initHelp, env.stdout); done || err != nil {
		return err
	}
	if flags.NArg() > 1 {
		return initHelp.usageError("init takes one FOLDER, got %d arguments", flags.NArg())
	}
	dir := *projectDir
	if dir == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find project folder: %w", err)
		}
		if dir, err = project.Find(cwd); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return initHelp.usageError("--project %s: not a folder", dir)
	}
	wf := filepath.Join(dir, "workflows", "hello")
	if flags.NArg() == 1 {
		wf = flags.Arg(0)
	}
	config := project.ConfigPath(dir)
	for _, c := range []struct{ path, hint string }{
		{config, "The project is set up already: edit that file, or give --project another folder."},
		{wf, "Give init another FOLDER for the workflow."},
	} {
		if _, err := os.Lstat(c.path); err == nil {
			return &usageError{msg: fmt.Sprintf("%s already exists; init overwrites nothing and wrote nothing", shownPath(c.path)), hint: c.hint}
		} else if !errors.Is(err, iofs.ErrNotExist) {
			return err
		}
	}
	files := []struct{ path, text string }{
		{config, initConfig},
		{filepath.Join(wf, "START.md"), initStart},
		{filepath.Join(wf, "replies.yaml"), initReplies},
	}
	if err := os.MkdirAll(project.StateDir(dir), 0o700); err != nil {
		return err
	}
	if wrote, err := project.WriteGitignore(dir); err != nil {
		return err
	} else if wrote {
		fmt.Fprintln(env.stdout, shownPath(project.GitignorePath(dir)))
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, shownPath(f.path))
	}
	fmt.Fprintf(env.stderr, "Try it offline: raymond run %s --input world --replies %s\n", shownPath(wf), shownPath(filepath.Join(wf, "replies.yaml")))
	fmt.Fprintf(env.stderr, "With Claude Code: raymond run %s --input world\n", shownPath(wf))
	return nil
}

// shownPath is path relative to the current folder when it lies below it,
// as a person would type it, else as it is.
func shownPath(path string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}

// initConfig is the config.toml init writes: every key commented out at
// its default, so the file changes nothing until a line is uncommented.
const initConfig = `# raymond's settings for this project; docs/configuration.md describes each.
# Every line is a comment showing the default: uncomment one to change it.
# Flags given on the command line win over this file.

# model = "sonnet"                 # or ["opus", "sonnet"]: the next when one is overloaded or out of limits; default: Claude Code's own default model
# effort = "medium"                # low, medium, high, xhigh, max; default: none
# budget = 5                       # USD per run; default: unlimited
# max_parallel = 8                 # steps running at once in a run
# max_agents = 2000
# max_depth = 64
# max_forks = 10000
# timeout = "10m"                  # a step silent this long is stopped; 0 = never
# step_timeout = "2h"
# no_wait = false                  # true: pause on a usage limit instead of waiting
# max_turns = 0                    # turns one claude step may take; 0 = no limit
# loop_warn = 5                    # identical tool calls in a step that warn; 0 = off
# loop_stop = 10                   # identical tool calls in a step that stop it; 0 = off
# cycle_stop = 3                   # rounds of one cycle of states with identical answers; 0 = off
# permission_mode = "acceptEdits"
# claude = "claude"                # the claude executable
# debug = true                     # false: no transcripts in .raymond/debug/
# quiet = false
# confine = false                  # true: refuse a cd= outside the project
# task_folder_pattern = "tasks/{{run_id}}/{{agent_id}}"
# on_ask = "auto"                  # auto, prompt, pause, reject
# lint = true                      # lint workflows before run and start

# [[notify]]                       # one entry per receiver (docs/configuration.md)
# url = "https://ntfy.sh/YOUR-TOPIC"
# format = "ntfy"                  # json, ntfy, slack
# events = ["ask", "failed", "budget", "waiting", "completed"]
# include_text = false             # true: also send questions and results

# [serve]                          # raymond serve (docs/daemon.md)
# roots = ["workflows"]
# max_steps = 8
# daily_cap_usd = 40

# [[serve.schedule]]               # launch a workflow by cron (docs/daemon.md, Schedules)
# workflow = "hello"
# cron = "0 9 * * 1-5"             # or @daily, @every 30m
# timezone = "Europe/Paris"        # default: local time
#
# [[serve.hook]]                   # POST /api/v1/hooks/NAME, signed (docs/daemon.md, Webhooks)
# name = "github"
# workflow = "hello"
# secret_file = ".raymond/github.secret"
# filter = ["action == labeled", "label.name == raymond"]
# input = "Issue #{{.issue.number}}: {{.issue.title}}"

# [otel]                           # traces over OTLP/HTTP (docs/observability.md)
# endpoint = "http://localhost:4318"
# service_name = "raymond"
`

const initStart = `---
allowed_transitions:
  - { tag: result }
---
Greet {{input}} in one short, friendly sentence. Do not read or write any file.

End your answer with the greeting inside a result tag, exactly like this:

<result>Hello, {{input}}!</result>
`

const initReplies = `# Scripted replies: the run answered without a model, for a first try.
#   raymond run workflows/hello --input world --replies workflows/hello/replies.yaml
# Without --replies the same workflow runs against Claude Code.
replies:
  START.md:
    - text: "<result>Hello, world!</result>"
`
