package orchestrator_test

// Benchmarks of the orchestrator's own cost: a chain of goto steps and a
// fan-out of 1,000 agents, driven against the fake claude as a real process
// and against the scripted runner. docs/performance.md ("Orchestrator")
// records the numbers and explains how each metric is measured.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"raymond/claude"
	"raymond/orchestrator"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
)

// chainLen is the number of states in BenchmarkStepOverhead's chain.
const chainLen = 50

// fanoutWidth is the number of agents main forks in the fan-out benchmarks.
const fanoutWidth = 1000

// fake is the fake claude built as an executable, with a root folder for the
// FAKE_CLAUDE_DIR of each run.
type fake struct {
	exe     string
	root    string
	n       int
	instant bool // instantclaude, whose script is a rules file
}

// newFake builds the fake claude into a temporary folder (a link of cached
// packages: well under a second) and points the FAKE_CLAUDE_* variables at
// nothing yet; they are restored when b ends.
func newFake(b *testing.B) *fake {
	b.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command to build the fake claude with")
	}
	dir := b.TempDir()
	exe := filepath.Join(dir, "fake-claude")
	out, err := exec.Command(goTool, "build", "-o", exe, "raymond/claude/fakeclaude/cmd/fake-claude").CombinedOutput()
	if err != nil {
		b.Fatalf("build the fake claude: %v\n%s", err, out)
	}
	b.Setenv("FAKE_CLAUDE_ROOT", "0")
	b.Setenv("FAKE_CLAUDE_DIR", "")
	b.Setenv("FAKE_CLAUDE_SCRIPT", "")
	b.Setenv("CLAUDE_CONFIG_DIR", "") // the session store, never the real ~/.claude
	return &fake{exe: exe, root: b.TempDir()}
}

// newInstant builds orchestrator/testdata/instantclaude, the fake that
// answers in as little time as a Go program can: the "instant fake claude"
// the performance targets are stated against. Its rules file is what fresh
// writes.
func newInstant(b *testing.B) *fake {
	b.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command to build the instant claude with")
	}
	exe := filepath.Join(b.TempDir(), "instantclaude")
	out, err := exec.Command(goTool, "build", "-o", exe, "./testdata/instantclaude").CombinedOutput()
	if err != nil {
		b.Fatalf("build the instant claude: %v\n%s", err, out)
	}
	b.Setenv("INSTANT_CLAUDE_RULES", "")
	return &fake{exe: exe, root: b.TempDir(), instant: true}
}

// rules writes replies in instantclaude's rules format: each a prompt
// prefix and the reply, in order.
func rules(pairs ...string) string {
	var s strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		s.WriteString(pairs[i] + "\n" + pairs[i+1] + "\n%%\n")
	}
	return s.String()
}

// fresh gives the fake an empty store (no sessions, no replies used) with
// script, through the environment that raymond passes on to its steps. It
// returns the script's path.
func (f *fake) fresh(b *testing.B, script string) string {
	b.Helper()
	f.n++
	dir := filepath.Join(f.root, strconv.Itoa(f.n))
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Setenv("FAKE_CLAUDE_DIR", dir); err != nil {
		b.Fatal(err)
	}
	if err := os.Setenv("CLAUDE_CONFIG_DIR", dir); err != nil {
		b.Fatal(err)
	}
	if err := os.Setenv("FAKE_CLAUDE_SCRIPT", path); err != nil {
		b.Fatal(err)
	}
	if err := os.Setenv("INSTANT_CLAUDE_RULES", path); err != nil {
		b.Fatal(err)
	}
	return path
}

// spawn runs one bare claude step: the request the orchestrator would make
// for a new session (resume empty) or a goto (resume set).
func (f *fake) spawn(ctx context.Context, prompt, cwd, resume string) (*claude.Result, error) {
	r := claude.Request{
		Executable: f.exe, Prompt: prompt, Cwd: cwd, Resume: resume,
		PermissionMode: orchestrator.DefaultPermissionMode, IdleTimeout: orchestrator.DefaultTimeout,
	}
	if resume == "" {
		r.SessionID = claude.NewSessionID()
	}
	res, err := claude.Run(ctx, r, claude.Handler{})
	if err != nil {
		return nil, err
	}
	if res.Outcome != claude.Success {
		return nil, fmt.Errorf("fake claude step ended %v: %s", res.Outcome, res.Stderr)
	}
	return res, nil
}

