//go:build unix

package server

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
)

// TestPageDraftInChromium: the page of a run in the worktree mode shows
// its draft's files and, folded, its patch (markup in it stays text), and
// publishes and discards it, each after a confirmation.
func TestPageDraftInChromium(t *testing.T) {
	e := newEnv(t, helloAgain, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	worktreeRun(t, e, id)
	other := e.launch("hello")
	e.waitStatus(other, "completed")
	shared := e.launch("hello")
	e.waitStatus(shared, "completed")
	srv := httptest.NewServer(New(Config{Daemon: e.d, Workflows: e.cat, Token: testToken, Version: "test", Page: Page()}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)

	d := newPageDriver(t, srv.URL, testToken)
	d.open("/")
	goTo := func(id string) { d.do(chromedp.Evaluate(`location.hash = "#/runs/`+id+`"`, nil)) }
	goTo(shared)
	d.waitText("#run-id", shared)
	d.waitText("#run-status", "completed")
	d.until("no Changes box for a shared run", `() => document.getElementById("run-draft-box").hidden`)

	goTo(id)
	d.waitText("#run-id", id)
	d.waitText("#run-draft-summary", "1 file changed, +2 −0")
	d.waitText("#run-draft-files", "page.html")
	d.waitText("#run-draft-state", "Draft raymond/"+id+", from main at ")
	d.until("the patch folded", `() => !document.getElementById("run-draft-patch-box").open`)
	d.click("#run-draft-patch-box summary")
	d.until("the patch shown as text", `() => {
		const pre = document.getElementById("run-draft-patch");
		return pre.getBoundingClientRect().height > 0 && pre.textContent.includes("+<script>window.pwned = true;</script>") &&
			pre.querySelector("script") === null && window.pwned !== true;
	}`)
	d.screenshot("draft")

	// Publish asks first; Cancel leaves everything as it was.
	d.click("#run-publish")
	d.waitText("#run-publish-confirm", "Merge this draft into the branch it started from?")
	d.click("#run-publish-no")
	d.until("the question gone", `() => document.getElementById("run-publish-confirm").hidden`)
	d.click("#run-publish")
	d.click("#run-publish-yes")
	d.waitText("#run-draft-message", "Published into main (fast-forward) at ")
	d.waitText("#run-draft-state", "Published into main as ")
	d.until("publish and discard disabled", `() => document.getElementById("run-publish").disabled && document.getElementById("run-discard").disabled`)
	_, err := os.Stat(filepath.Join(e.dir, "page.html"))
	assert.NoError(t, err, "the checkout did not get the draft")

	// The other run's draft is discarded.
	worktreeRun(t, e, other)
	goTo(other)
	d.waitText("#run-id", other)
	d.waitText("#run-draft-summary", "1 file changed, +1 −1")
	d.until("the patch folded again", `() => !document.getElementById("run-draft-patch-box").open`)
	d.click("#run-discard")
	d.waitText("#run-discard-confirm", "Drop this draft for good?")
	d.click("#run-discard-yes")
	d.waitText("#run-draft-message", "Discarded: worktree ")
	d.waitText("#run-draft-state", "Discarded")
	d.waitText("#run-draft-summary", "run "+other+" was discarded: its draft is gone")
	assert.NoDirExists(t, filepath.Join(e.dir, ".raymond", "worktrees", other))
	assert.Empty(t, unexpected(d.Problems()))
}
