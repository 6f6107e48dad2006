package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/notify"
)

// cmdNotifyRcv starts a receiver of notifications on loopback for the
// rest of the script and adds a [[notify]] entry named NAME that sends to
// it to .raymond/config.toml, with the TOML lines given after NAME:
//
//	notifyrcv hook 'events = ["ask"]' 'secret_file = "hook.secret"'
//	notifyrcv -fail 2 flaky
//	notifyrcv -dead gone
//
// Every request it takes becomes one line of NAME.jsonl: its attempt
// number, the status it answered, the headers raymond sets, and the body
// (as JSON when it is, else as a string); with -secret FILE, sig_ok says
// whether X-Raymond-Signature-256 is the HMAC of the body under FILE's
// content. -fail N answers 503 to the first N requests; -dead gives an
// address where nothing listens.
func cmdNotifyRcv(ts *testscript.TestScript, neg bool, args []string) {
	fail, dead, secretFile := 0, false, ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-fail":
			if len(args) < 2 {
				ts.Fatalf("notifyrcv: -fail N")
			}
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			fail, args = n, args[2:]
		case "-secret":
			if len(args) < 2 {
				ts.Fatalf("notifyrcv: -secret FILE")
			}
			secretFile, args = ts.MkAbs(args[1]), args[2:]
		case "-dead":
			dead, args = true, args[1:]
		default:
			ts.Fatalf("notifyrcv: unknown flag %s", args[0])
		}
	}
	if neg || len(args) < 1 {
		ts.Fatalf("usage: notifyrcv [-fail N] [-secret FILE] [-dead] NAME [TOML_LINE...]")
	}
	name := args[0]
	logPath := ts.MkAbs(name + ".jsonl")
	var url string
	if dead {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		url = "http://" + ln.Addr().String() + "/" + name
		ln.Close()
	} else {
		var mu sync.Mutex
		n := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			defer mu.Unlock()
			n++
			status := http.StatusOK
			if n <= fail {
				status = http.StatusServiceUnavailable
			}
			rec := map[string]any{"attempt": n, "status": status, "method": r.Method, "path": r.URL.Path}
			for _, h := range []string{notify.HeaderEvent, notify.HeaderDelivery, notify.HeaderSignature, "Content-Type", "Title", "Tags", "Priority", "Click"} {
				if v := r.Header.Get(h); v != "" {
					rec[strings.ToLower(h)] = v
				}
			}
			if secretFile != "" {
				secret, err := os.ReadFile(secretFile)
				rec["sig_ok"] = err == nil && r.Header.Get(notify.HeaderSignature) == notify.Sign(bytes.TrimSpace(secret), body)
			}
			if json.Valid(body) {
				rec["body"] = json.RawMessage(body)
			} else {
				rec["body"] = string(body)
			}
			line, _ := json.Marshal(rec)
			if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Write(append(line, '\n'))
				f.Close()
			}
			w.WriteHeader(status)
		}))
		ts.Defer(srv.Close)
		url = srv.URL + "/" + name
	}
	entry := fmt.Sprintf("\n[[notify]]\nname = %q\nurl = %q\n%s\n", name, url, strings.Join(args[1:], "\n"))
	f, err := os.OpenFile(ts.MkAbs(".raymond/config.toml"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	_, err = f.WriteString(entry)
	ts.Check(err)
	ts.Check(f.Close())
}
