//go:build unix

package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/catalog"
	"raymond/daemon"
	"raymond/project"
	"raymond/script"
	"raymond/scripted"
)

// realWorkflows are the workflows of the page's test against the real
// daemon, by path under the workflows root: one that asks, with a
// deadline; one that forks two workers; one broken.
var realWorkflows = map[string]string{
	"approve/workflow.yaml": `name: Approval
description: Ask before shipping a version.
input:
  mode: required
  label: Version
  description: the version to ship, like v1.4.0
`,
	"approve/1_START.md": `---
allowed_transitions:
  - { tag: ask, next: DECIDE.md, timeout_next: LATE.md, timeout: 1h }
---
Ask whether to ship {{input}}.
`,
	"approve/DECIDE.md": `---
allowed_transitions:
  - { tag: result }
---
The person said {{input}}.
`,
	"approve/LATE.md": `---
allowed_transitions:
  - { tag: result }
---
Nobody answered.
`,
	"survey/workflow.yaml": `name: Survey
description: Two workers look at two folders.
input:
  mode: none
`,
	"survey/START.md": `---
allowed_transitions:
  - { tag: fork, target: WORKER.md, next: JOIN.md }
  - { tag: result }
---
Fork one worker per folder.
`,
	"survey/WORKER.md": `---
allowed_transitions:
  - { tag: goto, target: REPORT.md }
---
Look at {{item}}.
`,
	"survey/REPORT.md": `---
allowed_transitions:
  - { tag: result }
---
Report on {{item}}.
`,
	"survey/JOIN.md": `---
allowed_transitions:
  - { tag: result }
---
Join.
`,
	"broken/1_START.md": "Go on. <goto>NOPE.md</goto>\n",
}

// realReplies answer the steps. The held steps wait for files of the
// hold/ folder, which the test writes when it wants them to go on.
const realReplies = `replies:
  1_START.md:
    - text: '<ask next="DECIDE.md" timeout_next="LATE.md">Ship {{input}} to production? Answer yes or no.</ask>'
      say: ["Reading the changelog of {{input}}."]
      wait_for: hold/approve-start
      cost: 0.12
  DECIDE.md:
    - text: "<result>Shipped {{input}}.</result>"
      cost: 0.05
  START.md:
    - text: '<fork item="api">WORKER.md</fork><fork item="web">WORKER.md</fork><goto>JOIN.md</goto>'
      cost: 0.1
  JOIN.md:
    - text: "<result>Both folders surveyed.</result>"
      cost: 0.02
  WORKER.md:
    - text: "<goto>REPORT.md</goto>"
      tools: [{name: Bash, input: {command: "ls {{item}}"}, result: "main.go"}]
      wait_for: hold/{{item}}
      cost: 0.2
      times: 2
  REPORT.md:
    - text: "<result>Reported.</result>"
      cost: 0.05
      times: 2
`

// realStack is the daemon behind the page: a project, its workflows, the
// scripted runner and the server on loopback.
type realStack struct {
	dir  string // the project
	hold string // the folder the held steps wait in
	d    *daemon.Daemon
	srv  *httptest.Server
}

// release lets the steps waiting for hold/name go on.
func (s *realStack) release(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(s.hold, name), nil, 0o644))
}

