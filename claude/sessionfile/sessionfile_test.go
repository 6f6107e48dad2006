package sessionfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The names below are the folders Claude Code 2.1.330 made when run in these
// working directories (the long one's hash included).
func TestFolder(t *testing.T) {
	long := "/tmp/sfv.r33U/" + strings.Repeat("a", 120) + "/" + strings.Repeat("B_", 60) + "/x.y"
	longName := "-tmp-sfv-r33U-" + strings.Repeat("a", 120) + strings.Repeat("-B", 33)
	tests := []struct{ cwd, want string }{
		{"/work/x", "-work-x"},
		{"/home/dev/my_app.v2/some dir", "-home-dev-my-app-v2-some-dir"},
		// ü and ï are one UTF-16 code unit each, the emoji two.
		{"/tmp/sfv.r33U/ünï_😀.dir", "-tmp-sfv-r33U--n-----dir"},
		// 259 characters: cut to 200, then the hash of the whole path.
		{long, longName + "-q8xi97"},
		// 200 is kept whole; 201 is cut (hash worked out apart, in Python).
		{"/" + strings.Repeat("x", 199), "-" + strings.Repeat("x", 199)},
		{"/" + strings.Repeat("x", 200), "-" + strings.Repeat("x", 199) + "-" + "d0i18x"},
	}
	for _, tt := range tests {
		if got := Folder(tt.cwd); got != tt.want {
			t.Errorf("Folder(%q)\n got %s\nwant %s", tt.cwd, got, tt.want)
		}
		if len(tt.want) > 200+8 {
			t.Errorf("%q: a folder name of %d bytes", tt.cwd, len(tt.want))
		}
	}
	if got, want := Path("/cfg", "/work/x", "id"), filepath.Join("/cfg", "projects", "-work-x", "id.jsonl"); got != want {
		t.Errorf("Path = %s, want %s", got, want)
	}
}

// write puts a session file for id under config for cwd.
func write(t *testing.T, config, cwd, id, body string) {
	t.Helper()
	path := Path(config, cwd, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLastCost(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	config, cwd := t.TempDir(), t.TempDir()
	check := func(name string, want Cost, wantOK bool) {
		t.Helper()
		got, ok, err := LastCost(config, cwd, id)
		if err != nil || got != want || ok != wantOK {
			t.Errorf("%s: LastCost = %+v, %v, %v; want %+v, %v, nil", name, got, ok, err, want, wantOK)
		}
	}
	check("no file", Cost{}, false)
	write(t, config, cwd, id, `{"type":"user","message":{"role":"user","content":"hi"},"version":"2.1.330"}`+"\n")
	check("no cost-state line", Cost{Version: "2.1.330"}, false)
	write(t, config, cwd, id, `{"type":"user","message":{"role":"user","content":"say \"type\":\"cost-state\""},"version":"2.1.300"}
{"type":"cost-state","sessionId":"`+id+`","totalCostUSD":0.25,"totalAPIDuration":1200,"modelUsage":{}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"\"version\":\"0.1\""}]},"version":"2.1.330"}
{"type":"cost-state","sessionId":"`+id+`","totalCostUSD":0.5}
{"type":"cost-state","sessionId":"`+id+`","totalCost`)
	check("the last whole line", Cost{TotalUSD: 0.5, Version: "2.1.330"}, true)

	// A folder reached through a link: the CLI names the folder after the
	// resolved path.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(cwd, link); err != nil {
		t.Fatal(err)
	}
	got, ok, err := LastCost(config, link, id)
	if err != nil || got.TotalUSD != 0.5 || !ok {
		t.Errorf("through a link: LastCost = %+v, %v, %v; want 0.5, true, nil", got, ok, err)
	}
}
