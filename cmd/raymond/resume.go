package main

import "context"

var resumeHelp = help{
	name:  "resume",
	usage: "raymond resume RUN_ID [flags]",
	text: `
Drive an existing run on from where it stopped: interrupted, paused, waiting,
over budget (give a higher --budget) or failed (its failed agents are retried).
The flags given here, and only those, override the options the run was started
with; the config file and RAYMOND_CLAUDE are not applied again. A run driven with
--replies is answered from the same file again; --replies gives another.

--new-session AGENT starts that agent's next step in a new session, at the
same state with the same input: the way on when claude no longer has the
session the step resumes (the run's last line then names this flag).

A run that waits for answers (exit 4) goes on once they are given: answer
each ask with 'raymond answer', then resume; or give --input TEXT here, which
answers the oldest pending ask (--ask ASK_ID names another) before the run is
driven. Asks left unanswered keep waiting; --on-ask says who answers them.

Output and exit status are those of 'raymond run' (see 'raymond run --help').`,
	examples: []string{
		"raymond resume 20261121-154012-123456-3f9a2c",
		"raymond resume nightly-1 --budget 10 --model opus",
		"raymond resume nightly-1 --new-session main_worker2",
		"raymond resume nightly-1 --input 'yes, approve Acme'",
		"raymond resume nightly-1 --input no --ask ask_main_worker1_3",
	},
}

func runResume(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("resume")
	f := newRunFlags(fs, kindResume)
	if done, err := parseFlags(fs, args, resumeHelp, env.stdout); done || err != nil {
		return err
	}
	if err := f.check(resumeHelp); err != nil {
		return err
	}
	if err := f.readInput(env.stdin, resumeHelp); err != nil {
		return err
	}
	id, err := oneArg(fs.Args(), resumeHelp, "RUN_ID")
	if err != nil {
		return err
	}
	p, err := openProject(f.project, false)
	if err != nil {
		return err
	}
	d, err := newDriving(ctx, env, p, f)
	if err != nil {
		return err
	}
	defer d.close()
	return d.resume(ctx, id)
}
