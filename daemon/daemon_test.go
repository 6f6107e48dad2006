package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"raymond/orchestrator"
	"raymond/project"
	"raymond/script"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
)

// testProject makes a project with a workflow folder "wf" holding files
// (name → content), and a replies file; it returns the project and the
// workflow's path.
func testProject(t testing.TB, files map[string]string, replies string) (*project.Project, string, *scripted.Runner) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".raymond"), 0o755))
	p, err := project.Open(dir)
	require.NoError(t, err)
	require.NoError(t, p.Init())
	wf := filepath.Join(dir, "wf")
	require.NoError(t, os.MkdirAll(wf, 0o755))
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(wf, name), []byte(text), 0o644))
	}
	path := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(path, []byte(replies), 0o644))
	r, err := scripted.Load(path)
	require.NoError(t, err)
	return p, wf, r
}

func openDaemon(t *testing.T, p *project.Project, r *scripted.Runner) *Daemon {
	t.Helper()
	d, err := Open(Config{Project: p, Runner: r, Scripts: r.Scripts(&script.Runner{}), Clock: &orchestrator.InstantClock{}})
	require.NoError(t, err)
	t.Cleanup(func() {
		d.Shutdown(context.Background())
		d.Close()
	})
	return d
}

// waitStatus waits until run id has status want and the daemon no longer
// drives it.
func waitStatus(t *testing.T, d *Daemon, id string, want state.Status) project.Detail {
	t.Helper()
	var got project.Detail
	require.Eventually(t, func() bool {
		var err error
		got, err = d.Detail(id)
		return err == nil && got.Status == want && !d.Driving(id)
	}, 20*time.Second, 5*time.Millisecond, "run %s never reached %s", id, want)
	return got
}

var twoSteps = map[string]string{
	"START.md": "Say hello.\n",
	"END.md":   "Finish.\n",
}

const twoStepReplies = `replies:
  START.md: ["<goto>END.md</goto>"]
  END.md: ["<result>done</result>"]
`

func TestLaunchDrivesARunToItsEnd(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, twoStepReplies)
	d := openDaemon(t, p, r)
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	got := waitStatus(t, d, run.WorkflowID, state.StatusCompleted)
	require.Equal(t, "done", *got.Result)
	require.NotEmpty(t, got.Transcript)
	// The events of the run, numbered as their lines.
	events, err := ReadEvents(got.Transcript, 0, 0)
	require.NoError(t, err)
	require.NotEmpty(t, events)
	require.Equal(t, "1", events[0].ID)
	require.Equal(t, "run_started", events[0].Event.Type)
	require.Equal(t, "run_ended", events[len(events)-1].Event.Type)
}

func TestLaunchUsesRaymondClaude(t *testing.T) {
	// raymond serve with RAYMOND_CLAUDE set runs that claude, as raymond run does.
	p, wf, r := testProject(t, twoSteps, twoStepReplies)
	d, err := Open(Config{Project: p, Runner: r, Scripts: r.Scripts(&script.Runner{}), Clock: &orchestrator.InstantClock{},
		ClaudeEnv: "/opt/fake/claude"})
	require.NoError(t, err)
	t.Cleanup(func() {
		d.Shutdown(context.Background())
		d.Close()
	})
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	require.Equal(t, "/opt/fake/claude", run.Options.ClaudePath)
	require.Equal(t, "RAYMOND_CLAUDE", run.Options.ClaudeFrom)
	waitStatus(t, d, run.WorkflowID, state.StatusCompleted)
}

func TestLaunchRefusesAWorkflowWithLintErrors(t *testing.T) {
	p, wf, r := testProject(t, map[string]string{"START.md": "---\nallowed_transitions:\n  - { tag: goto, target: NEXTT.md }\n---\nGo.\n"}, twoStepReplies)
	d := openDaemon(t, p, r)
	_, err := d.Launch(Launch{Workflow: wf})
	var le *LintError
	require.ErrorAs(t, err, &le)
	runs, err := p.Runs()
	require.NoError(t, err)
	require.Empty(t, runs, "no run is made for a workflow with errors")
}

func TestSecondDaemonRefused(t *testing.T) {
	p, _, r := testProject(t, twoSteps, twoStepReplies)
	d := openDaemon(t, p, r)
	require.NoError(t, d.WriteInfo(Info{PID: os.Getpid(), Addr: "127.0.0.1:7777"}))
	_, err := Open(Config{Project: p, Runner: r})
	var le *LockedError
	require.ErrorAs(t, err, &le)
	require.Equal(t, os.Getpid(), le.PID)
	require.Contains(t, err.Error(), "127.0.0.1:7777")
	info, ok := Running(filepath.Join(p.Dir, ".raymond"))
	require.True(t, ok)
	require.Equal(t, "127.0.0.1:7777", info.Addr)
}

