package analysis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"raymond/state"
)

// changesRun is a run in the worktree mode: two steps of main, the first
// of which made a checkpoint whose patch holds markup that must stay
// text.
func changesRun() *Run {
	r := htmlRunOf("ws", []htmlStepSpec{
		{agent: "main", state: "START.md", from: 0, to: 1, outcome: "success", cost: 0.01, tag: "goto", target: "NEXT.md"},
		{agent: "main", state: "NEXT.md", from: 1, to: 2, outcome: "success", cost: 0.01, tag: "result"},
	}, map[string][]htmlVisitSpec{"main": {{steps: []int{0}}, {via: "goto", steps: []int{1}}}})
	files := []state.FileStat{{Path: "page.html", Added: 2}, {Path: "logo.png", Binary: true}}
	r.Steps[0].Checkpoint = &state.Checkpoint{Commit: strings.Repeat("a", 40), Parent: strings.Repeat("b", 40), Branch: "raymond/ws", Files: files}
	patch := "diff --git a/page.html b/page.html\n--- /dev/null\n+++ b/page.html\n@@ -0,0 +1,2 @@\n+<p>hi</p>\n+<script>window.pwned = true;</script>\n"
	r.Changes = &Changes{Branch: "raymond/ws", Base: strings.Repeat("b", 40), Head: strings.Repeat("a", 40), Status: state.DraftOpen,
		Files: files, Patch: patch, Steps: map[string]string{r.Steps[0].Name: patch}, Cut: map[string]bool{r.Steps[0].Name: true}}
	return r
}

func TestHTMLChanges(t *testing.T) {
	page := htmlReport(t, changesRun(), nil)
	assert.Contains(t, page, `<section id="changes">`)
	assert.Contains(t, page, "Draft raymond/ws from bbbbbbb: 2 files &#43;2 -0")
	assert.Contains(t, page, "main:1 START.md")
	assert.Contains(t, page, "&lt;script&gt;window.pwned = true;&lt;/script&gt;")
	assert.NotContains(t, page, "<script>window.pwned")
	assert.Contains(t, page, "raymond transcript RUN_ID --diff main_START_001 prints it whole")
	assert.Equal(t, 1, strings.Count(page, `class="patch step-change"`), "one step made a checkpoint")

	shared := htmlReport(t, htmlRunOf("sh", []htmlStepSpec{{agent: "main", state: "START.md", from: 0, to: 1, outcome: "success", tag: "result"}},
		map[string][]htmlVisitSpec{"main": {{steps: []int{0}}}}), nil)
	assert.NotContains(t, shared, `id="changes"`, "a run in the shared mode has no Changes section")
}
