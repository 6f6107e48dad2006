//go:build unix

package analysis

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/internal/chromium"
)

// These tests open the HTML report in headless Chromium (Debian's
// chromium package; .ci/run installs it) and check that it renders: the
// charts have bars of some size and no script fails. Without chromium
// they skip, unless RAYMOND_REQUIRE_CHROMIUM=1, as in CI. Setting
// RAYMOND_REPORT_PNG=FILE keeps the screenshot for a person to look at.

// chromiumMeasure goes last in <body>: it measures the rendered charts
// and writes the result as JSON into an attribute of <html>.
const chromiumMeasure = `<script>
(function () {
  function measure(selector) {
    var els = document.querySelectorAll(selector), sized = 0;
    for (var i = 0; i < els.length; i++) {
      var r = els[i].getBoundingClientRect();
      if (r.width > 0 && r.height > 0) {
        sized++;
      }
    }
    return {count: els.length, sized: sized};
  }
  var controls = document.getElementById("step-controls");
  document.documentElement.setAttribute("data-measure", JSON.stringify({
    timeline: measure("svg.timeline"),
    timelineBars: measure("svg.timeline rect.bar"),
    waits: measure("svg.timeline rect.wait"),
    costs: measure("svg.costs"),
    costBars: measure("svg.costs rect.bar"),
    steps: measure("details.step"),
    askBars: measure("svg.timeline rect.askbar"),
    asks: measure("#asks li.ask"),
    graph: measure("#workflow svg.diagram"),
    graphStates: measure("#workflow svg.diagram g.state"),
    graphVisits: measure("#workflow svg.diagram g.visits"),
    graphNote: measure("#workflow p.note"),
    scriptRan: controls !== null && !controls.hidden
  }));
})();
</script>`

type chromiumCount struct {
	Count int `json:"count"`
	Sized int `json:"sized"`
}

type chromiumMeasurement struct {
	Timeline     chromiumCount `json:"timeline"`
	TimelineBars chromiumCount `json:"timelineBars"`
	Waits        chromiumCount `json:"waits"`
	Costs        chromiumCount `json:"costs"`
	CostBars     chromiumCount `json:"costBars"`
	Steps        chromiumCount `json:"steps"`
	AskBars      chromiumCount `json:"askBars"`
	Asks         chromiumCount `json:"asks"`
	Graph        chromiumCount `json:"graph"`
	GraphStates  chromiumCount `json:"graphStates"`
	GraphVisits  chromiumCount `json:"graphVisits"`
	GraphNote    chromiumCount `json:"graphNote"`
	ScriptRan    bool          `json:"scriptRan"`
}

