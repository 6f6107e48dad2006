package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// clone clones this project's own repository (/work/main, else
// RAYMOND_BENCH_REPO) into a new folder, as a real repository to measure
// on; it skips when there is none.
func clone(b *testing.B) string {
	b.Helper()
	needGit(b)
	src := os.Getenv("RAYMOND_BENCH_REPO")
	if src == "" {
		out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			b.Skip("not in a git repository, and RAYMOND_BENCH_REPO is not set")
		}
		src = strings.TrimSpace(string(out))
	}
	dir := filepath.Join(b.TempDir(), "repo")
	if out, err := exec.Command("git", "clone", "--quiet", "--local", src, dir).CombinedOutput(); err != nil {
		b.Skipf("cannot clone %s: %v\n%s", src, err, out)
	}
	return dir
}

// BenchmarkWorkerWorktree makes a worker's worktree on a branch of its own
// from the draft's head, as a fork does (target: 80 ms median).
func BenchmarkWorkerWorktree(b *testing.B) {
	repo := clone(b)
	ctx := context.Background()
	from := gitT(b, repo, "rev-parse", "HEAD")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		agent := fmt.Sprintf("main_w%d", i)
		if err := AddWorktree(ctx, repo, WorktreeDir(repo, "bench", agent), WorkerBranch("bench", agent), from); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpoint commits a step that changed 10 files of the
// repository (target: 30 ms median).
func BenchmarkCheckpoint(b *testing.B) {
	repo := clone(b)
	ctx := context.Background()
	dir := WorktreeDir(repo, "bench", "main")
	if err := AddWorktree(ctx, repo, dir, DraftBranch("bench"), "HEAD"); err != nil {
		b.Fatal(err)
	}
	files := strings.Fields(gitT(b, dir, "ls-files", "*.go"))[:10]
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), fmt.Appendf(nil, "package x // %d\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		cp, err := Checkpoint(ctx, dir, Step{Run: "bench", Agent: "main", State: "S.md", Seq: i})
		if err != nil || cp == nil || len(cp.Files) != 10 {
			b.Fatalf("checkpoint: %v %+v", err, cp)
		}
	}
}

// BenchmarkWorktreesDisk makes 100 workers' worktrees and reports the disk
// they take (du of .raymond/worktrees/<run>) beside the repository's own
// objects, which they share.
func BenchmarkWorktreesDisk(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		repo := clone(b)
		ctx := context.Background()
		from := gitT(b, repo, "rev-parse", "HEAD")
		b.StartTimer()
		for i := range 100 {
			agent := fmt.Sprintf("main_w%d", i)
			if err := AddWorktree(ctx, repo, WorktreeDir(repo, "bench", agent), WorkerBranch("bench", agent), from); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(du(b, WorktreesDir(repo, "bench")))/1e6, "MB-worktrees")
		b.ReportMetric(float64(du(b, filepath.Join(repo, ".git", "objects")))/1e6, "MB-objects")
		b.ReportMetric(float64(du(b, filepath.Join(repo, ".git", "worktrees")))/1e6, "MB-admin")
		b.StartTimer()
	}
}

// du is the disk use of dir in bytes (du -sk).
func du(b *testing.B, dir string) int64 {
	out, err := exec.Command("du", "-sk", dir).Output()
	if err != nil {
		b.Fatal(err)
	}
	var kb int64
	fmt.Sscan(string(out), &kb)
	return kb * 1024
}
