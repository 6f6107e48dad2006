package parsing

// The original Raymond spelt two things differently, and prompt folders
// written for it must run here unchanged (protocol, preamble): its <await>
// is raymond's <ask>, and its <function-workflow> and <fork-workflow> took
// the new agent's working directory as cwd where every other tag, there
// and here, says cd. raymond reads the old spellings as the new ones; a
// Tag never holds them.

// await is the original Raymond's name of the ask tag.
const await = "await"

// scanNames are the names the scanner looks for: Names, then the old
// spellings, each read as the tag canonical gives.
var scanNames = append(append([]string(nil), Names...), await)

// canonical returns raymond's name of the tag written as name.
func canonical(name string) string {
	if name == await {
		return Ask
	}
	return name
}

// OldTagName returns raymond's name of a tag the original Raymond named
// name, and whether name is such an old name: "await" gives Ask. A policy
// entry's tag is read through it, like a tag in an answer.
func OldTagName(name string) (string, bool) {
	if name == await {
		return Ask, true
	}
	return "", false
}

// OldAttrName returns raymond's name of the attribute key of the tag name
// (raymond's name) when the original Raymond spelt it key, and whether it
// did: cwd on function-workflow and fork-workflow gives "cd". On fork-workflow
// cwd would otherwise be a template variable, and the new agent would run
// in its parent's folder instead of the one asked for.
func OldAttrName(name, key string) (string, bool) {
	if key == "cwd" && (name == FunctionWorkflow || name == ForkWorkflow) {
		return "cd", true
	}
	return "", false
}

// renameOldAttrs renames in place the attributes of a tag name written
// with the original Raymond's spelling (OldAttrName). It reports an
// attribute given under both spellings as a problem, since lexOpen only
// catches a key written twice.
func renameOldAttrs(name string, attrs []Attr) string {
	for i, a := range attrs {
		newKey, ok := OldAttrName(name, a.Key)
		if !ok {
			continue
		}
		for _, b := range attrs {
			if b.Key == newKey {
				return "<" + name + "> has both " + newKey + " and " + a.Key +
					", which is the original Raymond's name for " + newKey + "; keep only " + newKey
			}
		}
		attrs[i].Key = newKey
	}
	return ""
}
