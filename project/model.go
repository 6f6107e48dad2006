package project

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"raymond/internal/spelling"
)

// ModelAliases are the short model names claude takes (claude-code.md);
// each may end in a context suffix such as [1m]. "default" names Claude
// Code's own default model, which raymond passes to a resumed step before
// it has learnt which model that is (machine.ClaudeDefaultModel).
var ModelAliases = []string{"opus", "sonnet", "haiku", "opusplan", "default"}

// KnownModels are the Claude model ids raymond knows, without their date
// suffix (-20250929) or context suffix ([1m]), which are accepted on any
// of them. A well-formed id that is not here may be a model newer than
// this raymond: it is a warning, never an error. Keep the list current
// when a model is released.
var KnownModels = []string{
	"claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5",
	"claude-opus-4-8", "claude-opus-4-5", "claude-opus-4-1", "claude-opus-4-0", "claude-opus-4",
	"claude-sonnet-4-5", "claude-sonnet-4-0", "claude-sonnet-4",
	"claude-haiku-4-5",
	"claude-3-7-sonnet", "claude-3-5-sonnet", "claude-3-5-haiku", "claude-3-opus", "claude-3-haiku",
}

// modelPattern is what a model name looks like: an alias (opus, sonnet,
// haiku) or a full id, including a provider's (a Bedrock ARN, a context
// suffix such as [1m]). It starts with a letter or digit, so that it cannot
// be read as a flag, and holds no space.
var modelPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@\[\]+-]*$`)

// modelSuffixes are what may follow a known id or an alias: a release date
// or -latest, then a context window.
var modelSuffixes = regexp.MustCompile(`(-\d{8}|-latest)?(\[\w+\])?$`)

// CheckModel accepts what can be a model name: an alias (opus, sonnet,
// haiku, opusplan), a Claude model id (claude-…), or a provider's id (a
// Bedrock or Vertex id, an ARN: they hold a '.', ':', '/' or '@'). Anything
// else, such as a misspelt alias (sonet), is an error whose message says
// what was probably meant: claude would take it and every step would fail,
// or run a model nobody chose. Whether the account can use a model is
// claude's to say; ModelWarning says whether raymond knows it.
func CheckModel(model string) error {
	if !modelPattern.MatchString(model) {
		return fmt.Errorf("%q is not a model name; give an alias (%s) or a full model id", model, strings.Join(ModelAliases, ", "))
	}
	if isAlias(model) || strings.ContainsAny(model, ".:/@") || strings.HasPrefix(model, "claude-") {
		return nil
	}
	msg := fmt.Sprintf("unknown model %q", model)
	if s := SuggestModel(model); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%s; give an alias (%s) or a full model id such as %s", msg, strings.Join(ModelAliases, ", "), KnownModels[1])
}

// ModelWarning returns why a model CheckModel accepts may still be a
// mistake, or "": a Claude model id (claude-…) that is not one of
// KnownModels, with the known one it is closest to. Aliases and providers'
// ids are not judged.
func ModelWarning(model string) string {
	if !strings.HasPrefix(model, "claude-") || strings.ContainsAny(model, ".:/@") || CheckModel(model) != nil {
		return ""
	}
	base := modelSuffixes.ReplaceAllString(model, "")
	if slices.Contains(KnownModels, base) {
		return ""
	}
	msg := fmt.Sprintf("model %q is not one raymond knows; claude refuses a model that does not exist, failing every step", model)
	if s := spelling.Suggest(base, KnownModels); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}

// SuggestModel returns the alias or known model id closest to model, or
// "" when none is close.
func SuggestModel(model string) string {
	return spelling.Suggest(modelSuffixes.ReplaceAllString(model, ""), append(slices.Clone(ModelAliases), KnownModels...))
}

// isAlias reports whether model is an alias, with or without a context
// suffix (sonnet[1m]).
func isAlias(model string) bool {
	base, _, _ := strings.Cut(model, "[")
	return slices.Contains(ModelAliases, base) && (base == model || strings.HasSuffix(model, "]"))
}

// SplitModels splits a list of models written as one string, "opus,sonnet"
// (as --model and the config take it), and checks each one (CheckModel).
// The first is the model; the others are tried in order when it is
// overloaded or out of limits. A model named twice counts once.
func SplitModels(s string) ([]string, error) {
	var list []string
	for m := range strings.SplitSeq(s, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			return nil, fmt.Errorf("%q has an empty model name; write models like opus,sonnet", s)
		}
		if err := CheckModel(m); err != nil {
			return nil, err
		}
		if !slices.Contains(list, m) {
			list = append(list, m)
		}
	}
	return list, nil
}

// modelList is a list of models checked by SplitModels, as the model and
// the models after it; "" gives none.
func modelList(s string) (string, []string) {
	if s == "" {
		return "", nil
	}
	list, err := SplitModels(s)
	if err != nil || len(list) == 0 {
		return s, nil // checked before; passed on as given
	}
	if len(list) == 1 {
		return list[0], nil
	}
	return list[0], list[1:]
}
