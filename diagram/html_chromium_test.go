//go:build unix

package diagram

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/internal/chromium"
	"raymond/lint"
)

// measure goes last in <body>: it counts the drawn states, arrows and
// prompts, clicks the first state and records whether its prompt opened.
const measure = `<script>
(function () {
  // sized counts the elements that take up room; a straight arrow has
  // no width or no height, so lines need only one of them.
  function sized(selector, line) {
    var els = document.querySelectorAll(selector), n = 0;
    for (var i = 0; i < els.length; i++) {
      var r = els[i].getBoundingClientRect();
      if (line ? r.width + r.height > 0 : r.width > 0 && r.height > 0) { n++; }
    }
    return n;
  }
  var first = document.querySelector("svg.diagram g.state");
  var opened = false;
  if (first) {
    first.dispatchEvent(new MouseEvent("click", {bubbles: true}));
    var d = document.getElementById(first.getAttribute("data-for"));
    opened = d !== null && d.open;
  }
  document.documentElement.setAttribute("data-measure", JSON.stringify({
    states: sized("svg.diagram g.state"),
    edges: sized("svg.diagram g.edge path", true),
    prompts: document.querySelectorAll("details.prompt").length,
    opened: opened,
    ready: document.documentElement.getAttribute("data-diagram-ready")
  }));
})();
</script>`

type measurement struct {
	States  int    `json:"states"`
	Edges   int    `json:"edges"`
	Prompts int    `json:"prompts"`
	Opened  bool   `json:"opened"`
	Ready   string `json:"ready"`
}

func TestHTMLRendersInChromium(t *testing.T) {
	bin := chromium.Binary(t)
	g := graphOf(t, everyKind)
	page := HTML(g, "every kind")
	arrows := len(flatten(g).arrows)
	dir := t.TempDir()

	t.Run("renders", func(t *testing.T) {
		t.Parallel()
		var m measurement
		errs := chromium.DOM(t, bin, chromium.Probed(t, dir, "diagram.html", page, measure), &m)
		assert.Empty(t, errs, "script errors in the page")
		assert.Equal(t, measurement{States: 8, Edges: arrows, Prompts: 8, Opened: true, Ready: "8"}, m)
	})

	t.Run("probe catches a broken page", func(t *testing.T) {
		// Without this the test above could pass because the probe is blind.
		t.Parallel()
		broken := strings.Replace(page, "</main>", "</main><script>undefinedFunction();</script>", 1)
		broken = strings.Replace(broken, `<svg class="diagram"`, `<svg class="diagram" style="display:none"`, 1)
		broken = strings.Replace(broken, `d.open = true;`, ``, 1)
		require.NotEqual(t, page, broken)
		var m measurement
		errs := chromium.DOM(t, bin, chromium.Probed(t, dir, "broken.html", broken, measure), &m)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0], "undefinedFunction is not defined")
		assert.Zero(t, m.States, "a hidden diagram has no size")
		assert.Zero(t, m.Edges)
		assert.False(t, m.Opened, "a click that opens nothing is caught")
	})
}

// within goes last in <body>: it counts the arrows and labels that the
// browser draws (their bounding boxes) outside the drawing's viewBox.
const within = `<script>
(function () {
  var svg = document.querySelector("svg.diagram"), vb = svg.viewBox.baseVal, out = [];
  svg.querySelectorAll("g.edge path, g.edge text, g.state rect, g.end circle").forEach(function (e) {
    var b = e.getBBox();
    if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5) {
      out.push(e.tagName + " " + Math.round(b.x) + "," + Math.round(b.y) + " " + Math.round(b.width) + "x" + Math.round(b.height));
    }
  });
  document.documentElement.setAttribute("data-measure", JSON.stringify({outside: out, width: svg.getBoundingClientRect().width}));
})();
</script>`

// TestDrawingFitsInChromium: as Chromium draws them, no arrow, label or
// state of two shipped examples (which once lost their right lanes) or
// of a wide graph leaves the drawing.
func TestDrawingFitsInChromium(t *testing.T) {
	bin := chromium.Binary(t)
	all := examples(t)
	graphs := map[string]lint.Graph{"approval": all["approval"], "fork-join": all["fork-join"], "wide": graphOf(t, wide)}
	dir := t.TempDir()
	for name, g := range graphs {
		var m struct {
			Outside []string `json:"outside"`
			Width   float64  `json:"width"`
		}
		errs := chromium.DOM(t, bin, chromium.Probed(t, dir, strings.ReplaceAll(name, " ", "-")+".html", HTML(g, name), within), &m)
		assert.Empty(t, errs, "%s: script errors", name)
		assert.Positive(t, m.Width, "%s: the drawing has no width", name)
		assert.Empty(t, m.Outside, "%s: drawn outside the viewBox", name)
	}
}
