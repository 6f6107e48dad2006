//go:build unix

package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests open the HTML report in headless Chromium (Debian's
// chromium package; .ci/run installs it) and check that it renders: the
// charts have bars of some size and no script fails. Without chromium
// they skip, unless RAYMOND_REQUIRE_CHROMIUM=1, as in CI. Setting
// RAYMOND_REPORT_PNG=FILE keeps the screenshot for a person to look at.

// chromiumTimeout bounds one run of chromium.
const chromiumTimeout = 60 * time.Second

// chromiumErrorProbe goes first in <head>: it records every script error,
// unhandled rejection and console.error in an attribute of <html>, where
// the dumped DOM shows it even if the page breaks later.
const chromiumErrorProbe = `<script>
(function () {
  var errors = [];
  function record(msg) {
    errors.push(String(msg));
    document.documentElement.setAttribute("data-script-errors", JSON.stringify(errors));
  }
  window.addEventListener("error", function (e) {
    record("error: " + e.message + " at " + (e.filename || "?") + ":" + e.lineno);
  });
  window.addEventListener("unhandledrejection", function (e) {
    record("unhandled rejection: " + e.reason);
  });
  var consoleError = console.error;
  console.error = function () {
    record("console.error: " + Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };
  document.documentElement.setAttribute("data-script-errors", "[]");
})();
</script>`

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
	ScriptRan    bool          `json:"scriptRan"`
}

func TestHTMLRendersInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	r := htmlRealisticRun()
	page := htmlReport(t, r, htmlDetails(r, true))
	dir := t.TempDir()

	demo, demoDetails := htmlDemo(t)
	asks, asksDetails := asksRun(t)
	for _, tc := range []struct {
		name    string
		r       *Run
		details map[string]*Detail
	}{
		{"realistic", r, htmlDetails(r, true)},
		{"demo", demo, demoDetails},
		{"asks and a script", asks, asksDetails},
		{"one step", htmlRunOf("one", []htmlStepSpec{{agent: "main", state: "START.md", from: 0, to: 0.3,
			outcome: "success", cost: 0.001, tag: "result"}}, map[string][]htmlVisitSpec{"main": {{steps: []int{0}}}}), nil},
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
		chromiumRun(t, bin, "--screenshot="+shot, "--window-size=1280,2400", chromiumURL(file))
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

// chromiumBinary finds chromium, or skips the test (fails it when
// RAYMOND_REQUIRE_CHROMIUM=1).
func chromiumBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() && os.Getenv("RAYMOND_REQUIRE_CHROMIUM") != "1" {
		t.Skip("-short: not starting chromium")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	const msg = "chromium is not installed (Debian: apt-get install chromium); the HTML report is not rendered"
	if os.Getenv("RAYMOND_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + ", and RAYMOND_REQUIRE_CHROMIUM=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// chromiumProbed writes page into dir with the two probes added.
func chromiumProbed(t *testing.T, dir, name, page string) string {
	t.Helper()
	head := `<meta charset="utf-8">`
	require.Contains(t, page, head)
	require.Contains(t, page, "</body>")
	page = strings.Replace(page, head, head+"\n"+chromiumErrorProbe, 1)
	i := strings.LastIndex(page, "</body>")
	page = page[:i] + chromiumMeasure + "\n" + page[i:]
	file := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
	return file
}

var (
	chromiumErrorsAttr  = regexp.MustCompile(`data-script-errors="([^"]*)"`)
	chromiumMeasureAttr = regexp.MustCompile(`data-measure="([^"]*)"`)
)

// chromiumDOM loads file and returns the script errors and the
// measurements the probes recorded in the DOM after scripts ran.
func chromiumDOM(t *testing.T, bin, file string) ([]string, chromiumMeasurement) {
	t.Helper()
	dom := chromiumRun(t, bin, "--dump-dom", "--virtual-time-budget=2000", chromiumURL(file))
	var errs []string
	var m chromiumMeasurement
	em := chromiumErrorsAttr.FindStringSubmatch(dom)
	require.NotNil(t, em, "the error probe did not run; the DOM starts: %.300s", dom)
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(em[1])), &errs))
	mm := chromiumMeasureAttr.FindStringSubmatch(dom)
	require.NotNil(t, mm, "the measuring script did not run; script errors: %q", errs)
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(mm[1])), &m))
	return errs, m
}

func chromiumURL(file string) string { return "file://" + file }

// chromiumRun runs chromium headless with args and returns its stdout. It
// has its own profile, runs in its own process group, and is killed with
// its children when it takes longer than chromiumTimeout.
func chromiumRun(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	flags := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(flags, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		// Whatever chromium left behind (zygote, renderers) goes with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium did not finish within %s and was killed; stderr:\n%s", chromiumTimeout, chromiumTail(stderr.String()))
	}
	require.NoError(t, err, "chromium failed; stderr:\n%s", chromiumTail(stderr.String()))
	return stdout.String()
}

// chromiumTail is the end of chromium's stderr, which is mostly noise.
func chromiumTail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}
