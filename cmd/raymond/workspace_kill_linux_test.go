//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"raymond/project"
	"raymond/state"
)

// TestWorktreeKillTrials is the random kill trial of runs in the worktree
// mode (issue 22, "Crash safety"). Each trial makes a git repository, runs
// a workflow in --workspace worktree with the fake claude in which main
// forks three workers that each change files over two steps (a claude step
// whose Bash tool writes, then a script state), waits for them, and then
// changes a file itself. `raymond run` is killed with SIGKILL at a moment
// drawn uniformly over an uninterrupted run's length, `raymond resume` is
// killed so too now and then, until the run ends; then `raymond publish`,
// killed sometimes as well. After each trial the draft and then the base
// branch must hold every agent's change exactly once, the user's checkout
// must be untouched until the publish and keep its uncommitted file, no
// worktree, branch or process of the run may be left, and git fsck must
// pass. RAYMOND_KILL_TRIALS sets the number of trials (default 5; the
// figures in docs/performance.md are from a longer run).
func TestWorktreeKillTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the kill trials run raymond many times")
	}
	trials := 5
	if n, err := strconv.Atoi(os.Getenv("RAYMOND_KILL_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	// RAYMOND_KILL_KEEP=DIR makes the trials in DIR and keeps them, to look at.
	root, keep := os.Getenv("RAYMOND_KILL_KEEP"), true
	if root == "" {
		root, keep = t.TempDir(), false
	}
	if stray := strayProject(root); stray != "" {
		t.Fatalf("%s holds a .raymond folder: remove it", stray)
	}

	// An uninterrupted trial first: it checks the harness, and its times
	// are what the kills are spread over.
	k0 := newKillTrial(t, root, 0, nil)
	runTook, pubTook := k0.uninterrupted()

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 22))
	var tally killTally
	tally.phases = map[string]int{}
	for i := 1; i <= trials; i++ {
		k := newKillTrial(t, root, i, rng)
		k.killed(runTook, pubTook, &tally)
		if t.Failed() {
			t.Fatalf("trial %d failed (its repository: %s)", i, k.repo)
		}
		if !keep {
			_ = os.RemoveAll(k.dir)
		}
	}
	t.Logf("%d trials, %d kills (%d of run, %d of resume, %d of publish), %d attempts that ran to their end; uninterrupted run %s, publish %s; where the kills fell: %s; salvage refs kept: %d",
		trials, tally.kills, tally.runKills, tally.resumeKills, tally.publishKills, tally.finished,
		runTook.Round(time.Millisecond), pubTook.Round(time.Millisecond), tally.phaseList(), tally.salvage)
}

type killTally struct {
	kills, runKills, resumeKills, publishKills, finished, salvage int
	phases                                                        map[string]int
}

func (k *killTally) phaseList() string {
	var names []string
	for p := range k.phases {
		names = append(names, p)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, p := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", p, k.phases[p])
	}
	return b.String()
}

// killTrial is one trial: its repository, the fake claude's folder, the
// workflow, and the tag in the environment of every process it starts.
type killTrial struct {
	t                  *testing.T
	dir, repo, fake    string
	wf                 string
	tag                string
	base, draft        string
	rng                *rand.Rand
	notes              bool // the user's uncommitted file is written
	runStarted         bool // a state file exists: resume, not run
	runKills, pubKills int
}

// killWorkers are the three workers' items.
var killWorkers = []string{"a", "b", "c"}

