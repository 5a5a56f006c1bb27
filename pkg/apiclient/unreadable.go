package apiclient

// UnreadableAnswerError is an answer that came but is not what was asked
// for, in a way no API server answers a get, list or watch: a 101 upgrade,
// a body that ended (cleanly) before its JSON did, a list page that is a
// Status, an ERROR event whose object is no Status. The commands name the
// server and the request with it (diagnose.IsUnreadableAnswer).
type UnreadableAnswerError struct {
	// What the answer was, in the plugin's words.
	What string
	// Err is the decoder's error, if one said more (nil: What says all).
	Err error
	// Head: it is the answer's head that could not be read (no body came).
	Head bool
}

func (e *UnreadableAnswerError) Error() string {
	if e.Err == nil {
		return e.What
	}
	return e.What + ": " + decodeWords(e.Err)
}

func (e *UnreadableAnswerError) Unwrap() error { return e.Err }

// UnreadableAnswer marks the class for pkg/diagnose, which imports no
// client.
func (e *UnreadableAnswerError) UnreadableAnswer() {}
