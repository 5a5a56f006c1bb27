package main

import (
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// minSecretLen: a secret shorter than this is not replaced wherever it
// appears (a two-letter password would blank out words); it is still
// redacted inside the URLs that hold it.
const minSecretLen = 4

// redactKubeconfig hides in msg every URL the kubeconfig and the flags
// hold (cluster server and proxy-url, --server, --proxy-url, the URLs of
// an auth-provider's config) as text.RedactURL prints it, and every secret
// they hold wherever it shows (a URL's password and query values, in their
// escaped and unescaped forms; tokens, passwords, the secret values of an
// auth-provider's config and of an exec plugin's env): one rule for every
// line the plugin
// prints about a kubeconfig, whatever client-go quoted in its error.
func (o *RootOptions) redactKubeconfig(msg string) string {
	// client-go names the command it ran: for a credential plugin, the
	// relay; the line names the plugin (and the relay's verdict).
	msg = o.credentials.relay.explain(msg)
	// net/url quotes the bad escape it met, which may be three characters
	// of a password ("%zz"): no part of one is printed.
	msg = badEscapeQuote.ReplaceAllString(msg, `invalid URL escape (not shown: it may be part of a password; a "%" in a URL must be written %25)`)
	urls, secrets := o.kubeconfigValues()
	pairs := map[string]string{}
	for _, u := range urls {
		if u == "" {
			continue
		}
		if r := text.RedactURL(u); r != u {
			pairs[u] = r
		}
		// client-go quotes a server it could not read with a scheme put
		// before it (rest.DefaultServerURL: parse "http://http://..."): that
		// form is the kubeconfig's URL as the user wrote it, redacted.
		for _, scheme := range []string{"http://", "https://"} {
			pairs[scheme+u] = text.RedactURL(u)
			// net/url quotes the URL it could not read (%q): a control
			// character in it is escaped there, and the raw form above
			// is not found (adversary try 19: "https://https://...").
			pairs[strconv.Quote(scheme+u)] = strconv.Quote(text.RedactURL(u))
		}
		for _, s := range urlSecrets(u) {
			secrets = append(secrets, s)
		}
	}
	for _, s := range secrets {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			if len(form) >= minSecretLen {
				if _, ok := pairs[form]; !ok {
					pairs[form] = "xxxxx"
				}
			}
		}
	}
	if len(pairs) == 0 {
		return msg
	}
	// Longest first: a URL is replaced whole before the password in it.
	olds := make([]string, 0, len(pairs))
	for k := range pairs {
		olds = append(olds, k)
	}
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	args := make([]string, 0, 2*len(olds))
	for _, k := range olds {
		args = append(args, k, pairs[k])
	}
	return strings.NewReplacer(args...).Replace(msg)
}

// badEscapeQuote is net/url's url.EscapeError as it prints.
var badEscapeQuote = regexp.MustCompile(`invalid URL escape "[^"]*"`)

// kubeconfigValues are the URLs and the secrets of the kubeconfig (every
// file it is merged from) and of the standard flags.
func (o *RootOptions) kubeconfigValues() (urls, secrets []string) {
	f := o.ConfigFlags
	for _, p := range []*string{f.APIServer, f.ProxyURL} {
		if p != nil {
			urls = append(urls, *p)
		}
	}
	for _, p := range []*string{f.BearerToken, f.Password} {
		if p != nil {
			secrets = append(secrets, *p)
		}
	}
	raw, err := f.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return urls, secrets
	}
	for _, c := range raw.Clusters {
		urls = append(urls, c.Server, c.ProxyURL)
	}
	for _, u := range raw.AuthInfos {
		secrets = append(secrets, u.Token, u.Password)
		if u.AuthProvider != nil {
			for k, v := range u.AuthProvider.Config {
				switch {
				case strings.Contains(v, "://"):
					urls = append(urls, v)
				case secretKey(k):
					secrets = append(secrets, v)
				}
			}
		}
		if u.Exec != nil {
			for _, e := range u.Exec.Env {
				switch {
				case strings.Contains(e.Value, "://"):
					urls = append(urls, e.Value)
				case secretKey(e.Name):
					secrets = append(secrets, e.Value)
				}
			}
		}
	}
	return urls, secrets
}

// secretKey: a config key or env name that holds a secret by its name
// (client-secret, id-token, refresh-token, AWS_SECRET_ACCESS_KEY, ...).
// Other values (a client-id, a region) are left as they are: replacing a
// common word wherever it shows would garble the line.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"secret", "token", "password", "passwd", "key", "credential"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// urlSecrets are the parts of a URL that RedactURL hides: the password of
// its user info and its query values, found even in a URL that does not
// parse (a space or a bad escape in the password).
func urlSecrets(s string) []string {
	var out []string
	authority := s
	if i := strings.Index(authority, "://"); i >= 0 {
		authority = authority[i+3:]
	}
	end := strings.IndexAny(authority, "/?#")
	if end < 0 {
		end = len(authority)
	}
	at := strings.LastIndex(authority[:end], "@")
	if at < 0 {
		// A password may hold "/" or "?" unescaped: then the user info
		// ends at the last "@", wherever it is.
		at = strings.LastIndex(authority, "@")
	}
	if at >= 0 {
		if _, pw, ok := strings.Cut(authority[:at], ":"); ok {
			out = append(out, pw)
			if un, err := url.PathUnescape(pw); err == nil && un != pw {
				out = append(out, un)
			}
			// A parser that reads the password's # ? or / as the end of
			// the host quotes it cut there ("https://admin:hunter2" of
			// admin:hunter2#@host): the part before is a secret too.
			if i := strings.IndexAny(pw, "#?/"); i > 0 {
				out = append(out, pw[:i])
			}
		}
	}
	if u, err := url.Parse(s); err == nil {
		for _, vs := range u.Query() {
			out = append(out, vs...)
		}
	}
	// The query by its delimiters, for what net/url cannot read
	// (127.0.0.1:1?token=T is no URL to it).
	if _, q, ok := strings.Cut(s, "?"); ok {
		q, _, _ = strings.Cut(q, "#")
		for _, pair := range strings.Split(q, "&") {
			if _, v, ok := strings.Cut(pair, "="); ok && v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