func TestHTMLRendersInChromium(t *testing.T) {
	bin := chromium.Binary(t)
	r := htmlRealisticRun()
	page := htmlReport(t, r, htmlDetails(r, true))
	dir := t.TempDir()

	demo, demoDetails := htmlDemo(t)
	asks, asksDetails := asksRun(t)
	for _, tc := range []struct {
		name    string
		r       *Run
		details map[string]*Detail
		// states is how many states the workflow tab draws (0: none, a
		// note says why), visited how many of them the run entered.
		states, visited int
	}{
		{"realistic", r, htmlDetails(r, true), 0, 0},
		{"demo", demo, demoDetails, 6, 6},
		{"asks and a script", asks, asksDetails, 0, 0},
		{"one step", htmlRunOf("one", []htmlStepSpec{{agent: "main", state: "START.md", from: 0, to: 0.3,
			outcome: "success", cost: 0.001, tag: "result"}}, map[string][]htmlVisitSpec{"main": {{steps: []int{0}}}}), nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := chromiumProbed(t, dir, tc.name+".html", htmlReport(t, tc.r, tc.details))
			errs, m := chromiumDOM(t, bin, file)
			assert.Empty(t, errs, "script errors in the report")
			assert.True(t, m.ScriptRan, "the report's script did not run to the end")
			assert.Equal(t, chromiumCount{1, 1}, m.Timeline)
			assert.Equal(t, chromiumCount{len(tc.r.Steps), len(tc.r.Steps)}, m.TimelineBars, "timeline bars")
			assert.Equal(t, chromiumCount{len(tc.r.Waits), len(tc.r.Waits)}, m.Waits, "usage-limit waits")
			assert.Equal(t, chromiumCount{1, 1}, m.Costs)
			paid := 0 // a state that cost nothing (a script's) has a bar of no width
			for _, s := range tc.r.States {
				if s.CostUSD > 0 {
					paid++
				}
			}
			assert.Equal(t, chromiumCount{len(tc.r.States), paid}, m.CostBars, "cost bars")
			assert.Equal(t, len(tc.r.Steps), m.Steps.Count)
			assert.Equal(t, chromiumCount{len(tc.r.Asks), len(tc.r.Asks)}, m.AskBars, "ask bars")
			assert.Equal(t, chromiumCount{len(tc.r.Asks), len(tc.r.Asks)}, m.Asks, "asks listed")
			if tc.states > 0 {
				assert.Equal(t, chromiumCount{1, 1}, m.Graph, "the workflow drawn")
				assert.Equal(t, chromiumCount{tc.states, tc.states}, m.GraphStates, "its states")
				assert.Equal(t, chromiumCount{tc.visited, tc.visited}, m.GraphVisits, "visit counts")
				assert.Zero(t, m.GraphNote.Count)
			} else {
				assert.Zero(t, m.Graph.Count)
				assert.Equal(t, chromiumCount{1, 1}, m.GraphNote, "why the workflow is not drawn")
			}
		})
	}

	t.Run("probe catches errors", func(t *testing.T) {
		// Without this the test above could pass because the probe is blind.
		t.Parallel()
		broken := strings.Replace(page, "</main>", "</main><script>undefinedFunction();</script>", 1)
		broken = strings.Replace(broken, `<svg class="costs"`, `<svg class="costs" style="display:none"`, 1)
		file := chromiumProbed(t, dir, "broken.html", broken)
		errs, m := chromiumDOM(t, bin, file)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0], "undefinedFunction is not defined")
		assert.Equal(t, 0, m.CostBars.Sized, "a hidden chart has no size")
	})

	t.Run("screenshot", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(dir, "report.html")
		require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
		shot := filepath.Join(dir, "report.png")
		chromium.Run(t, bin, "--screenshot="+shot, "--window-size=1280,2400", chromium.URL(file))
		data, err := os.ReadFile(shot)
		require.NoError(t, err, "chromium wrote no screenshot")
		img, err := png.Decode(bytes.NewReader(data))
		require.NoError(t, err)
		assert.Equal(t, 1280, img.Bounds().Dx())
		assert.Equal(t, 2400, img.Bounds().Dy())
		colours := map[[3]uint32]bool{}
		for y := 0; y < 2400 && len(colours) < 50; y += 7 {
			for x := 0; x < 1280; x += 7 {
				r, g, b, _ := img.At(x, y).RGBA()
				colours[[3]uint32{r, g, b}] = true
			}
		}
		assert.GreaterOrEqual(t, len(colours), 50, "the screenshot is nearly blank")
		if keep := os.Getenv("RAYMOND_REPORT_PNG"); keep != "" {
			require.NoError(t, os.WriteFile(keep, data, 0o644))
			t.Logf("screenshot kept at %s", keep)
		}
	})
}

// chromiumDOM loads file and returns the script errors and the
// measurements the probes recorded in the DOM after scripts ran.
func chromiumDOM(t *testing.T, bin, file string) ([]string, chromiumMeasurement) {
	t.Helper()
	var m chromiumMeasurement
	errs := chromium.DOM(t, bin, file, &m)
	return errs, m
}

// chromiumProbed writes page into dir with the error probe and the
// report's measuring script added.
func chromiumProbed(t *testing.T, dir, name, page string) string {
	t.Helper()
	return chromium.Probed(t, dir, name, page, chromiumMeasure)
}