func newRealStack(t *testing.T, token string) *realStack {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".raymond"), 0o755))
	p, err := project.Open(dir)
	require.NoError(t, err)
	require.NoError(t, p.Init())
	root := filepath.Join(dir, "workflows")
	for name, text := range realWorkflows {
		path := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	hold := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(hold, "hold"), 0o755))
	replies := filepath.Join(hold, "replies.yaml")
	require.NoError(t, os.WriteFile(replies, []byte(realReplies), 0o644))
	r, err := scripted.Load(replies)
	require.NoError(t, err)

	d, err := daemon.Open(daemon.Config{Project: p, Runner: r, Scripts: r.Scripts(&script.Runner{})})
	require.NoError(t, err)
	cat, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = d.Watch(ctx) })
	wg.Go(func() { _ = cat.Watch(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		d.Kill()
		d.Shutdown(context.Background())
		_ = d.Close()
	})
	srv := httptest.NewServer(New(Config{Daemon: d, Workflows: cat, Token: token, Version: "test", Page: Page()}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)
	return &realStack{dir: dir, hold: filepath.Join(hold, "hold"), d: d, srv: srv}
}

// TestPageAgainstTheDaemon drives the page in Chromium against the real
// daemon, server and catalog, with scripted steps: what the page shows is
// what the daemon really sends.
func TestPageAgainstTheDaemon(t *testing.T) {
	const token = "T0KEN-real"
	s := newRealStack(t, token)
	d := newPageDriver(t, s.srv.URL, token)
	d.shots = "/tmp/real-"

	// The workflows, the broken one with its error.
	d.open("/")
	d.waitText("#workflows [data-key=approve] h3", "Approval")
	d.waitText("#workflows [data-key=survey] h3", "Survey")
	d.waitText("#workflows [data-key=broken] .findings", "NOPE.md")
	d.waitGone("#workflows [data-key=broken] form")
	d.waitText("#steps", "steps 0 / 8")
	d.screenshot("home")

	// Launch the approval with its input; the page opens the run.
	d.click("#workflows [data-key=approve] summary")
	d.typeIn("#workflows [data-key=approve] textarea", "v1.4.0")
	d.typeIn("#workflows [data-key=approve] input[name=budget]", "2")
	d.click("#workflows [data-key=approve] button[type=submit]")
	d.until("the run's page", `() => location.hash.startsWith("#/runs/")`)
	first := runIDOf(d)
	d.waitText("#run-id", first)
	d.waitText("#run-timeline", "run started")
	d.waitText("#run-timeline", "step 1 1_START.md")
	d.waitText("#run-agents tr[data-agent=main]", "1_START.md")
	d.waitText("#run-agents tr[data-agent=main] .status", "running")
	d.waitText("#run-status", "running")
	d.waitText("#run-cost", "$0.00 spent of $2.00")
	d.waitText("#steps", "steps 1 / 8")
	d.screenshot("run-step")

	// The step ends with an ask, shown on the run's page.
	s.release(t, "approve-start")
	ask := "#run-asks [data-key='" + first + "/ask_main_1']"
	d.waitText(ask+" pre", "Ship v1.4.0 to production?")
	d.waitText(ask, "Answer within 59m")
	d.waitText("#run-timeline", "asks ask_main_1")
	d.waitText("#run-cost", "$0.12 spent of $2.00")
	d.waitText("#run-status", "asking")
	d.waitText("#run-agents tr[data-agent=main] .status", "asking")
	d.screenshot("run-ask")

	// The runs table says asking too; the answer goes from the home
	// page's Questions, and the run goes on.
	d.click("a[href='#/']")
	d.waitText("#runs tr[data-run='"+first+"'] .status", "asking")
	d.waitText("#runs tr[data-run='"+first+"']", "asking 1 question")
	homeAsk := "#asks [data-key='" + first + "/ask_main_1']"
	d.waitText(homeAsk+" pre", "Ship v1.4.0 to production?")
	d.screenshot("home-ask")
	d.typeIn(homeAsk+" textarea", "yes")
	d.click(homeAsk + " button[type=submit]")
	d.waitGone(homeAsk)
	d.waitText("#asks-empty", "No agent is waiting")
	d.click("#runs a[href='#/runs/" + first + "']")
	d.waitText("#run-timeline", "ask_main_1 answered")
	d.waitText("#run-status", "completed")
	d.waitText("#run-result", "Shipped yes.")
	d.waitText("#run-cost", "$0.17 spent of $2.00")
	d.waitText("#run-timeline", "run ended: completed")
	d.screenshot("run-done")

	// The second: three agents, paused while its workers' steps run.
	d.click("a[href='#/']")
	d.click("#workflows [data-key=survey] summary")
	// Enough for the three steps that start together after START (JOIN and
	// the two workers) to each get a share ($0.70 / 3) above what a worker's
	// step costs ($0.20): steps in flight share what is left of the budget.
	d.typeIn("#workflows [data-key=survey] input[name=budget]", "0.8")
	d.click("#workflows [data-key=survey] button[type=submit]")
	d.until("the second run's page", `(first) => location.hash.startsWith("#/runs/") && !location.hash.endsWith(first)`, first)
	second := runIDOf(d)
	d.waitText("#run-id", second)
	d.waitText("#run-agents tr[data-agent=main_worker1]", "WORKER.md")
	d.waitText("#run-agents tr[data-agent=main_worker2]", "WORKER.md")
	d.waitText("#run-agents tr[data-agent=main_worker1] .activity", "step WORKER.md")
	d.waitText("#run-timeline", "spawned main_worker1")
	d.waitText("#run-status", "running")
	d.waitText("#steps", "steps 2 / 8")
	d.screenshot("run-fork")
	d.click("#run-pause")
	d.waitText("#run-action-message", "Pausing")
	d.waitText("#run-timeline", "stopping: steps in flight finish")
	s.release(t, "api")
	s.release(t, "web")
	d.waitText("#run-status", "paused")
	d.waitText("#run-timeline", "paused")
	d.waitText("#run-agents tr[data-agent=main_worker1]", "REPORT.md")
	d.until("the pausing note gone", `() => document.querySelector("#run-action-message").textContent === ""`)
	d.screenshot("run-paused")

	// Resume with a larger budget: it completes.
	d.typeIn("#run-budget", "5")
	d.click("#run-resume")
	d.waitText("#run-status", "completed")
	d.waitText("#run-cost", "$0.62 spent of $5.00")
	d.waitText("#run-timeline", "run resumed")
	d.waitText("#run-timeline", "run ended: completed")
	d.screenshot("run-resumed")

	// Its transcript report, in its frame, as of the run's end.
	d.until("the report of the ended run in its frame", `() => { const f = document.querySelector("#run-report"); return f.dataset.status === "completed" && (f.getAttribute("src") || "").includes("/report"); }`)
	var src string
	d.do(chromedp.Evaluate(`document.querySelector("#run-report").src`, &src))
	res, err := http.Get(src)
	require.NoError(t, err)
	report, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "the report link works without the token: %s", report)
	assert.Contains(t, string(report), "Both folders surveyed.")
	assert.NotContains(t, string(report), "still running")
	d.screenshotOf("#run-report", "report")

	// The runs table has both; the first is deleted from its page.
	d.click("a[href='#/']")
	d.waitText("#runs tr[data-run='"+first+"'] .status", "completed")
	d.waitText("#runs tr[data-run='"+second+"'] .status", "completed")
	d.click("#runs a[href='#/runs/" + first + "']")
	d.waitText("#run-status", "completed")
	d.click("#run-delete")
	d.click("#run-delete-yes")
	d.waitGone("#runs tr[data-run='" + first + "']")
	d.waitText("#runs tr[data-run='"+second+"']", "survey")
	d.screenshot("deleted")
	_, err = s.d.Detail(first)
	assert.Error(t, err, "the deleted run is gone from the daemon")

	// A link to a run opens it: with the token, in a new page or in this
	// one, and without it once the token is stored.
	link := s.srv.URL + "/#token=" + token + "&/runs/" + second
	d.do(chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	d.waitText("#run-id", second)
	d.waitText("#run-status", "completed")
	assert.Equal(t, "#/runs/"+second, d.hash(), "the token leaves the address, the run stays")
	d.click("a[href='#/']")
	d.waitText("#runs tr[data-run='"+second+"'] .status", "completed")
	d.do(chromedp.Navigate(link))
	d.waitText("#run-id", second)
	d.waitText("#run-timeline", "run ended: completed")
	assert.Equal(t, "#/runs/"+second, d.hash())
	d.do(chromedp.Navigate("about:blank"), chromedp.Navigate(s.srv.URL+"/#/runs/"+second))
	d.waitText("#run-id", second)
	d.waitText("#run-status", "completed")
	d.screenshot("deep-link")

	assert.Empty(t, d.Problems(), "the page wrote errors to the console")
}

// runIDOf is the id of the run the page shows, from its address.
func runIDOf(d *pageDriver) string {
	d.t.Helper()
	var id string
	d.do(chromedp.Evaluate(`decodeURIComponent(location.hash.slice("#/runs/".length))`, &id))
	require.NotEmpty(d.t, id)
	return id
}