func newKillTrial(t *testing.T, root string, n int, rng *rand.Rand) *killTrial {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("t%03d", n))
	k := &killTrial{t: t, dir: dir, repo: filepath.Join(dir, "repo"), fake: filepath.Join(dir, "fake"),
		wf: filepath.Join(dir, "wf"), tag: fmt.Sprintf("%d-%d", os.Getpid(), n), rng: rng}
	for _, d := range []string{k.repo, k.fake, k.wf} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		".gitignore": ".raymond/\nlocal.env\n",
		"shared.txt": "shared\n",
	}
	for _, w := range killWorkers {
		files[w+"-base.txt"] = w + "\n"
	}
	for name, text := range files {
		k.write(filepath.Join(k.repo, name), text)
	}
	k.git("init", "-q", "-b", "main")
	k.git("add", "-A")
	k.git("commit", "-q", "-m", "base")
	k.base = k.git("rev-parse", "HEAD")
	// An ignored file of the user's, there from the start.
	k.write(filepath.Join(k.repo, "local.env"), "secret=1\n")

	wf := map[string]string{
		"START.md": "Start the work.\n",
		"WORK.md":  "Work on {{item}}.\n",
		"JOIN.md":  "Join the work.\n",
		// The second step of a worker: a script, in the worker's worktree.
		"WORK2.sh": "#!/bin/bash\nset -e\nw=$RAYMOND_INPUT\necho ${w}2 >> $w-new.txt\necho ${w}2 >> $w-base.txt\necho \"<result>$w done</result>\"\n",
		// main waits for the three workers to be merged into its worktree:
		// each loop is a step, and workers are merged at step boundaries.
		// It gives up after 1,000 looks (a worker that failed is never
		// merged), so the trial fails rather than hangs.
		"WAIT.sh": "#!/bin/bash\nn=${RAYMOND_INPUT:-0}\nfor w in a b c; do\n  if ! grep -qx ${w}2 $w-new.txt 2>/dev/null; then\n    if [ $n -ge 1000 ]; then echo '<result>gave up waiting</result>'; exit 0; fi\n    sleep 0.02\n    echo \"<goto input=\\\"$((n+1))\\\">WAIT.sh</goto>\"\n    exit 0\n  fi\ndone\necho '<goto>JOIN.md</goto>'\n",
	}
	for name, text := range wf {
		k.write(filepath.Join(k.wf, name), text)
	}
	var script strings.Builder
	script.WriteString("replies:\n")
	script.WriteString("  - match: '^Start the work'\n    repeat: true\n    delay: 30ms\n")
	script.WriteString("    tools: [{name: Bash, run: 'echo main1 > main.txt', result: ok}]\n")
	script.WriteString("    text: '<fork next=\"WAIT.sh\" item=\"a\">WORK.md</fork><fork next=\"WAIT.sh\" item=\"b\">WORK.md</fork><fork next=\"WAIT.sh\" item=\"c\">WORK.md</fork>'\n")
	for _, w := range killWorkers {
		fmt.Fprintf(&script, "  - match: '^Work on %s\\.'\n    repeat: true\n    delay: 30ms\n", w)
		fmt.Fprintf(&script, "    tools: [{name: Bash, run: 'echo %[1]s1 > %[1]s-new.txt; echo %[1]s1 >> %[1]s-base.txt', result: ok}]\n", w)
		fmt.Fprintf(&script, "    text: '<goto input=\"%s\">WORK2.sh</goto>'\n", w)
	}
	script.WriteString("  - match: '^Join the work'\n    repeat: true\n    delay: 30ms\n")
	script.WriteString("    tools: [{name: Bash, run: 'cat a-new.txt b-new.txt c-new.txt > joined.txt; echo main2 >> main.txt', result: ok}]\n")
	script.WriteString("    text: '<result>all done</result>'\n")
	k.write(filepath.Join(k.fake, "script.yaml"), script.String())
	return k
}

func (k *killTrial) write(path, text string) {
	k.t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		k.t.Fatal(err)
	}
}

