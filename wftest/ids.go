package wftest

import (
	"path/filepath"
	"strings"
)

// IDPrefixes returns, for each test file of paths, what the ids of its
// cases start with: the file's name without .test.yaml (its stem), as in
// "goto-loop/fixes three tests". Files run together whose stems are the
// same would give the same ids; each of them is named instead by its path
// from the deepest folder that holds them all, without .test.yaml
// ("a/fix" and "b/fix" for a/fix.test.yaml and b/fix.test.yaml), or with
// its whole name when that is still ambiguous (fix.yaml beside
// fix.test.yaml). So ids are short, and unique in one run.
func IDPrefixes(paths []string) []string {
	out := make([]string, len(paths))
	same := make(map[string][]int) // stem → the files that have it
	for i, p := range paths {
		out[i] = stem(p)
		same[out[i]] = append(same[out[i]], i)
	}
	for _, group := range same {
		if len(group) < 2 {
			continue
		}
		abs := make([]string, len(group))
		for k, i := range group {
			abs[k] = absPath(paths[i])
		}
		root := commonDir(abs)
		taken := make(map[string]int)
		for k, i := range group {
			out[i] = relSlash(root, filepath.Join(filepath.Dir(abs[k]), stem(abs[k])))
			taken[out[i]]++
		}
		for k, i := range group {
			if taken[out[i]] > 1 {
				out[i] = relSlash(root, abs[k])
			}
		}
	}
	return out
}

// absPath returns path made absolute, or path when it cannot be.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// commonDir returns the deepest folder that holds every file of paths,
// which are absolute.
func commonDir(paths []string) string {
	root := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for !within(root, filepath.Dir(p)) {
			parent := filepath.Dir(root)
			if parent == root {
				break
			}
			root = parent
		}
	}
	return root
}

// within reports whether dir is root or a folder under it.
func within(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relSlash returns target relative to root, with forward slashes.
func relSlash(root, target string) string {
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return filepath.ToSlash(target)
	}
	return filepath.ToSlash(rel)
}
