package framework

import (
	"net/http"
	"sync"
	"testing"
)

// ServeScriptSequence is ServeScript with the requests of key (a path
// without its query, "PATH?watch" for a watch of it) answered in turn
// from answers: the first from answers[0], and so on; once they are used
// up, from the script (or ScriptDefaults). An answer that changes between
// tries (a 429, then the list), which one path's script cannot give: what
// a request sent again after a transient failure meets.
func ServeScriptSequence(t testing.TB, key string, answers []ScriptAnswer, script map[string]ScriptAnswer) (*ScriptServer, string) {
	t.Helper()
	var mu sync.Mutex
	next := 0
	answer := func(w http.ResponseWriter, r *http.Request) bool {
		k := r.URL.Path
		if r.URL.Query().Get("watch") != "" {
			k += "?watch"
		}
		if k != key {
			return false
		}
		mu.Lock()
		i := next
		next++
		mu.Unlock()
		if i >= len(answers) {
			return false
		}
		writeScriptAnswer(w, r, answers[i])
		return true
	}
	return serveWith(t, script, answer)
}
