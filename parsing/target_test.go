package parsing

import "testing"

func TestValidTarget(t *testing.T) {
	tests := []struct {
		name string
		kind ErrorKind // 0: valid
		msg  string
	}{
		{"NEXT", 0, ""},
		{"REVIEW.md", 0, ""},
		{"2_step.sh", 0, ""},
		{"MY STATE", 0, ""},
		{"RÉSUMÉ_日本", 0, ""},
		{"..x", 0, ""},
		{"x~", 0, ""},
		{"", EmptyTarget, "target is empty"},
		{" \t\r\n", EmptyTarget, "target is empty"},
		{"../x.md", UnsafeTarget, `target "../x.md" contains "/"`},
		{"a/b.md", UnsafeTarget, `target "a/b.md" contains "/"`},
		{"/abs.md", UnsafeTarget, `target "/abs.md" contains "/"`},
		{`a\b.md`, UnsafeTarget, `target "a\\b.md" contains "\"`},
		{".", UnsafeTarget, `target "." names a folder`},
		{"..", UnsafeTarget, `target ".." names a folder`},
		{"~", UnsafeTarget, `target "~" starts with "~"`},
		{"~root", UnsafeTarget, `target "~root" starts with "~"`},
		{"a\x00b", UnsafeTarget, `target "a\x00b" contains the control character U+0000`},
		{"a\tb", UnsafeTarget, `target "a\tb" contains the control character U+0009`},
		{"a\x7f", UnsafeTarget, `target "a\x7f" contains the control character U+007F`},
		{"a\u0085", UnsafeTarget, `target "a\u0085" contains the control character U+0085`},
		{"a\xffb", UnsafeTarget, `target "a\xffb" is not valid UTF-8`},
	}
	for _, tt := range tests {
		err := ValidTarget(tt.name)
		if tt.kind == 0 {
			if err != nil {
				t.Errorf("ValidTarget(%q) = %v, want nil", tt.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("ValidTarget(%q) = nil, want %v", tt.name, tt.kind)
			continue
		}
		requireKind(t, err, tt.kind, tt.msg)
	}
}

func TestErrorKindString(t *testing.T) {
	for k := NoTag; k <= MultiForkMismatch; k++ {
		if _, ok := kindNames[k]; !ok {
			t.Errorf("kind %d has no name", int(k))
		}
	}
	if got := ErrorKind(99).String(); got != "ErrorKind(99)" {
		t.Errorf("String() = %q", got)
	}
	if got := (&Error{Kind: NoTag, Msg: "m"}).Error(); got != "m" {
		t.Errorf("Error() = %q", got)
	}
}

func TestSameState(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"JOIN", "JOIN", true},
		{"JOIN", "JOIN.md", true},
		{"JOIN.md", "JOIN", true},
		{"JOIN", "JOIN.sh", true},
		{"JOIN.md", "JOIN.md", true},
		{"v1.2", "v1.2.md", true},
		{"JOIN.md", "JOIN.sh", false},
		{"JOIN", "JOIN2.md", false},
		{"JOIN.md", "JOIN.md.md", false},
		{"join", "JOIN", false},
	}
	for _, tt := range tests {
		if got := SameState(tt.a, tt.b); got != tt.want {
			t.Errorf("SameState(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStateAttr(t *testing.T) {
	tests := []struct {
		name, key string
		want      bool
	}{
		{Call, "return", true},
		{Function, "return", true},
		{Fork, "next", true},
		{Fork, "return", false},
		{Goto, "next", false},
		{Reset, "input", false},
		{Fork, "cd", false},
	}
	for _, tt := range tests {
		if got := StateAttr(tt.name, tt.key); got != tt.want {
			t.Errorf("StateAttr(%s, %s) = %v, want %v", tt.name, tt.key, got, tt.want)
		}
	}
}
