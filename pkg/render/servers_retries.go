package render

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// A server's retries are its row's (servers.Server.RetryWait): servers
// are measured at the same time, so a wait is said of the server that
// waited, and the run's sum only as one over servers that waited at once
// (adversary try 28 F3).

// serverRetriesNote is what a row's NOTE says of its server's retries:
// "after 2 retries and 2.00 s waiting, as the server's Retry-After asked:
// 1.00 s, not in TIME; first sent again after: 429 Too Many Requests: ..."
// ("" when it was sent nothing again).
func serverRetriesNote(s *servers.Server, timeCol bool) string {
	notIn := ""
	if timeCol {
		notIn = ", not in TIME"
	}
	return rowRetriesNote(s.RetryWait, s.Err, notIn)
}

// rowRetriesNote is what a row's NOTE says of its own retries (a measured
// server's, or one asked by explain-error --check --servers: fresh user
// try 29 F1), after the words of where its waits are not counted.
func rowRetriesNote(w *apiclient.RetryWait, err error, notIn string) string {
	t := AfterRetriesText(w)
	if t == "" {
		return ""
	}
	return t + notIn + RetryCauseText(w, err)
}

// withServerRetries is note with the server's retries said after it.
func withServerRetries(note string, s *servers.Server, timeCol bool) string {
	r := serverRetriesNote(s, timeCol)
	switch {
	case r == "":
		return note
	case note == "":
		return r
	}
	return note + " (" + r + ")"
}

// FanOutRetriesText is what the final error line of a run whose rows each
// say their own retries says of the run's: their count and the sum of
// their waits, said as waits at the same time, not one after another
// ("" when nothing was sent again).
func FanOutRetriesText(w *apiclient.RetryWait) string {
	if w == nil || w.Retries == 0 {
		return ""
	}
	return fmt.Sprintf("%s in all and %s of waits added up over servers that waited at the same time, not one after another: each row says its own", retriesText(w.Retries), millisText(w.Millis))
}

// withRowRetries is a row's note with its own retries said after it.
func withRowRetries(note string, w *apiclient.RetryWait, err error) string {
	if r := rowRetriesNote(w, err, ""); r != "" {
		return strings.TrimPrefix(note+"; "+r, "; ")
	}
	return note
}