// create makes a run of wf with status st, as a driver that died (running)
// or one that paused would have left it.
func create(t *testing.T, p *project.Project, wf string, st state.Status) string {
	t.Helper()
	r, err := orchestrator.Create(p.Store, orchestrator.NewRun{Workflow: wf, Cwd: p.Dir})
	require.NoError(t, err)
	r.Status = st
	require.NoError(t, p.Store.Write(r))
	return r.WorkflowID
}

func TestRecover(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, `replies:
  START.md: [{text: "<goto>END.md</goto>", repeat: true}]
  END.md: [{text: "<result>done</result>", repeat: true}]
`)
	interrupted := create(t, p, wf, state.StatusRunning)
	paused := create(t, p, wf, state.StatusPaused)
	parked := create(t, p, wf, state.StatusPaused)
	require.NoError(t, os.WriteFile(filepath.Join(p.Dir, ".raymond", ParkedFile), []byte(`["`+parked+`"]`), 0o600))

	d := openDaemon(t, p, r)
	rec := d.Recover()
	slices.Sort(rec.Resumed)
	want := []string{interrupted, parked}
	slices.Sort(want)
	require.Equal(t, want, rec.Resumed)
	require.Equal(t, []string{paused}, rec.Paused)
	require.Empty(t, rec.Failed)
	waitStatus(t, d, interrupted, state.StatusCompleted)
	waitStatus(t, d, parked, state.StatusCompleted)
	got, err := d.Detail(paused)
	require.NoError(t, err)
	require.Equal(t, state.StatusPaused, got.Status, "a run paused on purpose stays paused")
	require.NoFileExists(t, filepath.Join(p.Dir, ".raymond", ParkedFile))
}

// TestStoredOptionsAreChecked refuses to drive a run whose state file holds
// an option claude would refuse (edited by hand), at recovery and at a
// resume, as raymond resume does: nothing runs and the run is left as it was.
func TestStoredOptionsAreChecked(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, twoStepReplies)
	run, err := orchestrator.Create(p.Store, orchestrator.NewRun{Workflow: wf, Cwd: p.Dir,
		Options: state.Options{PermissionMode: "yolo", MaxParallel: 1}})
	require.NoError(t, err)
	run.Status = state.StatusRunning
	require.NoError(t, p.Store.Write(run))
	id := run.WorkflowID

	d := openDaemon(t, p, r)
	rec := d.Recover()
	require.Empty(t, rec.Resumed)
	require.Contains(t, rec.Failed[id], `stored with --permission-mode yolo: unknown permission mode "yolo"`)
	require.Contains(t, rec.Failed[id], "raymond resume "+id+" --permission-mode VALUE")
	err = d.Resume(id, nil)
	require.ErrorIs(t, err, ErrConflict)
	require.ErrorContains(t, err, "--permission-mode yolo")
	got, err := p.Store.Read(id)
	require.NoError(t, err)
	require.Equal(t, state.StatusRunning, got.Status, "the run is left as it was")
	require.Zero(t, got.TotalCostUSD)
	require.False(t, d.Driving(id))
}

func TestShutdownParksRunsTheNextStartResumes(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, `replies:
  START.md: [{text: "<goto>END.md</goto>", wait_for: release}]
  END.md: ["<result>done</result>"]
`)
	d, err := Open(Config{Project: p, Runner: r, Clock: &orchestrator.InstantClock{}})
	require.NoError(t, err)
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	require.Eventually(t, func() bool { return d.Gate().Status().StepsRunning == 1 }, 10*time.Second, time.Millisecond)

	stopped := make(chan struct{})
	go func() {
		d.Shutdown(context.Background())
		close(stopped)
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(p.Dir, ".raymond", ParkedFile))
		return err == nil
	}, 10*time.Second, time.Millisecond)
	_, err = d.Launch(Launch{Workflow: wf})
	require.ErrorIs(t, err, ErrClosing, "no new run while stopping")
	// The step in flight finishes; no new step starts.
	require.NoError(t, os.WriteFile(filepath.Join(p.Dir, "release"), nil, 0o644))
	<-stopped
	require.NoError(t, d.Close())
	got, err := p.Store.Read(id)
	require.NoError(t, err)
	require.Equal(t, state.StatusPaused, got.Status)
	require.Equal(t, "END.md", got.Agents[0].CurrentState)

	again := openDaemon(t, p, r)
	rec := again.Recover()
	require.Equal(t, []string{id}, rec.Resumed)
	waitStatus(t, again, id, state.StatusCompleted)
}

