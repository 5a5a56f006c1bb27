package apiclient

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// The failure a run's first retry was sent after is said beside its
// retries as the answer it was ("503 Service Unavailable: server", as
// AnswerWords says an answer), and left out only when the final failure
// is the same answer: the same status code and message, or for a failure
// with no answer, the same failure in the final error's chain. Compared
// as recorded, never as a substring of the final line (adversary try 28
// F4: a 503 "server" was left out because the line says "the API server
// at", and a 503 was taken for the final 500 of the same message). A 429
// is also who sent it (diagnose.ThrottledBy), in its words and its key:
// API Priority and Fairness's 429 and an unmarked one of the same text are
// two failures (adversary try 29 F1).

// retryCause is the words of err, a failure a request is sent again
// after, and its key: what SameFailure compares.
func retryCause(err error) (words, key string) {
	if st, ok := diagnose.StatusOf(err); ok && st.Code != 0 {
		w, _ := StatusWords(err)
		return text.Shorten(w, causeWordsLimit), answerKey(st, err)
	}
	return text.Shorten(text.OneLine(err.Error()), causeWordsLimit), failureKey(err)
}

// throttledWords is who sent a 429 (" (API Priority and Fairness's
// rejection)"), as AnswerWords says it; "" for any other answer.
func throttledWords(st metav1.Status, err error) string {
	if st.Code != http.StatusTooManyRequests {
		return ""
	}
	return " (" + diagnose.ThrottledBy(err).Words() + ")"
}

// answerKey and failureKey are bounded (a digest): a key is compared, never
// said. An answer's key is its status code, message and, for a 429, who
// sent it: the one key of "the same failure".
func answerKey(st metav1.Status, err error) string {
	return digest(fmt.Sprintf("answer %d\x00%s\x00%s", st.Code, st.Message, throttledWords(st, err)))
}

func failureKey(err error) string { return digest("failure\x00" + err.Error()) }

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// SameFailure: final, a run's or a read's last failure, is the failure
// w's first retry was sent after (its status code and message, or the
// failure itself somewhere in final's chain when it had no answer), so
// that the line saying final needs not say it again.
func SameFailure(w *RetryWait, final error) bool {
	if w == nil || w.FirstCauseKey == "" || final == nil {
		return false
	}
	if st, ok := diagnose.StatusOf(final); ok && st.Code != 0 {
		return answerKey(st, final) == w.FirstCauseKey
	}
	for e := final; e != nil; e = errors.Unwrap(e) {
		if failureKey(e) == w.FirstCauseKey {
			return true
		}
	}
	return false
}
