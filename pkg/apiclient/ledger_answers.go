package apiclient

import (
	"net/url"
	"time"
)

// AnswerMark is how many requests of a run a server answered, and when
// it was last heard from (an answer's status or a byte of its body).
type AnswerMark struct {
	Count int
	Last  time.Time
}

// AnswersFrom is what the server at hostPort answered in this run: a
// server that answered before is reached by the run's settings, and a
// later failure to reach it says it went away, not that the settings are
// wrong (fresh user try 51 F5: "check --server, --context or
// --kubeconfig" after the server answered the list and a watch).
func (l *Ledger) AnswersFrom(hostPort string) AnswerMark {
	if l == nil {
		return AnswerMark{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := l.answers[hostPort]; m != nil {
		return *m
	}
	return AnswerMark{}
}

// heardAnswer counts the answer to en, a request of url, to its server's
// mark, which en keeps so that its body's bytes move the mark's Last.
func (l *Ledger) heardAnswer(en *entry, rawURL string) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.answers == nil {
		l.answers = map[string]*AnswerMark{}
	}
	m := l.answers[u.Host]
	if m == nil {
		m = &AnswerMark{}
		l.answers[u.Host] = m
	}
	m.Count++
	m.Last = time.Now()
	en.mark = m
}
