package scripted

import (
	"os"
	"strings"
	"testing"
)

// docs/replies.md documents every key a reply and a tool take, and the
// outcomes: a key added here must be described there too.
func TestDocsNameEveryKey(t *testing.T) {
	data, err := os.ReadFile("../docs/replies.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	keys := strings.Split(replyKeys+", "+toolKeys, ", ")
	keys = append(keys, "success", "crash", "api_error", "usage_limit", "timeout", "max_turns")
	for _, k := range keys {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/replies.md does not mention `%s`", k)
		}
	}
}
