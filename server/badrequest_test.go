package server

import (
	"strings"
	"testing"

	"raymond/catalog"
)

func TestBadRequests(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello, "quiet": hello, "needs": hello, "broken": hello})
	for i := range e.cat.wfs {
		switch e.cat.wfs[i].ID {
		case "quiet":
			e.cat.wfs[i].Input = catalog.Input{Mode: "none"}
		case "needs":
			e.cat.wfs[i].Input = catalog.Input{Mode: "required", Label: "the repository"}
		case "broken":
			e.cat.wfs[i].Usable = false
		}
	}
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	e.waitList("", "listing the run", func(l []listing) bool { return len(l) == 1 && l[0].Status == "completed" })
	before := e.snapshot()

	huge := `{"workflow": "hello", "input": "` + strings.Repeat("x", MaxBody) + `"}`
	long := strings.Repeat("a", 5000)
	for _, c := range []struct {
		name   string
		req    request
		status int
		code   string
	}{
		{"malformed JSON", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": `}, 400, "bad_json"},
		{"not an object", request{method: "POST", path: "/api/v1/runs", body: `["hello"]`}, 400, "bad_json"},
		{"unknown field", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "colour": "red"}`}, 400, "bad_json"},
		{"wrong type", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "budget": "lots"}`}, 400, "bad_json"},
		{"two values", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"} {"workflow": "hello"}`}, 400, "bad_json"},
		{"empty body", request{method: "POST", path: "/api/v1/runs", header: map[string]string{"Content-Type": "application/json"}}, 400, "bad_json"},
		{"wrong content type", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"}`, header: map[string]string{"Content-Type": "text/plain"}}, 415, "bad_content_type"},
		{"form post", request{method: "POST", path: "/api/v1/runs", body: `workflow=hello`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415, "bad_content_type"},
		{"oversize body", request{method: "POST", path: "/api/v1/runs", body: huge}, 413, "body_too_large"},
		{"no workflow", request{method: "POST", path: "/api/v1/runs", body: `{}`}, 400, "workflow_missing"},
		{"unknown workflow", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "nope"}`}, 404, "workflow_not_found"},
		{"workflow by path", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "` + e.wfDir + `/hello"}`}, 404, "workflow_not_found"},
		{"negative budget", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "budget": -1}`}, 400, "bad_option"},
		{"unknown model", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "model": "--dangerously-skip-permissions"}`}, 400, "bad_option"},
		{"NUL in the input", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "input": "a\u0000b"}`}, 400, "bad_input"},
		{"input to none", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "quiet", "input": "x"}`}, 400, "bad_input"},
		{"required input", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "needs", "input": "  "}`}, 400, "bad_input"},
		{"broken workflow", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "broken"}`}, 422, "workflow_has_errors"},
		{"unknown workflow id", request{method: "GET", path: "/api/v1/workflows/nope"}, 404, "workflow_not_found"},
		{"workflow path trick", request{method: "GET", path: "/api/v1/workflows/..%2F..%2Fetc"}, 404, "workflow_not_found"},
		{"unknown status filter", request{method: "GET", path: "/api/v1/runs?status=sleeping"}, 400, "bad_status"},
		{"unknown workflow filter", request{method: "GET", path: "/api/v1/runs?workflow=nope"}, 404, "workflow_not_found"},
		{"unknown run", request{method: "GET", path: "/api/v1/runs/20200101-000000-000000-abcdef"}, 404, "not_found"},
		{"dot-dot id", request{method: "GET", path: "/api/v1/runs/..%2F..%2Fstate"}, 404, "not_found"},
		{"dot-dot delete", request{method: "DELETE", path: "/api/v1/runs/..%2F" + id}, 404, "not_found"},
		{"dot-dot pause", request{method: "POST", path: "/api/v1/runs/..%2F..%2F" + id + "/pause"}, 404, "not_found"},
		{"NUL in id", request{method: "GET", path: "/api/v1/runs/" + id + "%00"}, 404, "not_found"},
		{"NUL delete", request{method: "DELETE", path: "/api/v1/runs/%00"}, 404, "not_found"},
		{"long id", request{method: "GET", path: "/api/v1/runs/" + long}, 404, "not_found"},
		{"long id events", request{method: "GET", path: "/api/v1/runs/" + long + "/events"}, 404, "not_found"},
		{"json suffix", request{method: "DELETE", path: "/api/v1/runs/" + id + ".json"}, 404, "not_found"},
		{"dot-dot report", request{method: "GET", path: "/api/v1/runs/..%2F..%2F..%2Fetc%2Fpasswd/report"}, 404, "not_found"},
		{"dot-dot ask", request{method: "POST", path: "/api/v1/runs/" + id + "/asks/..%2F..%2Fx", body: `{"answer": "x"}`}, 404, "not_found"},
		{"long ask id", request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + long, body: `{"answer": "x"}`}, 404, "not_found"},
		{"unknown ask", request{method: "POST", path: "/api/v1/runs/" + id + "/asks/ask_main_1", body: `{"answer": "x"}`}, 404, "not_found"},
		{"answer not a string", request{method: "POST", path: "/api/v1/runs/" + id + "/asks/ask_main_1", body: `{"answer": 7}`}, 400, "bad_json"},
		{"resume unknown field", request{method: "POST", path: "/api/v1/runs/" + id + "/resume", body: `{"budget": 5, "force": true}`}, 400, "bad_json"},
		{"resume negative budget", request{method: "POST", path: "/api/v1/runs/" + id + "/resume", body: `{"budget": -5}`}, 409, "conflict"},
		{"resume completed", request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, 409, "conflict"},
		{"pause ended", request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, 409, "conflict"},
		{"bad Last-Event-ID", request{method: "GET", path: "/api/v1/runs/" + id + "/events", header: map[string]string{"Last-Event-ID": "-1"}}, 400, "invalid"},
		{"unknown route", request{method: "GET", path: "/api/v1/nope"}, 404, "no_route"},
		{"wrong method", request{method: "PUT", path: "/api/v1/runs", body: `{}`}, 405, "method_not_allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := e.do(c.req)
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d; body %.300s", resp.StatusCode, c.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var er errorBody
			decodeJSON(t, string(body), &er)
			er.check(t, c.code)
			if len(er.Error.Message) > 1000 {
				t.Errorf("the message is %d bytes long", len(er.Error.Message))
			}
		})
	}
	sameFiles(t, before, e.snapshot(), "bad requests")
	if l := e.runs(""); len(l) != 1 {
		t.Errorf("runs after bad requests: %+v", l)
	}
}

