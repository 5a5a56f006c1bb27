// Package text holds the small string helpers every layer of the plugin
// uses, so that each is written once.
package text

import (
	"strconv"
	"strings"
)

// OneLine folds any run of white space, newlines included, into one space:
// every error and note the plugin prints is one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Thousands writes 1204 as 1,204.
func Thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