func TestAnswerAnAsk(t *testing.T) {
	p, wf, r := testProject(t, map[string]string{
		"START.md": "Ask.\n",
		"END.md":   "Use {{input}}.\n",
	}, `replies:
  START.md: ["<ask next=\"END.md\">Which colour?</ask>"]
  END.md: ["<result>{{input}}</result>"]
`)
	d := openDaemon(t, p, r)
	go func() { _ = d.Watch(t.Context()) }()
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	var asks []PendingAsk
	require.Eventually(t, func() bool {
		asks = d.Asks()
		return len(asks) == 1
	}, 20*time.Second, 5*time.Millisecond)
	require.Equal(t, id, asks[0].RunID)
	require.Equal(t, "Which colour?", asks[0].Prompt)

	require.ErrorIs(t, d.Answer(id, "nosuch", "x"), ErrNotFound)
	require.NoError(t, d.Answer(id, asks[0].AskID, "blue"))
	err = d.Answer(id, asks[0].AskID, "red")
	require.ErrorIs(t, err, ErrConflict, "a second answer is refused")
	got := waitStatus(t, d, id, state.StatusCompleted)
	require.Equal(t, "blue", *got.Result)
}

// An answer given while the daemon stops is kept, said to be kept, and
// used by the next start.
func TestAnswerWhileStopping(t *testing.T) {
	p, wf, r := testProject(t, map[string]string{
		"START.md": "Ask.\n",
		"END.md":   "Use {{input}}.\n",
	}, `replies:
  START.md: ["<ask next=\"END.md\">Which colour?</ask>"]
  END.md: ["<result>{{input}}</result>"]
`)
	d, err := Open(Config{Project: p, Runner: r, Clock: &orchestrator.InstantClock{}})
	require.NoError(t, err)
	go func() { _ = d.Watch(t.Context()) }()
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	var asks []PendingAsk
	require.Eventually(t, func() bool {
		asks = d.Asks()
		return len(asks) == 1
	}, 20*time.Second, 5*time.Millisecond)
	d.Shutdown(context.Background())
	require.NoError(t, d.Answer(id, asks[0].AskID, "blue"), "the answer is kept for the next start")
	require.NoError(t, d.Close())

	again := openDaemon(t, p, r)
	require.Equal(t, []string{id}, again.Recover().Resumed)
	got := waitStatus(t, again, id, state.StatusCompleted)
	require.Equal(t, "blue", *got.Result)
}

func TestPauseAndResume(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, `replies:
  START.md: [{text: "<goto>END.md</goto>", wait_for: release}]
  END.md: ["<result>done</result>"]
`)
	d := openDaemon(t, p, r)
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	err = d.Delete(id)
	require.ErrorIs(t, err, ErrConflict, "a running run is not deleted")
	require.ErrorContains(t, err, "pause it (POST /api/v1/runs/"+id+"/pause) and remove it with 'raymond rm "+id+"'")
	require.NoError(t, d.Pause(id))
	require.NoError(t, os.WriteFile(filepath.Join(p.Dir, "release"), nil, 0o644))
	waitStatus(t, d, id, state.StatusPaused)
	require.ErrorIs(t, d.Pause(id), ErrConflict, "a paused run has nothing to pause")
	err = d.Delete(id)
	require.ErrorIs(t, err, ErrConflict, "a paused run is not deleted")
	// Pausing again cannot make it deletable: the message says what can.
	require.ErrorContains(t, err, "resume it (POST /api/v1/runs/"+id+"/resume) until it ends, or remove it with 'raymond rm "+id+"'")
	require.NotContains(t, err.Error(), "pause and let it end")

	require.NoError(t, d.Resume(id, nil))
	waitStatus(t, d, id, state.StatusCompleted)
	require.ErrorIs(t, d.Resume(id, nil), ErrConflict)
	require.NoError(t, d.Delete(id))
	_, err = d.Detail(id)
	require.ErrorIs(t, err, ErrNotFound)
}

