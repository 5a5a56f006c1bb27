package framework

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// AuthScriptServer is a TLS ScriptServer that authenticates: it answers
// 401, as an API server does, to a bearer token it rejects, and keeps the
// token of every request it got, in order (adversary try 20 #1: a plugin's
// credentials revoked, the plugin re-run after the 401 for new ones).
type AuthScriptServer struct {
	*TLSScriptServer
	rejected map[string]bool
	mu       sync.Mutex
	tokens   []string
}

// StartAuthScriptServer starts an AuthScriptServer that rejects the
// tokens rejected, and answers the others as StartTLSScriptServer does.
func StartAuthScriptServer(rejected ...string) *AuthScriptServer {
	a := &AuthScriptServer{rejected: map[string]bool{}}
	for _, t := range rejected {
		a.rejected[t] = true
	}
	s := &ScriptServer{script: ScriptDefaults(), answer: a.authenticate}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	s.ln = ts.Listener
	a.TLSScriptServer = &TLSScriptServer{ScriptServer: s, tls: ts}
	return a
}

func (a *AuthScriptServer) authenticate(w http.ResponseWriter, r *http.Request) bool {
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	a.mu.Lock()
	a.tokens = append(a.tokens, token)
	a.mu.Unlock()
	if !a.rejected[token] {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
	return true
}

// Tokens are the bearer tokens of the requests the server got, in order
// ("" for a request without one).
func (a *AuthScriptServer) Tokens() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.tokens...)
}
