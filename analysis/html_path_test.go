package analysis

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Siblings that went the same way are one block, as in the text report;
// those that went another way have their own, and each agent of a group
// keeps an anchor inside its group's block.
func TestHTMLPathGroups(t *testing.T) {
	r := htmlWideRun(30)
	odd := r.Agents[7]
	odd.Status, odd.Error = "failed", "WORK.md: boom"
	page := htmlReport(t, r, nil)
	assert.Equal(t, 3, strings.Count(page, `<details class="agent"`), "main, the group, main_worker7")
	htmlHas(t, page,
		`<code class="agent-id">main_worker1 … main_worker29 but main_worker7 (28 agents)</code>`,
		`· each forked by <a href="#agent-main">main</a>`,
		`<details class="members"><summary>28 agents, all the same way:</summary><p><code>main_worker1</code>, <code id="agent-main_worker2">main_worker2</code>`,
		`<span class="chip">28 steps · 18m40s</span></span> <span class="dim">$0.5600</span>`,
		`<details class="agent" id="agent-main_worker7" open>`,
	)
}

// With more blocks than are shown open, those with a problem or a step
// of the critical path are opened first.
func TestHTMLPathOpensTellingAgentsFirst(t *testing.T) {
	r := htmlWideRun(40)
	for i, a := range r.Agents[1:] {
		a.SpawnStep = fmt.Sprintf("main_START_%03d", i) // no two alike: no groups
	}
	htmlStepNamed(r, r.Agents[33].StepNames[0]).Outcome = "crash"
	r.CriticalPath = []string{"main_START_001", r.Agents[36].StepNames[1]}
	page := htmlReport(t, r, nil)
	open := regexp.MustCompile(`<details class="agent" id="agent-([^"]*)" open>`).FindAllStringSubmatch(page, -1)
	require.Len(t, open, htmlOpenAgents)
	var ids []string
	for _, m := range open {
		ids = append(ids, m[1])
	}
	assert.Subset(t, ids, []string{"main", "main_worker33", "main_worker36"})
	assert.Contains(t, ids, "main_worker9", "the rest in order, as far as the limit goes")
	assert.NotContains(t, ids, "main_worker10")
}

// The header of an agent says what its time is; the timeline draws, under
// its bars, the time it lived without a step running.
func TestHTMLAgentTimeAndLife(t *testing.T) {
	r := htmlRealisticRun()
	page := htmlReport(t, r, nil)
	htmlHas(t, page, "8 steps · $0.4086 · 2m24s in steps, 9m20s from start to end</span>")
	tl := buildTimeline(r, htmlAnchors(r), map[string]bool{})
	main := tl.Rows[0]
	require.Equal(t, "main", main.Full)
	assert.InDelta(t, float64(tlLabelW), main.LifeX, 0.1)
	assert.InDelta(t, float64(tlPlotW), main.LifeW, 1, "main lives from the first step to the last")
	htmlHas(t, page, `<rect class="life" x="170" `, "the agent waits (for a slot, a retry or the agents it forked)")
}
