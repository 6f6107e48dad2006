package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"raymond/project"
)

// sign is the X-Hub-Signature-256 of body under secret.
func sign(secret, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// The hook's answers, and the schedules', are the document's; a wrong or
// missing signature launches nothing.
func TestHooksAndSchedulesMatchTheDocument(t *testing.T) {
	e := newEnv(t, "replies:\n  START.md: [\"<result>done</result>\"]\n", map[string]states{"fix": {"START.md": "Fix {{input}}.\n"}})
	tmpl, err := project.ParseInputTemplate("issue {{.issue.number}}")
	if err != nil {
		t.Fatal(err)
	}
	cond, _ := project.ParseCondition("action == labeled")
	hooks := e.d.NewHooks([]project.Hook{{Name: "gh", Workflow: "fix", Input: tmpl, Filter: []project.Condition{cond}}},
		map[string][]byte{"gh": []byte("s3cret-s3cret-s3cret")}, e.cat)
	sched := e.d.NewSchedules([]project.Schedule{{Name: "nightly", Workflow: "fix", Cron: "0 3 * * *", Timezone: "UTC"}}, e.cat, nil)
	srv := New(Config{Daemon: e.d, Workflows: e.cat, Token: testToken, Schedules: sched, Hooks: hooks})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := openAPI(t)
	c := &checker{t: t, doc: doc, ops: documented(doc), seen: make(map[string]bool)}
	post := func(path, body string, header map[string]string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		c.answer("POST /api/v1/hooks/{name}", resp.StatusCode, resp.Header.Get("Content-Type"), data)
		return resp.StatusCode, data
	}
	const secret = "s3cret-s3cret-s3cret"
	labeled := `{"action": "labeled", "issue": {"number": 42}}`
	cases := []struct {
		name, path, body string
		header           map[string]string
		want             int
		has              string
	}{
		{"no signature", "/api/v1/hooks/gh", labeled, map[string]string{"X-GitHub-Delivery": "a"}, 401, "bad_signature"},
		{"wrong signature", "/api/v1/hooks/gh", labeled, map[string]string{"X-Hub-Signature-256": sign("other", labeled), "X-GitHub-Delivery": "a"}, 401, "bad_signature"},
		{"signature of another body", "/api/v1/hooks/gh", labeled, map[string]string{"X-Hub-Signature-256": sign(secret, labeled+" "), "X-GitHub-Delivery": "a"}, 401, "bad_signature"},
		{"no delivery id", "/api/v1/hooks/gh", labeled, map[string]string{"X-Hub-Signature-256": sign(secret, labeled)}, 400, "bad_delivery"},
		{"unknown hook", "/api/v1/hooks/nope", labeled, nil, 404, "no_hook"},
		{"launched", "/api/v1/hooks/gh", labeled, map[string]string{"X-Hub-Signature-256": sign(secret, labeled), "X-GitHub-Delivery": "a"}, 201, `"launched"`},
		{"replayed", "/api/v1/hooks/gh", labeled, map[string]string{"X-Hub-Signature-256": sign(secret, labeled), "X-GitHub-Delivery": "a"}, 200, "duplicate, ignored"},
		{"raymond's headers", "/api/v1/hooks/gh", `{"action": "opened"}`, map[string]string{"X-Raymond-Signature-256": sign(secret, `{"action": "opened"}`), "X-Raymond-Delivery": "b"}, 202, "filtered"},
		{"no field for the input", "/api/v1/hooks/gh", `{"action": "labeled"}`, map[string]string{"X-Hub-Signature-256": sign(secret, `{"action": "labeled"}`), "X-GitHub-Delivery": "c"}, 422, "bad_payload"},
		{"too large", "/api/v1/hooks/gh", strings.Repeat(" ", MaxHookBody+1), map[string]string{"X-GitHub-Delivery": "d"}, 413, "body_too_large"},
	}
	for _, tt := range cases {
		got, body := post(tt.path, tt.body, tt.header)
		if got != tt.want || !strings.Contains(string(body), tt.has) {
			t.Errorf("%s: %d %s, want %d with %s", tt.name, got, body, tt.want, tt.has)
		}
	}
	runs := e.d.Runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs launched, want 1", len(runs))
	}

	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/schedules", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.answer("GET /api/v1/schedules", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	var list struct {
		Schedules []struct {
			Name string   `json:"name"`
			Next []string `json:"next"`
		} `json:"schedules"`
	}
	if err := json.Unmarshal(data, &list); err != nil || len(list.Schedules) != 1 || len(list.Schedules[0].Next) != 3 ||
		!strings.HasSuffix(list.Schedules[0].Next[0], "T03:00:00Z") {
		t.Errorf("GET /api/v1/schedules: %s", data)
	}
}
