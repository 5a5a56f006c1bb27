package diagnose

import (
	"fmt"
	"strings"
)

// said is the one switch between the two sources a diagnosis reads: a
// pasted text (explain-error, a log line), which may have been cut,
// edited or pieced together and whose original can be looked for, and
// an answer the plugin received itself (Context.Live: a watch's HTTP
// status, an ERROR event, a probe's answer), whose Status the plugin
// holds whole: nothing was pieced together, and there is no original
// to find or paste (adversary try 28 F5). Every text that names its
// source goes through said.
func said(d Diagnosis, pasted, live string) string {
	if d.live {
		return live
	}
	return pasted
}

// noRVSentContradiction: an Expired or TooLarge answer to a request known
// to have sent no resourceVersion. Such a request reads the current state,
// so no API server answers it too old or too new: the answer cannot be
// the API server's own (adversary try 28 F5: "the watch asked for the
// events after RV 400" of a watch that sent none).
func noRVSentContradiction(d Diagnosis, s *signals) string {
	if !s.noRVSent || s.askedRV != "" {
		return ""
	}
	says := map[Class]string{ClassExpired: "too old", ClassTooLarge: "too new"}[advices[d.Kind].class]
	if says == "" {
		return ""
	}
	return fmt.Sprintf("the request sent no resourceVersion (it reads the current state), and no API server answers such a request %s", says)
}

// toKnowWindow ends the fix of a bare 410 read from a pasted text.
const toKnowWindow = "to know which window, paste the full message or JSON Status."

// liveFix: a fix that asks for the original of an answer the plugin
// holds whole says instead that the answer did not say it.
func liveFix(d Diagnosis) Diagnosis {
	if d.live && strings.HasSuffix(d.Fix, toKnowWindow) {
		d.Fix = strings.TrimSuffix(d.Fix, toKnowWindow) + "which window expired is not known: the server's answer names none (no message the API server writes with it)."
	}
	if d.live && d.Kind == KindTooOldResourceVersion && strings.HasSuffix(d.Fix, findFull) {
		d.Fix = strings.TrimSuffix(d.Fix, findFull) + "how far behind the RV was is not known: the server's answer has none of the numbers the API server prints with it."
	}
	if d.live {
		d.Why = strings.Replace(d.Why, cutLine, "An answer without them was not written by the API server as it is (a proxy, a shim or a fake answered)", 1)
	}
	return d
}

// cutLine is what the Why of a "too old" text without its numbers says of
// a pasted text.
const cutLine = "Without the numbers the line was cut, reworded by a client or a log pipeline, or written by a proxy or a test fake"

// findFull ends the fix of a "too old" text without its numbers.
const findFull = "to know how far behind the RV was, find the full message (the server's Status, or the whole log line)."
