// Package sessionfile is where Claude Code keeps a session on disk and what
// raymond reads back from it: the project folder named after a working
// directory, the <session id>.jsonl file in it, and the running cost the
// CLI appends there as its process ends.
//
// raymond finds a person's session for --continue-session here, and books
// the spend of a step that never wrote its result line from here; the fake
// claude (claude/fakeclaude) keeps its sessions in the same places, so both
// name folders with the one function, [Folder]. It imports nothing of
// raymond's.
package sessionfile

import (
	"path/filepath"
	"strconv"
	"unicode/utf16"
)

// maxFolder is the longest project folder name Claude Code writes whole; a
// longer one is cut and told apart by a hash.
const maxFolder = 200

// Folder is the name Claude Code 2.1.330 gives the project folder of working
// directory cwd: every UTF-16 code unit of cwd outside [A-Za-z0-9] becomes
// "-" (so "ü" gives one "-" and an emoji, two code units, gives "--"); a
// name longer than 200 is cut to its first 200 characters followed by "-"
// and a hash of cwd in base 36 (the 32-bit hash of Java's String.hashCode
// over cwd's UTF-16 code units, its absolute value). Bytes of cwd that are
// not UTF-8 count as U+FFFD, as the CLI decodes them.
func Folder(cwd string) string {
	units := utf16.Encode([]rune(cwd))
	name := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = hash*31 + int32(u)
		if 'a' <= u && u <= 'z' || 'A' <= u && u <= 'Z' || '0' <= u && u <= '9' {
			name[i] = byte(u)
		} else {
			name[i] = '-'
		}
	}
	if len(name) <= maxFolder {
		return string(name)
	}
	abs := int64(hash)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:maxFolder]) + "-" + strconv.FormatInt(abs, 36)
}

// Dir is the folder holding the sessions of working directory cwd under
// Claude Code's configuration folder configDir ($CLAUDE_CONFIG_DIR, else
// ~/.claude): configDir/projects/Folder(cwd).
func Dir(configDir, cwd string) string {
	return filepath.Join(configDir, "projects", Folder(cwd))
}

// Path is the file of session id begun in working directory cwd. Call it
// only with an id that is a UUID, so that it names no other file.
func Path(configDir, cwd, id string) string {
	return filepath.Join(Dir(configDir, cwd), id+".jsonl")
}