func TestSubscribeReplaysAfterLastEventID(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, `replies:
  START.md: [{text: "<goto>END.md</goto>"}]
  END.md: [{text: "<result>done</result>", wait_for: release}]
`)
	d := openDaemon(t, p, r)
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	// Wait until END.md's step runs, then follow from event 2.
	require.Eventually(t, func() bool {
		got, err := d.Detail(id)
		return err == nil && got.Agents[0].CurrentState == "END.md" && d.Gate().Status().StepsRunning == 1
	}, 20*time.Second, time.Millisecond)
	sub, err := d.Subscribe(id, "2")
	require.NoError(t, err)
	defer sub.Close()
	require.NotEmpty(t, sub.Replay)
	require.Equal(t, "3", sub.Replay[0].ID, "the replay starts after the id given")
	last := sub.Replay[len(sub.Replay)-1].ID
	require.NoError(t, os.WriteFile(filepath.Join(p.Dir, "release"), nil, 0o644))
	var types []string
	for ev := range sub.C() {
		types = append(types, ev.Event.Type)
		if !ev.Event.Live() {
			require.Greater(t, mustAtoi(t, ev.ID), mustAtoi(t, last), "live events follow the replay without a gap or a repeat")
			last = ev.ID
		}
	}
	require.Contains(t, types, "run_ended")
	all, err := ReadEvents(filepath.Join(project.DebugDir(p.Dir), id), 0, 0)
	require.NoError(t, err)
	require.Equal(t, all[len(all)-1].ID, last, "every persisted event was delivered")

	_, err = d.Subscribe(id, "x.y")
	require.ErrorIs(t, err, ErrInvalid)
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := parseLastID(s)
	require.NoError(t, err)
	return n
}

// waitingRun makes a run of wf left waiting for a usage limit that resets
// in two hours; it returns the run's id and the reset time.
func waitingRun(t *testing.T, p *project.Project, wf string) (string, time.Time) {
	t.Helper()
	id := create(t, p, wf, state.StatusWaiting)
	run, err := p.Store.Read(id)
	require.NoError(t, err)
	until := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	run.Wait = &state.Wait{Until: until, Reason: "usage limit"}
	require.NoError(t, p.Store.Write(run))
	return id, until
}

func TestRecoverHoldsTheGateForAWaitingRun(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, twoStepReplies)
	id, until := waitingRun(t, p, wf)

	d, err := Open(Config{Project: p, Runner: r})
	require.NoError(t, err)
	defer func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // kill what waits
		d.Shutdown(ctx)
		d.Close()
	}()
	rec := d.Recover()
	require.Equal(t, []string{id}, rec.Resumed)
	st := d.Gate().Status()
	require.NotNil(t, st.UsageLimit, "the other runs wait for the same reset")
	require.True(t, st.UsageLimit.Equal(until))
}

// A usage limit belongs to the account: a daemon that resumes nothing
// (--no-recover) still holds every step until the limit a run waits for
// resets.
func TestOpenHoldsTheGateWithoutRecover(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, twoStepReplies)
	_, until := waitingRun(t, p, wf)

	d, err := Open(Config{Project: p, Runner: r})
	require.NoError(t, err)
	defer func() {
		d.Shutdown(context.Background())
		d.Close()
	}()
	st := d.Gate().Status()
	require.NotNil(t, st.UsageLimit, "a launch would hit the same limit")
	require.True(t, st.UsageLimit.Equal(until))
	require.Equal(t, 0, d.Active(), "nothing is resumed")
}

func TestSkipPermissionsOnlyWhenTheDaemonAllows(t *testing.T) {
	for _, allow := range []bool{false, true} {
		p, wf, r := testProject(t, twoSteps, `replies:
  START.md: [{text: "<goto>END.md</goto>", repeat: true}]
  END.md: [{text: "<result>done</result>", repeat: true}]
`)
		// The project's config asks for it; only the daemon's own key lets it through.
		require.NoError(t, os.WriteFile(project.ConfigPath(p.Dir), []byte("dangerously_skip_permissions = true\n"), 0o644))
		p, err := project.Open(p.Dir)
		require.NoError(t, err)
		// A run the command line made with the flag, left interrupted.
		cli, err := orchestrator.Create(p.Store, orchestrator.NewRun{Workflow: wf, Cwd: p.Dir,
			Options: state.Options{SkipPermissions: true}})
		require.NoError(t, err)
		cli.Status = state.StatusRunning
		require.NoError(t, p.Store.Write(cli))

		d, err := Open(Config{Project: p, Runner: r, SkipPermissions: allow, Clock: &orchestrator.InstantClock{}})
		require.NoError(t, err)
		run, err := d.Launch(Launch{Workflow: wf})
		require.NoError(t, err)
		require.Equal(t, []string{cli.WorkflowID}, d.Recover().Resumed)
		for _, id := range []string{run.WorkflowID, cli.WorkflowID} {
			got := waitStatus(t, d, id, state.StatusCompleted)
			require.Equal(t, allow, got.Options.SkipPermissions, "run %s, daemon allows: %v", id, allow)
			if !allow {
				require.Equal(t, orchestrator.DefaultPermissionMode, got.Options.PermissionMode)
			}
		}
		d.Shutdown(context.Background())
		require.NoError(t, d.Close())
	}
}