// TestBadRequestMessages checks that the messages of refused requests speak
// of the API's fields and tokens, not of the server's Go types.
func TestBadRequestMessages(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	for _, c := range []struct {
		name string
		req  request
		want string
	}{
		{"budget a string", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "budget": "3"}`},
			`the body is not the JSON object expected: "budget" must be a number, not a string`},
		{"input a number", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "input": 42}`},
			`the body is not the JSON object expected: "input" must be a string, not a number`},
		{"an array", request{method: "POST", path: "/api/v1/runs", body: `["hello"]`},
			`the body is not the JSON object expected: it is an array; send a JSON object`},
		{"answer a bool", request{method: "POST", path: "/api/v1/runs/20200101-000000-000000-abcdef/asks/ask_main_1", body: `{"answer": true}`},
			`the body is not the JSON object expected: "answer" must be a string, not true or false`},
		{"stale token", request{method: "GET", path: "/api/v1/daemon", header: map[string]string{"Authorization": "Bearer 0123"}},
			"the token does not match this daemon's: use the one in .raymond/serve.token"},
		{"no token", request{method: "GET", path: "/api/v1/daemon", noToken: true},
			"this needs the header 'Authorization: Bearer TOKEN'"},
		{"huge", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "input": "` + strings.Repeat("x", MaxBody) + `"}`},
			"the body is over 1048576 bytes: send a smaller one"},
		{"cross-site", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"}`, header: map[string]string{"Origin": "https://elsewhere.example"}},
			"requests from another site may not change anything here: use the daemon's own page, or send the request without Origin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, body := e.do(c.req)
			var er errorBody
			decodeJSON(t, string(body), &er)
			if !strings.HasPrefix(er.Error.Message, c.want) {
				t.Errorf("message %q, want it to start with %q", er.Error.Message, c.want)
			}
			if strings.Contains(er.Error.Message, "Go ") {
				t.Errorf("message %q names Go types", er.Error.Message)
			}
		})
	}
}
