package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// unsendableHeaderValue is the one check of every kubeconfig or flag value
// that client-go sends as an HTTP header value: the token (Authorization)
// and the impersonation (Impersonate-User, -Uid, -Group, -Extra-*). Go's
// transport refuses a header value with a control character only when a
// request is made, in its own words ("net/http: invalid header field value
// for \"Impersonate-User\"", exit 1, no field and no fix: adversary try 21
// F6); checked here, before any request, each is refused in one form:
// exit 2, the field named, the value escaped (the token's never shown).
// Each is checked as client-go will send it (bearerTokenSent: a tokenFile's
// content trimmed, adversary try 22 F1), never as the kubeconfig wrote it.
// An extra's key is percent-encoded by client-go, so it may hold any byte;
// a token an exec plugin prints is known only at the request, and
// diagnose.IsUnsendableCredential reads Go's refusal of it there.
func unsendableHeaderValue(cfg *rest.Config) error {
	bad := func(field, value string, secret bool) error {
		shown := ""
		if !secret {
			shown = " (" + strconv.Quote(text.Echo(value)) + ")"
		}
		return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig's credentials: %s holds a control character (a newline, ESC, ...)%s, which no HTTP header may carry: fix it in the kubeconfig's user (kubectl config view) or give the flag a value without it", field, shown))
	}
	token, fromFile, err := bearerTokenSent(cfg)
	if err != nil {
		return err
	}
	if !httpguts.ValidHeaderFieldValue(token) {
		field := "the token (token, or --token)"
		if fromFile {
			field = fmt.Sprintf("the token in tokenFile %s", strconv.Quote(text.Echo(cfg.BearerTokenFile)))
		}
		return bad(field, "", true)
	}
	im := cfg.Impersonate
	if !httpguts.ValidHeaderFieldValue(im.UserName) {
		return bad("the impersonated user (as, or --as)", im.UserName, false)
	}
	if !httpguts.ValidHeaderFieldValue(im.UID) {
		return bad("the impersonated UID (as-uid, or --as-uid)", im.UID, false)
	}
	for _, g := range im.Groups {
		if !httpguts.ValidHeaderFieldValue(g) {
			return bad("an impersonated group (as-groups, or --as-group)", g, false)
		}
	}
	keys := make([]string, 0, len(im.Extra))
	for k := range im.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range im.Extra[k] {
			if !httpguts.ValidHeaderFieldValue(v) {
				return bad(fmt.Sprintf("the impersonated user's extra %s (as-user-extra, or --as-user-extra)", strconv.Quote(text.Echo(k))), v, false)
			}
		}
	}
	return nil
}

// tokenFileCap bounds the read of a tokenFile here: net/http's server
// takes no head past 1 MiB (DefaultMaxHeaderBytes), so no token is longer.
// A longer file is not checked here (Go's transport refuses a control
// character at the request, diagnose.IsUnsendableCredential).
const tokenFileCap = 1 << 20

// bearerTokenSent is the token client-go sends as Authorization, chosen as
// its transport chooses (transport.NewBearerAuthWithRefreshRoundTripper
// and NewCachedFileTokenSource): with a tokenFile, the file's content
// with the whitespace around it trimmed (strings.TrimSpace), read at each
// request; where that is empty or cannot be read, BearerToken, which is
// the kubeconfig's token (or --token) or, with no token, the file's
// content as clientcmd copied it, untrimmed. A file that ends with a
// newline (echo "$TOKEN" > file) is sent without it: kubectl works with
// it, and so must this check. fromFile: the token is the file's.
//
// A tokenFile that holds only whitespace, with no token beside it, is
// client-go's own error, as its token source says it ("read empty token
// from file"): it would send the whitespace, which Go's transport refuses
// as a control character. A file that is not a regular file (a FIFO, a
// device) is not read here: reading it could take what client-go is to
// read, or block.
func bearerTokenSent(cfg *rest.Config) (token string, fromFile bool, err error) {
	if cfg.BearerTokenFile == "" {
		return cfg.BearerToken, false, nil
	}
	if st, err := os.Stat(cfg.BearerTokenFile); err != nil || !st.Mode().IsRegular() {
		return cfg.BearerToken, false, nil
	}
	f, err := os.Open(cfg.BearerTokenFile)
	if err != nil {
		return cfg.BearerToken, false, nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, tokenFileCap+1))
	if err != nil {
		return cfg.BearerToken, false, nil
	}
	if len(b) > tokenFileCap {
		return "", false, nil
	}
	if t := strings.TrimSpace(string(b)); t != "" {
		return t, true, nil
	}
	if strings.TrimSpace(cfg.BearerToken) == "" {
		return "", false, kubeconfigError(fmt.Errorf("read empty token from file %q", cfg.BearerTokenFile), kubeconfigNames{})
	}
	return cfg.BearerToken, false, nil
}