// git runs git in the user's checkout and returns its trimmed output.
func (k *killTrial) git(args ...string) string {
	k.t.Helper()
	out, err := k.gitErr(args...)
	if err != nil {
		k.t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out
}

func (k *killTrial) gitErr(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = k.repo
	cmd.Env = k.env()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (k *killTrial) env() []string {
	return append(os.Environ(),
		"FAKE_CLAUDE_DIR="+k.fake, "CLAUDE_CONFIG_DIR="+k.fake, "FAKE_CLAUDE_SCRIPT="+filepath.Join(k.fake, "script.yaml"),
		"NO_COLOR=1", "GORACE=atexit_sleep_ms=0", "KILLTRIAL_TAG="+k.tag,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
}

// attempt runs raymond with args in the repository, killed with SIGKILL
// after kill when kill > 0. It waits until no process of the trial is left
// (what the killed raymond started may still be ending), and reports
// whether the kill came first.
func (k *killTrial) attempt(kill time.Duration, args ...string) (killed bool, phase, out string, err error) {
	k.t.Helper()
	cmd := exec.Command("raymond", args...)
	cmd.Dir = k.repo
	cmd.Env = k.env()
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	// What runs the moment before the kill says where it fell: the steps'
	// processes end with raymond (their parent-death signal), so they are
	// looked for first.
	seen := make(chan []string, 1)
	var timer *time.Timer
	if kill > 0 {
		timer = time.AfterFunc(kill, func() {
			procs := k.processes()
			_ = cmd.Process.Signal(syscall.SIGKILL)
			seen <- procs
		})
	}
	err = cmd.Wait()
	if timer != nil {
		timer.Stop()
	}
	var ee *exec.ExitError
	killed = errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
	if killed {
		phase = killPhase(<-seen)
	}
	k.waitNoProcesses()
	return killed, phase, buf.String(), err
}

// waitNoProcesses waits until no process carries the trial's tag in its
// environment: the fake claudes and scripts of a killed raymond end when it
// does (their parent-death signal), and git finishes what it was doing.
// One still there after 20 s fails the trial.
func (k *killTrial) waitNoProcesses() {
	k.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := k.processes()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("processes of the trial still run 20 s after raymond ended: %s", strings.Join(left, "; "))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// processes lists the processes whose environment holds the trial's tag.
func (k *killTrial) processes() []string {
	want := []byte("KILLTRIAL_TAG=" + k.tag + "\x00")
	ents, _ := os.ReadDir("/proc")
	var left []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			continue // a zombie waits for its parent; it runs nothing
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		left = append(left, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
	}
	return left
}

// run is the run's first command, or after a run was made, its resume.
func (k *killTrial) runArgs() []string {
	if k.runStarted {
		return []string{"resume", "k"}
	}
	return []string{"run", "--workspace", "worktree", "--id", "k", k.wf}
}

func (k *killTrial) stateFile() string {
	return filepath.Join(project.StateDir(k.repo), "k.json")
}

// uninterrupted runs the trial with no kill and returns how long the run
// and the publish took.
func (k *killTrial) uninterrupted() (runTook, pubTook time.Duration) {
	k.t.Helper()
	start := time.Now()
	_, _, out, err := k.attempt(0, k.runArgs()...)
	runTook = time.Since(start)
	if err != nil {
		k.t.Fatalf("the uninterrupted run failed: %v\n%s", err, out)
	}
	k.runStarted = true
	k.writeNotes()
	k.checkDraft()
	start = time.Now()
	_, _, out, err = k.attempt(0, "publish", "k")
	pubTook = time.Since(start)
	if err != nil {
		k.t.Fatalf("the uninterrupted publish failed: %v\n%s", err, out)
	}
	k.checkPublished()
	return runTook, pubTook
}

// killed runs the trial with kills: the run is always killed once, each
// resume with a chance of one in two (at most four kills in all), the
// publish with a chance of one in three, and its retries with one in two.
func (k *killTrial) killed(runTook, pubTook time.Duration, tally *killTally) {
	k.t.Helper()
	for try := 0; ; try++ {
		if try > 30 {
			k.t.Fatalf("the run did not end in 30 attempts")
		}
		var kill time.Duration
		if try == 0 || (k.runKills < 4 && k.rng.IntN(2) == 0) {
			kill = time.Duration(1 + k.rng.Int64N(int64(runTook)))
		}
		args := k.runArgs()
		killed, phase, out, err := k.attempt(kill, args...)
		if killed {
			k.runKills++
			tally.kills++
			if args[0] == "run" {
				tally.runKills++
			} else {
				tally.resumeKills++
			}
			tally.phases[phase]++
		} else {
			tally.finished++
		}
		if _, serr := os.Stat(k.stateFile()); serr == nil {
			k.runStarted = true
		}
		if k.runStarted && !k.notes {
			k.writeNotes()
		}
		if killed {
			k.checkUserCheckout(k.base)
			continue
		}
		// A kill after the run was recorded ended, before raymond
		// exited: the resume says so (exit 6), and the checks follow.
		if err != nil && !(args[0] == "resume" && strings.Contains(out, "run k already completed")) {
			k.t.Fatalf("raymond %s failed after %d kills: %v\n%s", strings.Join(args, " "), k.runKills, err, out)
		}
		break
	}
	k.checkDraft()
	for try := 0; ; try++ {
		if try > 30 {
			k.t.Fatalf("the publish did not end in 30 attempts")
		}
		var kill time.Duration
		if (try == 0 && k.rng.IntN(3) == 0) || (try > 0 && k.pubKills < 4 && k.rng.IntN(2) == 0) {
			kill = time.Duration(1 + k.rng.Int64N(int64(pubTook)))
		}
		killed, phase, out, err := k.attempt(kill, "publish", "k")
		if killed {
			k.pubKills++
			tally.kills++
			tally.publishKills++
			tally.phases["publish: "+phase]++
			continue
		}
		tally.finished++
		if err != nil && !(try > 0 && strings.Contains(out, "was published already")) {
			k.t.Fatalf("raymond publish failed after %d kills: %v\n%s", k.pubKills, err, out)
		}
		break
	}
	k.checkPublished()
	tally.salvage += len(k.refs("refs/raymond"))
}

// killPhase says where a kill fell from the processes raymond had started
// and that still ran the moment it died: the git command at work names the
// phase; a fake claude or a script is a step running; nothing is raymond's
// own work between them (saving the state, scheduling).
func killPhase(procs []string) string {
	phase := "raymond between steps"
	rank := 0
	for _, p := range procs {
		f := strings.Fields(p)
		if len(f) < 2 {
			continue
		}
		var r int
		var name string
		switch filepath.Base(f[1]) {
		case "raymond":
			continue
		case "claude":
			r, name = 1, "step running (claude)"
		case "bash", "sh":
			r, name = 1, "step running (script)"
		case "git":
			sub := ""
			for _, a := range f[2:] {
				if !strings.HasPrefix(a, "-") && a != "." && !strings.Contains(a, "/") && !strings.Contains(a, "=") {
					sub = a
					break
				}
			}
			r = 2
			switch sub {
			case "worktree":
				name = "worktree creation or removal"
			case "merge", "merge-tree", "read-tree":
				name = "merge"
			case "add", "commit", "commit-tree", "write-tree", "update-ref", "update-index", "diff-tree":
				name = "checkpoint"
			case "status", "reset", "clean":
				name = "status, reset or clean (dirty checks, salvage)"
			default:
				name = "other git (" + sub + ")"
			}
		}
		if r > rank {
			rank, phase = r, name
		}
	}
	return phase
}

// writeNotes writes the user's uncommitted file into the checkout, once the
// run has its draft (a new run refuses a dirty checkout).
func (k *killTrial) writeNotes() {
	k.write(filepath.Join(k.repo, "notes.txt"), "my notes\n")
	k.notes = true
}

// expected is what the draft must hold when the run has ended: each
// worker's two steps, main's two, the join.
func (k *killTrial) expected() map[string]string {
	files := map[string]string{
		".gitignore": ".raymond/\nlocal.env\n",
		"shared.txt": "shared\n",
		"main.txt":   "main1\nmain2\n",
		"joined.txt": "a1\na2\nb1\nb2\nc1\nc2\n",
	}
	for _, w := range killWorkers {
		files[w+"-base.txt"] = w + "\n" + w + "1\n" + w + "2\n"
		files[w+"-new.txt"] = w + "1\n" + w + "2\n"
	}
	return files
}

// checkTree checks that the commit rev holds exactly the expected files.
func (k *killTrial) checkTree(rev string) {
	k.t.Helper()
	want := k.expected()
	names := strings.Fields(k.git("ls-tree", "-r", "--name-only", rev))
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	sort.Strings(wantNames)
	if !slices.Equal(names, wantNames) {
		k.t.Errorf("%s holds %v, want %v", rev, names, wantNames)
	}
	for n, text := range want {
		if got, err := k.gitErr("show", rev+":"+n); err != nil || got+"\n" != text {
			k.t.Errorf("%s:%s is %q, want %q", rev, n, got, text)
		}
	}
}

// checkDraft checks the ended run: its result, its draft, the user's
// checkout, the repository.
func (k *killTrial) checkDraft() {
	k.t.Helper()
	r, err := (&state.Store{Dir: project.StateDir(k.repo)}).Read("k")
	if err != nil {
		k.t.Fatal(err)
	}
	if r.Status != state.StatusCompleted || r.Result == nil || *r.Result != "all done" {
		res := "<none>"
		if r.Result != nil {
			res = *r.Result
		}
		k.t.Errorf("the run ended %s with result %q, want completed with %q", r.Status, res, "all done")
	}
	k.checkTree("raymond/k")
	k.draft = k.git("rev-parse", "raymond/k")
	if st := k.git("-C", filepath.Join(k.repo, ".raymond", "worktrees", "k", "main"), "status", "--porcelain"); st != "" {
		k.t.Errorf("the draft's worktree holds changes no checkpoint has: %s", st)
	}
	k.checkUserCheckout(k.base)
	k.fsck()
}

// checkUserCheckout checks the user's checkout: on main at head, with the
// base's files and nothing else changed but the user's own files.
func (k *killTrial) checkUserCheckout(head string) {
	k.t.Helper()
	if got := k.git("rev-parse", "main"); got != head {
		k.t.Errorf("main is at %s, want %s", got, head)
	}
	if got := k.git("symbolic-ref", "HEAD"); got != "refs/heads/main" {
		k.t.Errorf("the checkout is on %s, want main", got)
	}
	want := ""
	if k.notes {
		want = "?? notes.txt"
		if b, err := os.ReadFile(filepath.Join(k.repo, "notes.txt")); err != nil || string(b) != "my notes\n" {
			k.t.Errorf("the user's uncommitted notes.txt is %q (%v)", b, err)
		}
	}
	if got := k.git("status", "--porcelain"); got != want {
		k.t.Errorf("the user's checkout has status %q, want %q", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(k.repo, "local.env")); err != nil || string(b) != "secret=1\n" {
		k.t.Errorf("the user's ignored local.env is %q (%v)", b, err)
	}
}

// checkPublished checks the repository after the publish: main holds the
// run's work, the checkout has it, nothing of the run is left but its
// salvage refs (kept, as documented).
func (k *killTrial) checkPublished() {
	k.t.Helper()
	k.checkTree("main")
	// main has not moved since the run began: the publish is a fast-forward
	// to the draft.
	if got := k.git("rev-parse", "main"); got != k.draft {
		k.t.Errorf("main is at %s after the publish, want the draft's head %s", got, k.draft)
	}
	k.checkUserCheckout(k.git("rev-parse", "main"))
	if wt := k.git("worktree", "list", "--porcelain"); strings.Count(wt, "worktree ") != 1 {
		k.t.Errorf("worktrees left after the publish:\n%s", wt)
	}
	if _, err := os.Stat(filepath.Join(k.repo, ".raymond", "worktrees", "k")); err == nil {
		k.t.Errorf("the run's worktrees folder is left after the publish")
	}
	if b := k.refs("refs/heads/raymond"); len(b) > 0 {
		k.t.Errorf("branches left after the publish: %v", b)
	}
	for _, ref := range k.refs("refs/raymond") {
		if !strings.HasPrefix(ref, "refs/raymond/salvage/k/") {
			k.t.Errorf("ref left after the publish: %s", ref)
		}
	}
	k.fsck()
}

func (k *killTrial) refs(prefix string) []string {
	return strings.Fields(k.git("for-each-ref", "--format=%(refname)", prefix))
}

func (k *killTrial) fsck() {
	k.t.Helper()
	if out, err := k.gitErr("fsck", "--no-dangling", "--no-progress"); err != nil || out != "" {
		k.t.Errorf("git fsck: %v\n%s", err, out)
	}
}
