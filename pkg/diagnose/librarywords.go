package diagnose

import (
	"regexp"
	"strings"
)

// Library words that say nothing a user can act on, once the plugin has
// said the same in its own (adversary tries 14 and 15): client-go's advice
// on a body it could not read ("... Please retry. Original error: "),
// whose fix is the plugin's to give; and net/http's note of its own timer
// on a request whose time bound the plugin names ("no answer within 3s,
// the request's time bound (Client.Timeout exceeded while awaiting
// headers)").
var (
	clientGoRetryAdvice = regexp.MustCompile(`(unexpected error when reading response body|stream error when reading response body, may be caused by closed connection)\. Please retry\. Original error: `)
	netHTTPTimerNote    = regexp.MustCompile(` \((Client\.Timeout exceeded while awaiting headers|Client\.Timeout or context cancellation while reading body)\)`)
)

// WithoutLibraryWords is msg without those words. net/http's note goes
// only where the plugin's own words of the time bound are there.
func WithoutLibraryWords(msg string) string {
	msg = clientGoRetryAdvice.ReplaceAllString(msg, "")
	if strings.Contains(msg, "the request's time bound") || strings.Contains(msg, ", what was left of ") {
		msg = netHTTPTimerNote.ReplaceAllString(msg, "")
	}
	return msg
}
