package main

import (
	"fmt"
	"sort"
	"strconv"

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
	if !httpguts.ValidHeaderFieldValue(cfg.BearerToken) {
		return bad("the token (token or tokenFile, or --token)", "", true)
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
