package analysis

import "unicode"

// wideRanges are the ranges of runes a terminal draws two columns wide:
// the East Asian Wide and Fullwidth blocks that occur in practice (CJK,
// kana, hangul, full-width forms) and the emoji blocks.
var wideRanges = [...][2]rune{
	{0x1100, 0x115F},   // Hangul Jamo initials
	{0x231A, 0x231B},   // watch, hourglass
	{0x2329, 0x232A},   // angle brackets
	{0x23E9, 0x23EC},   // media buttons
	{0x23F0, 0x23F0},   // alarm clock
	{0x23F3, 0x23F3},   // hourglass
	{0x25FD, 0x25FE},   // small squares
	{0x2614, 0x2615},   // umbrella, hot beverage
	{0x2648, 0x2653},   // zodiac
	{0x267F, 0x267F},   // wheelchair
	{0x2693, 0x2693},   // anchor
	{0x26A1, 0x26A1},   // high voltage
	{0x26AA, 0x26AB},   // circles
	{0x26BD, 0x26BE},   // balls
	{0x26C4, 0x26C5},   // snowman, sun
	{0x26CE, 0x26CE},   // ophiuchus
	{0x26D4, 0x26D4},   // no entry
	{0x26EA, 0x26EA},   // church
	{0x26F2, 0x26F3},   // fountain, golf
	{0x26F5, 0x26F5},   // sailboat
	{0x26FA, 0x26FA},   // tent
	{0x26FD, 0x26FD},   // fuel pump
	{0x2705, 0x2705},   // check mark
	{0x270A, 0x270B},   // fists
	{0x2728, 0x2728},   // sparkles
	{0x274C, 0x274C},   // cross mark
	{0x274E, 0x274E},   // cross mark
	{0x2753, 0x2755},   // question marks
	{0x2757, 0x2757},   // exclamation mark
	{0x2795, 0x2797},   // plus, minus, division
	{0x27B0, 0x27B0},   // curly loop
	{0x27BF, 0x27BF},   // double curly loop
	{0x2B1B, 0x2B1C},   // large squares
	{0x2B50, 0x2B50},   // star
	{0x2B55, 0x2B55},   // circle
	{0x2E80, 0x303E},   // CJK radicals, symbols and punctuation
	{0x3041, 0x33FF},   // kana, bopomofo, CJK compatibility
	{0x3400, 0x4DBF},   // CJK extension A
	{0x4E00, 0x9FFF},   // CJK unified ideographs
	{0xA000, 0xA4CF},   // Yi
	{0xA960, 0xA97F},   // Hangul Jamo extended A
	{0xAC00, 0xD7A3},   // Hangul syllables
	{0xF900, 0xFAFF},   // CJK compatibility ideographs
	{0xFE10, 0xFE19},   // vertical forms
	{0xFE30, 0xFE6F},   // CJK compatibility forms, small forms
	{0xFF00, 0xFF60},   // full-width forms
	{0xFFE0, 0xFFE6},   // full-width signs
	{0x16FE0, 0x18AFF}, // Tangut and more
	{0x1B000, 0x1B2FF}, // kana supplement and extensions
	{0x1F004, 0x1F004}, // mahjong tile
	{0x1F0CF, 0x1F0CF}, // playing card
	{0x1F18E, 0x1F18E}, // AB button
	{0x1F191, 0x1F19A}, // squared words
	{0x1F200, 0x1F251}, // enclosed ideographic supplement
	{0x1F300, 0x1F64F}, // pictographs, emoticons
	{0x1F680, 0x1F6FF}, // transport and map symbols
	{0x1F7E0, 0x1F7EB}, // coloured circles and squares
	{0x1F90C, 0x1F9FF}, // supplemental symbols and pictographs
	{0x1FA70, 0x1FAFF}, // symbols and pictographs extended A
	{0x20000, 0x3FFFD}, // CJK extensions B and beyond
}

// runeWidth is the number of columns a terminal gives c: 0 for a
// combining mark or a zero-width character, 2 for a wide one, else 1.
// It covers the common cases without a table of all of Unicode; a rare
// wide rune it does not know is counted as one column.
func runeWidth(c rune) int {
	switch {
	case c < 0x300:
		return 1
	case c == 0x200B || c == 0x200C || c == 0x200D || c == 0x2060 || c == 0xFEFF,
		c >= 0xFE00 && c <= 0xFE0F, // variation selectors
		unicode.Is(unicode.Mn, c), unicode.Is(unicode.Me, c):
		return 0
	}
	lo, hi := 0, len(wideRanges)
	for lo < hi {
		m := (lo + hi) / 2
		switch r := wideRanges[m]; {
		case c < r[0]:
			hi = m
		case c > r[1]:
			lo = m + 1
		default:
			return 2
		}
	}
	return 1
}
