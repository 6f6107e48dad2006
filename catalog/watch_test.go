package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"raymond/catalog"
)

// watch starts c.Watch until the test ends.
func watch(t *testing.T, c *catalog.Catalog) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.Watch(ctx); err != nil {
			t.Errorf("watch: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// waitFor waits, at each change of the catalog, until ok holds; it fails
// the test when that takes longer than a generous bound.
func waitFor(t *testing.T, c *catalog.Catalog, what string, ok func() bool) {
	t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		changed := c.Changed()
		if ok() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; the list: %v", what, ids(c))
		}
	}
}

// listed reports whether id is in the catalog.
func listed(c *catalog.Catalog, id string) func() bool {
	return func() bool { _, ok := c.Get(id); return ok }
}

// rename writes content to a hidden file beside path and renames it over
// path, as editors save.
func rename(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o644))
	require.NoError(t, os.Rename(tmp, path))
}

func TestLive(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"review/START.md":   done,
		"tools/triage.yaml": "states:\n  START:\n    prompt: \"" + done + "\"\n",
	})
	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	watch(t, c)

	// A new folder that is a workflow appears, however deep.
	write(t, root, map[string]string{"added/START.md": done, "deep/er/still/START.md": done})
	waitFor(t, c, "added", listed(c, "added"))
	waitFor(t, c, "deep/er/still", listed(c, "deep/er/still"))

	// A write to a workflow's file: read again.
	write(t, root, map[string]string{"review/workflow.yaml": "name: Renamed\n"})
	waitFor(t, c, "the new name", func() bool { return get(t, c, "review").Name == "Renamed" })
	write(t, root, map[string]string{"review/START.md": "<goto>NOPE</goto>"})
	waitFor(t, c, "review broken", func() bool { return !get(t, c, "review").Usable })

	// Saved through a rename, as editors do: in a folder and a YAML file.
	rename(t, filepath.Join(root, "review", "START.md"), done)
	waitFor(t, c, "review fixed", func() bool { return get(t, c, "review").Usable })
	rename(t, filepath.Join(root, "tools", "triage.yaml"), "description: Sorts\nstates:\n  START:\n    prompt: \""+done+"\"\n")
	waitFor(t, c, "triage's description", func() bool { return get(t, c, "tools/triage").Description == "Sorts" })

	// A new file that is a workflow appears; a folder that gains an entry
	// state becomes one.
	write(t, root, map[string]string{"plain/notes.md": "# notes"})
	write(t, root, map[string]string{"quick.yaml": "states:\n  START:\n    prompt: \"" + done + "\"\n"})
	waitFor(t, c, "quick", listed(c, "quick"))
	write(t, root, map[string]string{"plain/START.md": done})
	waitFor(t, c, "plain", listed(c, "plain"))

	// A folder renamed: the old ID goes, the new one comes, and the new
	// folder is watched.
	require.NoError(t, os.Rename(filepath.Join(root, "added"), filepath.Join(root, "moved")))
	waitFor(t, c, "moved", func() bool { _, old := c.Get("added"); return !old && listed(c, "moved")() })
	write(t, root, map[string]string{"moved/START.md": "<goto>NOPE</goto>"})
	waitFor(t, c, "moved broken", func() bool { return !get(t, c, "moved").Usable })

	// Removed ones disappear: a folder, a file, a workflow's entry state.
	require.NoError(t, os.RemoveAll(filepath.Join(root, "deep")))
	waitFor(t, c, "deep gone", func() bool { return !listed(c, "deep/er/still")() })
	require.NoError(t, os.Remove(filepath.Join(root, "quick.yaml")))
	waitFor(t, c, "quick gone", func() bool { return !listed(c, "quick")() })
	require.NoError(t, os.Remove(filepath.Join(root, "plain", "START.md")))
	waitFor(t, c, "plain gone", func() bool { return !listed(c, "plain")() })

	// A folder made and filled after its parent was removed and made again.
	require.NoError(t, os.RemoveAll(filepath.Join(root, "tools")))
	write(t, root, map[string]string{"tools/again/START.md": done})
	waitFor(t, c, "tools/again", func() bool { return listed(c, "tools/again")() && !listed(c, "tools/triage")() })
}