func TestManifestEnvironmentAndWorkingDirectory(t *testing.T) {
	p, wf, r := testProject(t, map[string]string{
		"workflow.yaml": "name: env\nworking_directory: sub\nenvironment:\n  GREETING: hello from the manifest\n",
		"START.sh":      "#!/bin/bash\necho \"<result>$GREETING in $(basename \"$PWD\")</result>\"\n",
	}, "replies: {}\n")
	require.NoError(t, os.MkdirAll(filepath.Join(p.Dir, "sub"), 0o755))
	d := openDaemon(t, p, r)
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	got := waitStatus(t, d, run.WorkflowID, state.StatusCompleted)
	require.Equal(t, "hello from the manifest in sub", *got.Result)
	require.Equal(t, map[string]string{"GREETING": "hello from the manifest"}, got.Options.Env)
}

// TestCancel stops a run for good: the step in flight is killed, the run
// and its unfinished agents are saved failed as cancelled, and nothing
// drives it again. A run nobody drives is cancelled in its state file; an
// ended run is refused.
func TestCancel(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, `replies:
  START.md: [{text: "<goto>END.md</goto>", wait_for: never}]
  1_START.md: [{text: "<goto>END.md</goto>", wait_for: release}]
  END.md: ["<result>done</result>"]
`)
	// A second workflow whose first state has replies of its own: the
	// cancelled step gives its reply back to START.md's queue.
	wf2 := filepath.Join(p.Dir, "wf2")
	require.NoError(t, os.MkdirAll(wf2, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wf2, "1_START.md"), []byte("Say hello.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wf2, "END.md"), []byte("Finish.\n"), 0o644))
	d := openDaemon(t, p, r)
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	id := run.WorkflowID
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(project.DebugDir(p.Dir), id, "main_START_001.prompt.md"))
		return err == nil
	}, 20*time.Second, 5*time.Millisecond, "the first step never started")
	require.NoError(t, d.Cancel(id))
	got := waitStatus(t, d, id, state.StatusFailed)
	require.Equal(t, Cancelled, got.Error)
	require.Equal(t, state.AgentFailed, got.Agents[0].Status)
	require.Equal(t, Cancelled, got.Agents[0].LastError)
	require.ErrorIs(t, d.Cancel(id), ErrConflict, "an ended run has nothing to cancel")

	// A paused run, not driven: cancelled in its state file.
	run2, err := d.Launch(Launch{Workflow: wf2})
	require.NoError(t, err)
	require.NoError(t, d.Pause(run2.WorkflowID))
	require.NoError(t, os.WriteFile(filepath.Join(p.Dir, "release"), nil, 0o644))
	waitStatus(t, d, run2.WorkflowID, state.StatusPaused)
	require.NoError(t, d.Cancel(run2.WorkflowID))
	got = waitStatus(t, d, run2.WorkflowID, state.StatusFailed)
	require.Equal(t, Cancelled, got.Error)
	require.ErrorIs(t, d.Cancel("nosuch"), ErrNotFound)
}

// TestScriptedRunsSaySo: the runs of a daemon serving scripted replies
// are marked scripted, so their progress and transcripts say no model ran.
func TestScriptedRunsSaySo(t *testing.T) {
	p, wf, _ := testProject(t, twoSteps, twoStepReplies)
	fromFile := func(path, scope string) (step.Runner, step.Runner, error) {
		r, err := scripted.Load(path)
		if err != nil {
			return nil, nil, err
		}
		r.InWorkflow(scope)
		return r, r.Scripts(&script.Runner{}), nil
	}
	d, err := Open(Config{Project: p, Runner: &script.Runner{}, Scripts: &script.Runner{}, Clock: &orchestrator.InstantClock{},
		Replies: filepath.Join(p.Dir, "replies.yaml"), Scripted: fromFile})
	require.NoError(t, err)
	t.Cleanup(func() {
		d.Shutdown(context.Background())
		d.Close()
	})
	run, err := d.Launch(Launch{Workflow: wf})
	require.NoError(t, err)
	got := waitStatus(t, d, run.WorkflowID, state.StatusCompleted)
	require.True(t, got.Options.Scripted)
	events, err := os.ReadFile(filepath.Join(project.DebugDir(p.Dir), run.WorkflowID, "events.jsonl"))
	require.NoError(t, err)
	require.Regexp(t, `"type":"run_started".*"scripted":true`, string(events))
}
