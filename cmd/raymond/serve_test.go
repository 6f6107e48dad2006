package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/daemon"
	"raymond/server"
)

// cmdAPI calls the API of the daemon that serves the project in $WORK
// (found by .raymond/serve.json, with its token), waiting up to a minute
// for it to start, and writes the answer's body to api.out and its status
// to api.status:
//
//	api POST /api/v1/runs '{"workflow": "wf"}'
//	api -notoken GET /api/v1/runs
//	api -until '"status": "completed"' GET /api/v1/runs
//	api -save RUN=workflow_id POST /api/v1/runs '{"workflow": "wf"}'
//	api -notoken -sign secret -header 'X-GitHub-Delivery: 1' POST /api/v1/hooks/gh @payload.json
//
// The call must answer 2xx, unless negated. With -until it is made again
// (for up to a minute) until the body matches the regular expression. With
// -save NAME=FIELD the answer's top-level FIELD (a string) is put in the
// script's environment as NAME. -header adds a header (repeatable); -sign
// FILE signs the body as GitHub signs a webhook's, HMAC-SHA256 with the
// secret in FILE, in X-Hub-Signature-256. A BODY of @FILE is FILE's content.
func cmdAPI(ts *testscript.TestScript, neg bool, args []string) {
	token := true
	var until *regexp.Regexp
	var saveAs, saveField, signWith string
	headers := http.Header{}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-notoken":
			token, args = false, args[1:]
		case args[0] == "-header" && len(args) > 1 && strings.Contains(args[1], ":"):
			k, v, _ := strings.Cut(args[1], ":")
			headers.Add(k, strings.TrimSpace(v))
			args = args[2:]
		case args[0] == "-sign" && len(args) > 1:
			signWith, args = ts.MkAbs(args[1]), args[2:]
		case args[0] == "-save" && len(args) > 1 && strings.Contains(args[1], "="):
			saveAs, saveField, _ = strings.Cut(args[1], "=")
			args = args[2:]
		case args[0] == "-until" && len(args) > 1:
			var err error
			until, err = regexp.Compile("(?m)" + args[1])
			ts.Check(err)
			args = args[2:]
		default:
			ts.Fatalf("api: unknown option %s", args[0])
		}
	}
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: api [-notoken] [-until REGEXP] [-save NAME=FIELD] [-header 'K: V'] [-sign SECRET_FILE] METHOD PATH [BODY|@FILE]")
	}
	dir := filepath.Join(ts.Getenv("WORK"), ".raymond")
	var info daemon.Info
	deadline := time.Now().Add(time.Minute)
	for {
		var ok bool
		if info, ok = daemon.Running(dir); ok {
			break
		}
		if time.Now().After(deadline) {
			stopBackground(ts)
			ts.Fatalf("api: no daemon serves %s", dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var body io.Reader
	var text []byte
	if len(args) == 3 {
		text = []byte(args[2])
		if name, ok := strings.CutPrefix(args[2], "@"); ok {
			var err error
			text, err = os.ReadFile(ts.MkAbs(name))
			ts.Check(err)
		}
		body = bytes.NewReader(text)
	}
	req, err := http.NewRequest(args[0], strings.TrimSuffix(info.URL, "/")+args[1], body)
	ts.Check(err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if signWith != "" {
		secret, err := os.ReadFile(signWith)
		ts.Check(err)
		mac := hmac.New(sha256.New, bytes.TrimSpace(secret))
		mac.Write(text)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	if token {
		t, err := daemon.ReadToken(dir)
		ts.Check(err)
		req.Header.Set("Authorization", "Bearer "+t)
	}
	client := &http.Client{Timeout: time.Minute}
	for {
		status, data := call(ts, client, req)
		if until == nil || until.Match(data) || time.Now().After(deadline) {
			ts.Check(os.WriteFile(ts.MkAbs("api.out"), data, 0o644))
			ts.Check(os.WriteFile(ts.MkAbs("api.status"), []byte(strconv.Itoa(status)+"\n"), 0o644))
			if until != nil && !until.Match(data) {
				stopBackground(ts)
				ts.Fatalf("api %s %s: the answer never matched %s; the last one:\n%s", args[0], args[1], until, data)
			}
			if ok := status/100 == 2; ok == neg {
				ts.Fatalf("api %s %s: status %d\n%s", args[0], args[1], status, data)
			}
			if saveAs != "" {
				var fields map[string]any
				ts.Check(json.Unmarshal(data, &fields))
				v, ok := fields[saveField].(string)
				if !ok {
					ts.Fatalf("api: the answer has no string %s:\n%s", saveField, data)
				}
				ts.Setenv(saveAs, v)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// call makes one request of the api command and returns its status and
// body, indented when it is JSON.
func call(ts *testscript.TestScript, client *http.Client, req *http.Request) (int, []byte) {
	if req.GetBody != nil {
		req.Body, _ = req.GetBody()
	}
	resp, err := client.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	ts.Check(err)
	var pretty bytes.Buffer
	if json.Indent(&pretty, data, "", "  ") == nil {
		data = append(pretty.Bytes(), '\n')
	}
	return resp.StatusCode, data
}

func TestSDNotify(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	sdNotify("READY=1\nSTATUS=serving")
	buf := make([]byte, 256)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "READY=1\nSTATUS=serving" {
		t.Fatalf("systemd got %q", got)
	}
	t.Setenv("NOTIFY_SOCKET", "")
	sdNotify("READY=1") // without systemd: nothing, and no error
}

// TestServeHostsWildcard checks that a daemon told to listen on every
// interface with --allow-remote answers the names a remote client uses for
// this machine, and still answers no other name (DNS rebinding).
func TestServeHostsWildcard(t *testing.T) {
	name, err := os.Hostname()
	if err != nil || name == "" {
		t.Skip("this machine has no host name")
	}
	srv := server.New(server.Config{Token: "t", Hosts: serveHosts("[::]:7777", "0.0.0.0", true)})
	status := func(host string) int {
		req := httptest.NewRequest("GET", "/healthz", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	want := []string{name + ":7777", "127.0.0.1:7777"}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			want = append(want, net.JoinHostPort(n.IP.String(), "7777"))
		}
	}
	for _, h := range want {
		if got := status(h); got != http.StatusOK {
			t.Errorf("Host %s: status %d, want 200", h, got)
		}
	}
	if got := status("evil.example:7777"); got != http.StatusMisdirectedRequest {
		t.Errorf("Host evil.example: status %d, want 421", got)
	}

	if got := pageHost("[::]:7777"); got != "127.0.0.1:7777" {
		t.Errorf("the page of a daemon on every interface is at %s, want 127.0.0.1:7777", got)
	}
	if got := pageHost("192.0.2.7:7777"); got != "192.0.2.7:7777" {
		t.Errorf("the page of a daemon on one address is at %s, want that address", got)
	}
	if got := serveHosts("[::]:7777", "0.0.0.0", false); len(got) != 1 {
		t.Errorf("without remote, hosts %v, want only the bound address", got)
	}
}

// The watchdog pings systemd at half the interval it asks for, and only
// while the daemon answers.
func TestWatchdog(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_PID", "")
	t.Setenv("WATCHDOG_USEC", "")
	if got := watchdogEvery(); got != 0 {
		t.Errorf("without WATCHDOG_USEC: every %v, want none", got)
	}
	t.Setenv("WATCHDOG_USEC", "2000000")
	if got := watchdogEvery(); got != time.Second {
		t.Errorf("WATCHDOG_USEC=2000000: every %v, want 1s", got)
	}
	t.Setenv("WATCHDOG_PID", "1")
	if got := watchdogEvery(); got != 0 {
		t.Errorf("another process's watchdog: every %v, want none", got)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	// A daemon that answers: a ping each round.
	ctx, cancel := context.WithCancel(context.Background())
	rounds := 0
	watchdog(ctx, time.Millisecond, func(context.Context) error {
		if rounds++; rounds == 3 {
			cancel()
		}
		return nil
	}, log)
	buf := make([]byte, 64)
	for i := 0; i < 2; i++ {
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(buf[:n]); got != "WATCHDOG=1" {
			t.Fatalf("systemd got %q", got)
		}
	}

	// A daemon that does not answer: no ping at all.
	ctx, cancel = context.WithCancel(context.Background())
	rounds = 0
	watchdog(ctx, time.Millisecond, func(context.Context) error {
		if rounds++; rounds == 3 {
			cancel()
		}
		return errors.New("stuck")
	}, log)
	_ = conn.SetReadDeadline(time.Now())
	if n, err := conn.Read(buf); err == nil {
		t.Fatalf("systemd got %q from a daemon that does not answer", buf[:n])
	}
}