func TestLiveBeforeWatch(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"review/START.md": done})
	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	// Changed between New and Watch: seen when Watch starts.
	write(t, root, map[string]string{"early/START.md": done})
	watch(t, c)
	waitFor(t, c, "early", listed(c, "early"))
}

func TestLiveDependents(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"caller/START.md": "<reset-workflow>../lib</reset-workflow>",
		"lib/START.md":    done,
	})
	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	require.True(t, get(t, c, "caller").Usable, "%+v", get(t, c, "caller").Errors)
	watch(t, c)

	// Breaking the workflow it reaches breaks the caller too.
	write(t, root, map[string]string{"lib/START.md": "<goto>NOPE</goto>"})
	waitFor(t, c, "caller broken", func() bool { return !get(t, c, "caller").Usable })
	write(t, root, map[string]string{"lib/START.md": done})
	waitFor(t, c, "caller fixed", func() bool { return get(t, c, "caller").Usable })

	// A missing workflow it names, once made, mends it.
	write(t, root, map[string]string{"other/START.md": "<reset-workflow>../later</reset-workflow>"})
	waitFor(t, c, "other broken", func() bool { return listed(c, "other")() && !get(t, c, "other").Usable })
	write(t, root, map[string]string{"later/START.md": done})
	waitFor(t, c, "other mended", func() bool { return get(t, c, "other").Usable })
}

func TestLiveIgnoresHidden(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"review/START.md": done})
	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	watch(t, c)
	// A hidden workflow is not listed; the visible one made after it
	// proves the burst was handled.
	write(t, root, map[string]string{".hidden/START.md": done, "review/.START.md.swp": "x"})
	write(t, root, map[string]string{"z/START.md": done})
	waitFor(t, c, "z", listed(c, "z"))
	for _, id := range ids(c) {
		require.False(t, strings.Contains(id, "hidden"), id)
	}
}

func TestLiveLinkedRoot(t *testing.T) {
	real := t.TempDir()
	write(t, real, map[string]string{"review/START.md": done})
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(real, link))
	c, err := catalog.New([]string{link}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"review"}, ids(c))
	watch(t, c)
	write(t, link, map[string]string{"added/START.md": done})
	waitFor(t, c, "added", listed(c, "added"))
}

func TestLiveFileRootAndZip(t *testing.T) {
	dir := t.TempDir()
	yamlRoot := filepath.Join(dir, "one.yaml")
	write(t, dir, map[string]string{"one.yaml": "states:\n  START:\n    prompt: \"" + done + "\"\n"})
	zips := filepath.Join(dir, "zips")
	require.NoError(t, os.Mkdir(zips, 0o755))
	makeZip(t, filepath.Join(zips, "packed.zip"), map[string]string{"START.md": done})
	c, err := catalog.New([]string{yamlRoot, zips}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"one", "packed"}, ids(c))
	watch(t, c)

	// A file beside a root that is a file is not the catalog's.
	write(t, dir, map[string]string{"beside.yaml": "states:\n  START:\n    prompt: \"" + done + "\"\n"})
	rename(t, yamlRoot, "description: Edited\nstates:\n  START:\n    prompt: \""+done+"\"\n")
	waitFor(t, c, "one's description", func() bool { return get(t, c, "one").Description == "Edited" })

	// A zip replaced by a broken one, then removed.
	require.NoError(t, os.WriteFile(filepath.Join(zips, "packed.zip"), []byte("not a zip"), 0o644))
	waitFor(t, c, "packed broken", func() bool { return !get(t, c, "packed").Usable })
	require.NoError(t, os.Remove(filepath.Join(zips, "packed.zip")))
	waitFor(t, c, "packed gone", func() bool { return !listed(c, "packed")() })
	require.Equal(t, []string{"one"}, ids(c))
}

func TestLiveRootRemovedAndBack(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wfs")
	write(t, root, map[string]string{"review/START.md": done})
	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	watch(t, c)
	require.NoError(t, os.RemoveAll(root))
	waitFor(t, c, "an empty list", func() bool { return len(c.List()) == 0 })
	write(t, root, map[string]string{"back/START.md": done})
	waitFor(t, c, "back", listed(c, "back"))
	write(t, root, map[string]string{"back/START.md": "<goto>NOPE</goto>"})
	waitFor(t, c, "back broken", func() bool { return !get(t, c, "back").Usable })
}
