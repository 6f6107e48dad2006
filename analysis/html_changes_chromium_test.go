//go:build unix

package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/internal/chromium"
)

// changesMeasure opens every patch of the Changes section and measures
// what shows; pwned is set if markup from a patch ran.
const changesMeasure = `<script>
(function () {
  var openAtLoad = document.querySelectorAll("#changes details[open]").length;
  var ds = document.querySelectorAll("#changes details.patch"), shown = 0, lines = 0;
  for (var i = 0; i < ds.length; i++) {
    ds[i].open = true;
    var pre = ds[i].querySelector("pre.patch");
    if (pre && pre.getBoundingClientRect().height > 0) { shown++; }
  }
  lines = document.querySelectorAll("#changes pre.patch span.add").length;
  document.documentElement.setAttribute("data-measure", JSON.stringify({
    patches: ds.length, shown: shown, added: lines, pwned: window.pwned === true,
    openAtLoad: openAtLoad
  }));
})();
</script>`

func TestHTMLChangesInChromium(t *testing.T) {
	bin := chromium.Binary(t)
	page := htmlReport(t, changesRun(), nil)
	file := chromium.Probed(t, t.TempDir(), "changes.html", page, changesMeasure)
	var m struct {
		Patches int  `json:"patches"`
		Shown   int  `json:"shown"`
		Added   int  `json:"added"`
		Pwned   bool `json:"pwned"`
		Open    int  `json:"openAtLoad"`
	}
	errs := chromium.DOM(t, bin, file, &m)
	require.Empty(t, errs, "script errors in the report")
	assert.Equal(t, 2, m.Patches, "the whole run's patch and the one step's")
	assert.Equal(t, 2, m.Shown, "each patch shows once opened")
	assert.Equal(t, 4, m.Added, "two added lines in each patch")
	assert.False(t, m.Pwned, "markup in a patch ran")
	assert.Zero(t, m.Open, "the patches are folded when the page opens")
	assert.Contains(t, page, `<a href="#changes">Changes</a>`)
}
