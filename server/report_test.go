package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestReportAndItsLink(t *testing.T) {
	replies := `replies:
  START.md:
    - text: "Hello. <goto>END.md</goto>"
      times: 2
  END.md:
    - text: "<result>done</result>"
      repeat: true
`
	e := newEnv(t, replies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	other := e.launch("hello")
	e.waitStatus(other, "completed")
	report := "/api/v1/runs/" + id + "/report"

	resp, body := e.do(request{method: "GET", path: report})
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET report: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(body), id) {
		t.Errorf("the report does not name its run")
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	var er errorBody
	e.call(request{method: "GET", path: report, noToken: true}, http.StatusUnauthorized, &er)
	er.check(t, "unauthorized")

	var link struct {
		URL string `json:"url"`
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/report-link"}, http.StatusOK, &link)
	u, err := url.Parse(link.URL)
	if err != nil || u.Path != report || u.Host != "" {
		t.Fatalf("link %q: want a relative link to %s", link.URL, report)
	}
	exp, _ := strconv.ParseInt(u.Query().Get("exp"), 10, 64)
	if left := time.Until(time.Unix(exp, 0)); left < 9*time.Minute || left > 11*time.Minute {
		t.Errorf("the link works for %v, want 10 minutes", left)
	}
	resp, _ = e.do(request{method: "GET", path: link.URL, noToken: true})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET the signed link without a token: %d", resp.StatusCode)
	}

	q := u.Query()
	sig := q.Get("sig")
	past := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	flipped := []byte(sig)
	flipped[0] ^= 1
	for what, path := range map[string]string{
		"expired":          report + "?exp=" + past + "&sig=" + e.srv.sign(id, past),
		"exp moved":        report + "?exp=" + later + "&sig=" + sig,
		"forged":           report + "?exp=" + q.Get("exp") + "&sig=" + string(flipped),
		"other run":        "/api/v1/runs/" + other + "/report?" + u.RawQuery,
		"no sig":           report + "?exp=" + q.Get("exp"),
		"no exp":           report + "?sig=" + sig,
		"empty":            report + "?exp=&sig=",
		"signed elsewhere": report + "?exp=" + later + "&sig=" + (&Server{reportKey: []byte("other/report")}).sign(id, later),
	} {
		var er errorBody
		resp, body := e.do(request{method: "GET", path: path, noToken: true})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s link: %d, want 401", what, resp.StatusCode)
			continue
		}
		decodeJSON(t, string(body), &er)
		er.check(t, "unauthorized")
	}
	// A link is not a token: it opens nothing else.
	e.call(request{method: "GET", path: "/api/v1/runs/" + id + "?" + u.RawQuery, noToken: true}, http.StatusUnauthorized, &er)
	e.call(request{method: "GET", path: "/api/v1/runs/" + id + "/events?" + u.RawQuery, noToken: true}, http.StatusUnauthorized, &er)

	e.call(request{method: "POST", path: "/api/v1/runs/20200101-000000-000000-abcdef/report-link"}, http.StatusNotFound, &er)
	er.check(t, "not_found")
	e.call(request{method: "GET", path: "/api/v1/runs/20200101-000000-000000-abcdef/report"}, http.StatusNotFound, &er)
	er.check(t, "not_found")
}
