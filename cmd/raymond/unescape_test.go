package main

import (
	"os"
	"regexp"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// hexEscape is a \xHH escape in a file of a script.
var hexEscape = regexp.MustCompile(`\\x[0-9a-fA-F]{2}`)

// cmdUnescape rewrites files of a script, replacing each \xHH by the byte
// it names, so that a script can hold a NUL or a byte that is not UTF-8
// and stay a text file for git and for people:
//
//	unescape wf/START.md
func cmdUnescape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: unescape FILE...")
	}
	for _, name := range args {
		path := ts.MkAbs(name)
		data, err := os.ReadFile(path)
		ts.Check(err)
		data = hexEscape.ReplaceAllFunc(data, func(m []byte) []byte {
			b, _ := strconv.ParseUint(string(m[2:]), 16, 8)
			return []byte{byte(b)}
		})
		ts.Check(os.WriteFile(path, data, 0o644))
	}
}
