package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"raymond/daemon"
	"raymond/machine"
	"raymond/project"
	"raymond/state"
)

var answerHelp = help{
	name:  "answer",
	usage: "raymond answer RUN_ID ASK_ID [TEXT] [--file PATH]",
	text: `
Record a person's answer to a pending ask of a run (an agent's <ask>), in the
run's state file, without driving the run: 'raymond resume RUN_ID' then
drives the agent on with the answer as its {{input}}. Answer each pending
ask this way, then resume once; 'raymond status RUN_ID' lists them, and a
run that stopped waiting for answers (exit 4) printed them on stdout.

The answer is TEXT, or the content of --file PATH as it is (- reads stdin;
from a terminal, the newline that ends the line is not part of it). An
unknown ask, one already answered and one past its deadline are refused
(exit 2); a run that another process drives is refused (exit 6): answer in
that process's terminal, or stop it first.`,
	examples: []string{
		"raymond answer 20261121-154012-123456-3f9a2c ask_main_1 'yes, approve Acme'",
		"raymond answer nightly-1 ask_main_worker1_2 --file review.md && raymond resume nightly-1",
	},
}

func runAnswer(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("answer")
	file := fs.String("file", "", "read the answer from `PATH` (- for stdin) instead of TEXT")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, answerHelp, env.stdout); done || err != nil {
		return err
	}
	args = fs.Args()
	switch {
	case len(args) < 2:
		return answerHelp.usageError("missing %s", map[int]string{0: "RUN_ID and ASK_ID", 1: "ASK_ID"}[len(args)])
	case len(args) > 3:
		return answerHelp.usageError("too many arguments: give RUN_ID, ASK_ID and the answer as one TEXT (quote it)")
	case len(args) == 3 && fs.Changed("file"):
		return answerHelp.usageError("give the answer as TEXT or with --file, not both")
	case len(args) == 2 && !fs.Changed("file"):
		return answerHelp.usageError("missing the answer: give TEXT, or --file PATH")
	}
	id, askID := args[0], args[1]
	if err := state.ValidID(id); err != nil {
		return answerHelp.usageError("%v", err)
	}
	var text string
	if len(args) == 3 {
		text = args[2]
	} else {
		var err error
		if text, err = readAnswer(*file, env.stdin); err != nil {
			return err
		}
	}
	p, err := openProject(*projectDir, false)
	if err != nil {
		return err
	}
	if id, err = resolveRunID(p.Store, id); err != nil {
		return err
	}
	run, err := p.Store.Read(id)
	if err != nil {
		return notFound(p.Store, id, err)
	}
	if info, token, ok := drivingDaemon(p, id); ok {
		if err := answerViaDaemon(info, token, id, askID, text); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "raymond: answered %s of run %s through the daemon that drives it (pid %d); it goes on by itself\n", askID, id, info.PID)
		return nil
	}
	k, pending, err := answer(p.Store, id, askID, text, time.Now())
	if err != nil {
		return err
	}
	// A scripted run goes on with its replies file: the one it is stored
	// with, named; one made before that was stored needs it given again.
	msg := fmt.Sprintf("raymond: answered %s of run %s; go on with: raymond resume %s%s", k.ID, id, project.ShellQuote(id), project.RepliesFlag(run))
	switch {
	case pending == 1:
		msg += fmt.Sprintf(" (1 more ask waits for an answer; 'raymond status %s' shows it)", id)
	case pending > 1:
		msg += fmt.Sprintf(" (%d more asks wait for an answer; 'raymond status %s' lists them)", pending, id)
	}
	fmt.Fprintln(env.stderr, msg)
	return nil
}

// readAnswer reads the answer of --file path: the file as it is, or stdin
// for "-", whose line ending is dropped when it is a terminal.
func readAnswer(path string, stdin io.Reader) (string, error) {
	if path != "-" {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", &usageError{msg: fmt.Sprintf("--file: %v", err), hint: "Give a file that holds the answer, or - for stdin."}
		}
		return string(data), nil
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("read the answer from stdin: %w", err)
	}
	if isTerminal(stdin) {
		return trimLineEnd(string(data)), nil
	}
	return string(data), nil
}

// answer records text as the answer to ask askID of run id, holding the
// run's lock, and returns the ask and how many others are still pending.
func answer(store *state.Store, id, askID, text string, now time.Time) (*state.Ask, int, error) {
	lock, err := store.Lock(id)
	var le *state.LockedError
	if errors.As(err, &le) {
		return nil, 0, &exitError{code: exitNotDriven, msg: le.Error() + "; answer in its terminal, or stop it and answer then"}
	}
	if err != nil {
		return nil, 0, err
	}
	defer lock.Release()
	r, err := store.Read(id)
	if err != nil {
		return nil, 0, err
	}
	k, err := project.RecordAnswer(r, askID, text, now)
	var ae *project.AnswerError
	if errors.As(err, &ae) {
		return nil, 0, &usageError{msg: ae.Error(), hint: fmt.Sprintf("'raymond status %s' lists the run's pending asks.", id)}
	}
	if err != nil {
		return nil, 0, err
	}
	if err := store.Write(r); err != nil {
		return nil, 0, err
	}
	return k, len(machine.PendingAsks(r)), nil
}

// drivingDaemon returns the daemon of project p when it is the process that
// drives run id, with its API token.
func drivingDaemon(p *project.Project, id string) (daemon.Info, string, bool) {
	pid, held, err := p.Store.Holder(id)
	if err != nil || !held {
		return daemon.Info{}, "", false
	}
	dir := filepath.Join(p.Dir, ".raymond")
	info, ok := daemon.Running(dir)
	if !ok || info.PID != pid {
		return daemon.Info{}, "", false
	}
	token, err := daemon.ReadToken(dir)
	if err != nil {
		return daemon.Info{}, "", false
	}
	return info, token, true
}

// answerViaDaemon gives the answer to the daemon's API, which hands it to
// the run it drives.
func answerViaDaemon(info daemon.Info, token, id, askID, text string) error {
	body, err := json.Marshal(map[string]string{"answer": text})
	if err != nil {
		return err
	}
	u := strings.TrimSuffix(info.URL, "/") + "/api/v1/runs/" + url.PathEscape(id) + "/asks/" + url.PathEscape(askID)
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("run %s is driven by the daemon (pid %d) but it does not answer at %s: %v", id, info.PID, info.URL, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&e)
	msg := e.Error.Message
	if msg == "" {
		msg = resp.Status
	}
	code := exitFailed
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusConflict {
		code = exitUsage
	}
	return &exitError{code: code, msg: "the daemon refused the answer: " + msg}
}
