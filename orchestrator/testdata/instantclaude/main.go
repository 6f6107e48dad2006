// Command instantclaude is the "instant fake claude" of the orchestrator's
// benchmarks: it answers like `claude -p --output-format stream-json` in as
// little time as a Go program can, so that what a benchmark measures above
// it is raymond's own cost. It imports nothing but the standard library's
// smallest packages (no YAML, no JSON decoder) because package
// initialisation is most of a short program's run time.
//
// Its replies come from the file INSTANT_CLAUDE_RULES: records, each a line
// holding a prompt prefix, then the reply's lines, then a line "%%". The
// first record whose prefix starts the prompt answers it; no match is an
// error result. The prompt is the argument after "--", else stdin (as
// raymond gives it). The session is --session-id's, else --resume's.
package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

func main() {
	args := os.Args[1:]
	var session, prompt string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--session-id":
			i++
			session = args[i]
		case "--resume":
			i++
			if session == "" {
				session = args[i]
			}
		case "--":
			if i+1 < len(args) {
				prompt = args[i+1]
			}
			i = len(args)
		}
	}
	if prompt == "" {
		prompt = readStdin()
	}
	reply, ok := find(os.Getenv("INSTANT_CLAUDE_RULES"), prompt)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer w.Flush()
	sid := quote(session)
	w.WriteString(`{"type":"system","subtype":"init","session_id":` + sid + `,"cwd":"/","model":"instant","tools":[],"claude_code_version":"2.1.330"}` + "\n")
	if !ok {
		w.WriteString(`{"type":"result","subtype":"success","is_error":true,"result":"instantclaude: no rule for this prompt","session_id":` + sid + `,"total_cost_usd":0,"usage":{}}` + "\n")
		return
	}
	text := quote(reply)
	w.WriteString(`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":` + text + `}]},"session_id":` + sid + "}\n")
	w.WriteString(`{"type":"result","subtype":"success","is_error":false,"result":` + text + `,"session_id":` + sid + `,"total_cost_usd":0,"usage":{"input_tokens":1,"output_tokens":1},"num_turns":1,"duration_ms":1}` + "\n")
}

// readStdin returns what stdin holds, up to its end.
func readStdin() string {
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := os.Stdin.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// find returns the reply of the first rule whose prefix starts prompt.
func find(path, prompt string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	for _, rec := range strings.Split(string(data), "\n%%\n") {
		prefix, reply, _ := strings.Cut(rec, "\n")
		if prefix != "" && strings.HasPrefix(prompt, prefix) {
			return reply, true
		}
	}
	return "", false
}

// quote writes s as a JSON string.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteString(strconv.FormatInt(int64(c)>>4, 16))
			b.WriteString(strconv.FormatInt(int64(c)&15, 16))
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		i++
	}
	b.WriteByte('"')
	return b.String()
}
