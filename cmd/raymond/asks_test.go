package main

import (
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/machine"
	"raymond/project"
	"raymond/state"
)

// cmdWaitAsk waits until run RUN_ID of the project in $WORK has the
// pending ask ASK_ID on disk (its state file and journal), for a script that
// must act once an agent asks while the run is still driven:
//
//	waitask k9 ask_main_1
//
// It gives up after a minute, stopping the background commands.
func cmdWaitAsk(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitask RUN_ID ASK_ID")
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if r, err := store.Read(args[0]); err == nil {
			for _, k := range machine.PendingAsks(r) {
				if k.ID == args[1] {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			stopBackground(ts)
			ts.Fatalf("waitask: run %s has no pending ask %s", args[0], args[1])
		}
	}
}

// cmdAsksDue moves the pending asks of a run with a deadline back in time,
// their deadline a second ago, as if nobody had answered them in time; a
// script need not sleep through a timeout:
//
//	asksdue r1
func cmdAsksDue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: asksdue RUN_ID")
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	r, err := store.Read(args[0])
	ts.Check(err)
	now := time.Now()
	moved := 0
	for i := range r.Agents {
		k := r.Agents[i].Ask
		if !k.Pending() || k.Deadline == nil {
			continue
		}
		back := k.Deadline.Sub(now) + time.Second
		k.AskedAt = k.AskedAt.Add(-back)
		d := k.Deadline.Add(-back)
		k.Deadline = &d
		moved++
	}
	if moved == 0 {
		ts.Fatalf("asksdue: run %s has no pending ask with a deadline", args[0])
	}
	ts.Check(store.Write(r))
}

// cmdAskOf prints when ask ASK_ID of run RUN_ID was asked and its
// deadline, so a script can check that they do not change:
//
//	askof k9 ask_main_1
//	cp stdout before.txt
func cmdAskOf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: askof RUN_ID ASK_ID")
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	r, err := store.Read(args[0])
	ts.Check(err)
	a := project.FindAsk(r, args[1])
	if a == nil {
		ts.Fatalf("askof: run %s has no ask %s", args[0], args[1])
	}
	deadline := "none"
	if a.Ask.Deadline != nil {
		deadline = a.Ask.Deadline.UTC().Format(time.RFC3339Nano)
	}
	ts.Logf("ask %s of %s", args[1], a.ID)
	_, _ = ts.Stdout().Write([]byte(a.Ask.AskedAt.UTC().Format(time.RFC3339Nano) + " " + deadline + "\n"))
}
