package wftest

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDPrefixes(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"one file", []string{"wf/loop.test.yaml"}, []string{"loop"}},
		{"other names", []string{"a/x.test.yaml", "b/y.test.yaml", "c/special.yaml"}, []string{"x", "y", "special"}},
		{"same name in two folders", []string{"wf/a/fix.test.yaml", "wf/b/fix.test.yaml", "wf/c/other.test.yaml"},
			[]string{"a/fix", "b/fix", "other"}},
		{"same name at different depths", []string{"t/fix.test.yaml", "t/deep/er/fix.test.yaml"},
			[]string{"fix", "deep/er/fix"}},
		{"same stem in one folder", []string{"wf/fix.test.yaml", "wf/fix.yaml", "other/fix.test.yaml"},
			[]string{"wf/fix.test.yaml", "wf/fix.yaml", "other/fix"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, IDPrefixes(tt.paths))
		})
	}
}

func TestRunGivesFilesOfTheSameNameTheirOwnIDs(t *testing.T) {
	files := map[string]string{}
	for _, wf := range []string{"one", "two"} {
		files[wf+"/START.md"] = "Start."
		files[wf+"/wf.test.yaml"] = "cases:\n  - name: ends\n    replies: {START: [\"<result>" + wf + "</result>\"]}\n    expect: {result: " + wf + "}\n"
	}
	rep := runFiles(t, files, Options{}, "one/wf.test.yaml", "two/wf.test.yaml")
	var ids []string
	for _, f := range rep.Files {
		require.NoError(t, f.Err)
		for _, c := range f.Cases {
			ids = append(ids, c.ID)
			assert.Empty(t, c.Failures)
		}
	}
	assert.Equal(t, []string{"one/wf/ends", "two/wf/ends"}, ids)

	dir := filepath.Dir(filepath.Dir(rep.Files[0].Path))
	rep = Run(t.Context(), []string{filepath.Join(dir, "one/wf.test.yaml"), filepath.Join(dir, "two/wf.test.yaml")},
		Options{Run: regexp.MustCompile("^two/")})
	assert.Empty(t, rep.Files[0].Cases, "--run tells the two apart")
	assert.Len(t, rep.Files[1].Cases, 1)
	assert.Equal(t, 1, rep.Unselected)
}