// writeWorkflow writes files (name to content) into a new folder and returns it.
func writeWorkflow(b *testing.B, files map[string]string) string {
	b.Helper()
	dir := b.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// newRun creates a run of workflow in a new project folder under root and
// returns a driver for it and its id.
func newRun(b *testing.B, root, workflow string, opts state.Options) (*orchestrator.Driver, string) {
	b.Helper()
	project, err := os.MkdirTemp(root, "project")
	if err != nil {
		b.Fatal(err)
	}
	store, err := state.Open(filepath.Join(project, ".raymond", "state"))
	if err != nil {
		b.Fatal(err)
	}
	opts.Timeout = state.Duration(orchestrator.DefaultTimeout)
	opts.MaxAgents, opts.MaxForks = 1<<20, 1<<20 // the fan-outs go past the default limits on purpose
	r, err := orchestrator.Create(store, orchestrator.NewRun{Workflow: workflow, Options: opts})
	if err != nil {
		b.Fatal(err)
	}
	return &orchestrator.Driver{Store: store, Runner: claude.Runner{}, DebugDir: filepath.Join(project, ".raymond", "debug")}, r.WorkflowID
}

// drive drives run id to its end and fails b unless it completed.
func drive(b *testing.B, d *orchestrator.Driver, id string) *state.Run {
	b.Helper()
	r, err := d.Drive(context.Background(), id, nil)
	if err != nil {
		b.Fatal(err)
	}
	if r.Status != state.StatusCompleted {
		b.Fatalf("run %s ended %s: %s", id, r.Status, r.Error)
	}
	return r
}

// BenchmarkSpawnFake measures the floor of a step: one bare claude.Run of
// the fake as a process, a new session with a one-line reply.
func BenchmarkSpawnFake(b *testing.B) {
	for _, kind := range []string{"full", "instant"} {
		b.Run("fake="+kind, func(b *testing.B) {
			f, script := newFake(b), "replies:\n  - text: \"<result>ok</result>\"\n    repeat: true\n"
			if kind == "instant" {
				f, script = newInstant(b), rules("Say", "<result>ok</result>")
			}
			f.fresh(b, script)
			cwd := b.TempDir()
			ctx := context.Background()
			for b.Loop() {
				if _, err := f.spawn(ctx, "Say ok.", cwd, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// chainWorkflow returns a workflow of chainLen states S01.md … that goto
// each other in turn, the fake's script that answers them in order, and the
// prompts in order.
func chainWorkflow() (files map[string]string, script, instantRules string, prompts []string) {
	files = make(map[string]string, chainLen)
	var s, r strings.Builder
	s.WriteString("replies:\n")
	for i := 1; i <= chainLen; i++ {
		prompt := fmt.Sprintf("Step %d of the chain: do the work, then move on.", i)
		files[fmt.Sprintf("S%02d.md", i)] = prompt + "\n"
		prompts = append(prompts, prompt+"\n")
		next := "<result>done</result>"
		if i < chainLen {
			next = fmt.Sprintf("<goto>S%02d</goto>", i+1)
		}
		fmt.Fprintf(&s, "  - text: %q\n", "Done. "+next)
		r.WriteString(rules(fmt.Sprintf("Step %d of", i), "Done. "+next))
	}
	return files, s.String(), r.String(), prompts
}

// BenchmarkStepOverhead measures what the orchestrator adds to each step: a
// run of a chain of chainLen goto states, each step one fake process, against
// the same chainLen calls made bare with claude.Run (a new session, then
// resumes of it, with the same prompts and script) in the same iteration.
// ns/op is one driven chain; ns/step, floor-ns/step and overhead-ns/step
// are per step.
func BenchmarkStepOverhead(b *testing.B) {
	files, fullScript, instantRules, prompts := chainWorkflow()
	wf := filepath.Join(writeWorkflow(b, files), "S01.md")
	cwd, err := os.Getwd() // where Create puts main
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	full, instant := newFake(b), newInstant(b)
	for _, c := range []struct {
		kind  string
		debug bool
	}{{"instant", true}, {"instant", false}, {"full", true}, {"full", false}} {
		f, script := full, fullScript
		if c.kind == "instant" {
			f, script = instant, instantRules
		}
		debug := c.debug
		b.Run(fmt.Sprintf("fake=%s/debug=%v", c.kind, debug), func(b *testing.B) {
			ctx := context.Background()
			var driven, bare, drivenCPU, bareCPU time.Duration
			for b.Loop() {
				b.StopTimer()
				f.fresh(b, script)
				cpu0 := selfCPU(b)
				start := time.Now()
				var session string
				for i, p := range prompts {
					res, err := f.spawn(ctx, p, cwd, session)
					if err != nil {
						b.Fatalf("bare step %d: %v", i+1, err)
					}
					session = res.SessionID
				}
				bare += time.Since(start)
				bareCPU += selfCPU(b) - cpu0
				f.fresh(b, script)
				d, id := newRun(b, root, wf, state.Options{ClaudePath: f.exe, Debug: debug})
				b.StartTimer()

				cpu0 = selfCPU(b)
				start = time.Now()
				drive(b, d, id)
				driven += time.Since(start)
				drivenCPU += selfCPU(b) - cpu0
			}
			steps := float64(b.N * chainLen)
			b.ReportMetric(float64(driven.Nanoseconds())/steps, "ns/step")
			b.ReportMetric(float64(bare.Nanoseconds())/steps, "floor-ns/step")
			b.ReportMetric(float64((driven-bare).Nanoseconds())/steps, "overhead-ns/step")
			// The wall-clock difference is a small number between two big
			// noisy ones; raymond's own CPU time (its children excluded)
			// measures the same overhead without the noise of spawning.
			b.ReportMetric(float64((drivenCPU-bareCPU).Nanoseconds())/steps, "cpu-overhead-ns/step")
		})
	}
}

// fanoutFiles is the fan-out workflow: START.md forks the workers and goes to
// DONE.md; each worker returns a result.
var fanoutFiles = map[string]string{
	"START.md":  "Start the fan-out.\n",
	"WORKER.md": "Work on {{item}}.\n",
	"DONE.md":   "Finish the fan-out.\n",
}

// forkText is main's first answer: width forks to WORKER, then DONE.
func forkText(width int) string {
	var s strings.Builder
	s.WriteString("Forking the workers.\n")
	for i := 1; i <= width; i++ {
		fmt.Fprintf(&s, "<fork next=\"DONE\" item=\"w%04d\">WORKER</fork>\n", i)
	}
	return s.String()
}

// workerScript answers the workers' and DONE's prompts; the fan-out script
// adds main's first answer in front.
const workerScript = `  - match: "^Work on"
    text: "<result>ok</result>"
    repeat: true
  - match: "^Finish"
    text: "<result>done</result>"
`

// shrinking runs steps as claude processes and, once main's first step has
// ended, rewrites the fake's script without main's fork answer: the fake
// parses its whole script at every call, and 48 KB of YAML would add about
// a millisecond to each of the workers' calls that no real claude pays.
type shrinking struct {
	claude.Runner
	script string // the fake's script file
	once   sync.Once
}

// Run implements step.Runner.
func (s *shrinking) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	res := s.Runner.Run(ctx, req, h)
	var werr error
	if req.Step.State == "START.md" {
		s.once.Do(func() { werr = os.WriteFile(s.script, []byte("replies:\n"+workerScript), 0o644) })
	}
	if werr != nil {
		return step.NotStarted(step.Failed, fmt.Errorf("shrink the fake's script: %w", werr))
	}
	return res
}

// BenchmarkFanout1000 measures a fan-out of fanoutWidth agents, one fake
// process each, with the default --max-parallel and --no-debug.
func BenchmarkFanout1000(b *testing.B) {
	f := newFake(b)
	wf := writeWorkflow(b, fanoutFiles)
	script := fmt.Sprintf("replies:\n  - match: \"^Start\"\n    text: %q\n%s", forkText(fanoutWidth), workerScript)
	root := b.TempDir()
	benchFanout(b, fanoutWidth, func() (*orchestrator.Driver, string) {
		path := f.fresh(b, script)
		d, id := newRun(b, root, wf, state.Options{ClaudePath: f.exe})
		d.Runner = &shrinking{script: path}
		return d, id
	}, func() {
		f.fresh(b, "replies:\n"+workerScript)
		spawnMany(b, f, fanoutWidth+2)
	}, int64(len("replies:\n"+workerScript)))
}

// BenchmarkFanout1000Instant is BenchmarkFanout1000 against instantclaude.
func BenchmarkFanout1000Instant(b *testing.B) {
	benchFanoutInstant(b, fanoutWidth, true)
}

// BenchmarkFanout10000Instant is BenchmarkFanout1000Instant with 10,000
// workers, for its peak memory (at most 40 MiB); it measures no floor.
func BenchmarkFanout10000Instant(b *testing.B) {
	// As cmd/raymond runs (main.go's gcPercent), unless GOGC is set.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(40))
	}
	benchFanoutInstant(b, 10*fanoutWidth, false)
}

// benchFanoutInstant runs benchFanout against instantclaude, with the floor
// of width+2 bare spawns when withFloor is set.
func benchFanoutInstant(b *testing.B, width int, withFloor bool) {
	f := newInstant(b)
	wf := writeWorkflow(b, fanoutFiles)
	script := rules("Start", forkText(width), "Work on", "<result>ok</result>", "Finish", "<result>done</result>")
	root := b.TempDir()
	var floor func()
	if withFloor {
		floor = func() {
			f.fresh(b, script)
			spawnMany(b, f, width+2)
		}
	}
	benchFanout(b, width, func() (*orchestrator.Driver, string) {
		f.fresh(b, script)
		return newRun(b, root, wf, state.Options{ClaudePath: f.exe})
	}, floor, 0)
}

// spawnMany is the floor of the fan-out: n bare fake processes, as many as
// the run has steps, each a new session with a worker's prompt, at most
// DefaultMaxParallel at once, against the fake's current script.
func spawnMany(b *testing.B, f *fake, n int) {
	b.Helper()
	cwd := b.TempDir()
	var g errgroup.Group
	g.SetLimit(orchestrator.DefaultMaxParallel)
	for i := range n {
		g.Go(func() error {
			_, err := f.spawn(context.Background(), fmt.Sprintf("Work on w%04d.\n", i), cwd, "")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFanout1000Scripted measures the same fan-out with the scripted
// runner: the orchestrator's own cost, without processes.
func BenchmarkFanout1000Scripted(b *testing.B) { benchFanoutScripted(b, fanoutWidth) }

// BenchmarkFanoutScripted is BenchmarkFanout1000Scripted at 1,000, 10,000
// and 20,000 workers: the orchestrator's cost must grow linearly with the
// number of agents (s/run at 10,000 at most 11 times the 1,000's).
func BenchmarkFanoutScripted(b *testing.B) {
	for _, width := range []int{1000, 10000, 20000} {
		b.Run(fmt.Sprintf("workers=%d", width), func(b *testing.B) { benchFanoutScripted(b, width) })
	}
}

func benchFanoutScripted(b *testing.B, width int) {
	wf := writeWorkflow(b, fanoutFiles)
	replies := fmt.Sprintf("replies:\n  START.md:\n    - %q\n  WORKER.md:\n    - text: \"<result>ok</result>\"\n      repeat: true\n  DONE.md:\n    - \"<result>done</result>\"\n", forkText(width))
	root := b.TempDir()
	benchFanout(b, width, func() (*orchestrator.Driver, string) {
		runner, err := scripted.Parse("replies.yaml", []byte(replies))
		if err != nil {
			b.Fatal(err)
		}
		d, id := newRun(b, root, wf, state.Options{})
		d.Runner = runner
		return d, id
	}, nil, 0)
}

// benchFanout drives the fan-out runs that setup creates and reports, besides
// ns/op: s/run; cpu-s/run, the CPU time of this process (its children
// excluded), which other work on the machine disturbs less; peak-rss-MB, the process's peak resident memory during a run
// (VmHWM after resetting it through /proc/self/clear_refs; where that is
// refused, hwm-MB, the peak since the process started); heap-peak-MB, the
// largest Go heap sampled every 10 ms; state-bytes, the bytes the process
// wrote during a run (see threadsWchar; with transcripts off and the prompts
// in argv, only the state folder is written, besides extra bytes the setup's
// runner writes, which are subtracted); final-bytes, the size of the final
// state file; and written/final, their ratio. When floor is not nil it runs, untimed, before
// each run, and floor-s/run reports how long it took.
func benchFanout(b *testing.B, width int, setup func() (*orchestrator.Driver, string), floor func(), extra int64) {
	var rssPeak, heapPeak uint64
	var written, final int64
	var wall, floorWall, cpu time.Duration
	resetHWM := true
	for b.Loop() {
		b.StopTimer()
		if floor != nil {
			start := time.Now()
			floor()
			floorWall += time.Since(start)
		}
		d, id := setup()
		runtime.GC()
		resetHWM = resetHWM && os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
		wchar0 := threadsWchar(b)
		stop := sampleHeap()
		b.StartTimer()

		start, cpu0 := time.Now(), selfCPU(b)
		r := drive(b, d, id)
		wall += time.Since(start)
		cpu += selfCPU(b) - cpu0

		b.StopTimer()
		heapPeak = max(heapPeak, stop())
		written += threadsWchar(b) - wchar0 - extra
		rssPeak = max(rssPeak, uint64(procField(b, "/proc/self/status", "VmHWM"))<<10)
		if len(r.Agents) != width+1 {
			b.Fatalf("run has %d agents, want %d", len(r.Agents), width+1)
		}
		fi, err := os.Stat(d.Store.Path(id))
		if err != nil {
			b.Fatal(err)
		}
		final += fi.Size()
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(wall.Seconds()/n, "s/run")
	b.ReportMetric(cpu.Seconds()/n, "cpu-s/run")
	if floor != nil {
		b.ReportMetric(floorWall.Seconds()/n, "floor-s/run")
	}
	if resetHWM {
		b.ReportMetric(float64(rssPeak)/1e6, "peak-rss-MB")
	} else {
		b.ReportMetric(float64(rssPeak)/1e6, "hwm-MB")
	}
	b.ReportMetric(float64(heapPeak)/1e6, "heap-peak-MB")
	b.ReportMetric(float64(written)/n, "state-bytes")
	b.ReportMetric(float64(final)/n, "final-bytes")
	b.ReportMetric(float64(written)/float64(final), "written/final")
}

// sampleHeap samples the bytes of live and not yet swept heap objects every
// 10 ms until the returned func is called, which returns the largest sample.
func sampleHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				read()
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		read()
		return peak
	}
}

// threadsWchar returns the bytes this process's threads have passed to
// write calls: the sum of wchar over /proc/self/task/*/io. /proc/self/io
// will not do: it adds the I/O of every child the process has reaped, here
// the fake claude's own writes. A thread that exits takes its count with it;
// the Go runtime keeps its threads, and the sum matched strace's count of the
// writes to the state folder.
func threadsWchar(b *testing.B) int64 {
	b.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		b.Skipf("the fan-out benchmarks need Linux's /proc: %v", err)
	}
	var n int64
	for _, t := range tasks {
		n += procField(b, filepath.Join("/proc/self/task", t.Name(), "io"), "wchar")
	}
	return n
}

// procField returns the number of a "key: number [unit]" line of a /proc
// file; it skips b where there is no such file (not Linux).
func procField(b *testing.B, path, key string) int64 {
	b.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		b.Skipf("no %s: the fan-out benchmarks need Linux's /proc", path)
	} else if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		k, v, _ := strings.Cut(line, ":")
		if f := strings.Fields(v); k == key && len(f) > 0 {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return n
			}
		}
	}
	b.Fatalf("%s has no number for %s", path, key)
	return 0
}

// selfCPU returns the user and system CPU time this process has used, its
// children excluded.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
