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
