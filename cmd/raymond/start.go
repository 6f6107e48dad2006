package main

import (
	"context"
	"fmt"
)

var startHelp = help{
	name:  "start",
	usage: "raymond start WORKFLOW [flags]",
	text: `
Create a run of WORKFLOW (a workflow folder, or the state file to start from)
and print its id on stdout, without driving it. 'raymond run ID' or
'raymond resume ID' drives it later, with the options given here.`,
	examples: []string{
		"id=$(raymond start wf/ --input 'the bug in #42') && raymond run \"$id\"",
		"raymond start wf/ --id nightly-1 --budget 5",
	},
}

func runStart(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("start")
	f := newRunFlags(fs, kindStart)
	if done, err := parseFlags(fs, args, startHelp, env.stdout); done || err != nil {
		return err
	}
	if err := f.check(startHelp); err != nil {
		return err
	}
	if err := f.readInput(env.stdin, startHelp); err != nil {
		return err
	}
	workflow, err := oneArg(fs.Args(), startHelp, "WORKFLOW")
	if err != nil {
		return err
	}
	p, err := openProject(f.project, true)
	if err != nil {
		return err
	}
	opts, budget := p.NewOptions(f.given(env.getenv))
	r, err := create(env, p, f, workflow, opts, budget)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, r.WorkflowID)
	return nil
}
