package main

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/client-go/tools/clientcmd/api"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// kubeconfigError explains a kubeconfig that cannot be used, naming the
// contexts it has when the context is the problem. client-go quotes the
// kubeconfig's values in its errors (a malformed server or proxy-url
// whole, password included): they are redacted (redactKubeconfig).
func (o *RootOptions) kubeconfigError(err error) error {
	var names kubeconfigNames
	if raw, rerr := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig(); rerr == nil {
		for name := range raw.Contexts {
			names.contexts = append(names.contexts, name)
		}
		for name := range raw.AuthInfos {
			names.users = append(names.users, name)
		}
		for name := range raw.Clusters {
			names.clusters = append(names.clusters, name)
		}
		sort.Strings(names.contexts)
		sort.Strings(names.users)
		sort.Strings(names.clusters)
		names.files = o.referencedFiles(raw)
	}
	return kubeconfigError(redacted{err, o.redactKubeconfig}, names)
}

// referencedFile is a file a kubeconfig value or a flag names, which
// client-go reads when it builds the client.
type referencedFile struct {
	field, path, fix string
}

// referencedFiles are the files the flags and the kubeconfig name (flags
// first: they override): a file among them that cannot be read is that
// field's fault, not the kubeconfig path's (adversary try 21 F7: an
// unreadable tokenFile sent the user to --kubeconfig and KUBECONFIG).
func (o *RootOptions) referencedFiles(raw api.Config) []referencedFile {
	var files []referencedFile
	add := func(field, path, fix string) {
		if path != "" {
			files = append(files, referencedFile{field, path, fix})
		}
	}
	f := o.ConfigFlags
	for _, fl := range []struct {
		name string
		v    *string
	}{{"--certificate-authority", f.CAFile}, {"--client-certificate", f.CertFile}, {"--client-key", f.KeyFile}} {
		if fl.v != nil {
			add("given with "+fl.name, *fl.v, "give "+fl.name+" a file that can be read")
		}
	}
	for _, name := range sortedKeys(raw.Clusters) {
		c := raw.Clusters[name]
		add(fmt.Sprintf("certificate-authority of cluster %q", text.Echo(name)), c.CertificateAuthority, "fix certificate-authority in the kubeconfig's cluster (kubectl config view), or give --certificate-authority")
	}
	for _, name := range sortedKeys(raw.AuthInfos) {
		u := raw.AuthInfos[name]
		user := fmt.Sprintf(" of user %q", text.Echo(name))
		add("tokenFile"+user, u.TokenFile, "fix tokenFile in the kubeconfig's user (kubectl config view), or use --token")
		add("client-certificate"+user, u.ClientCertificate, "fix client-certificate in the kubeconfig's user (kubectl config view), or give --client-certificate")
		add("client-key"+user, u.ClientKey, "fix client-key in the kubeconfig's user (kubectl config view), or give --client-key")
	}
	return files
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// unreadableFile is the error of a referenced file that client-go could
// not read, as its words say ("open PATH: REASON", "read PATH: REASON",
// in a validation error or alone), with the field that names it and its
// fix; nil if msg names none of files.
func unreadableFile(msg string, files []referencedFile) error {
	for _, f := range files {
		for _, op := range []string{"open ", "read "} {
			i := strings.Index(msg, op+f.path+": ")
			if i < 0 {
				continue
			}
			reason := msg[i+len(op+f.path+": "):]
			if j := strings.IndexAny(reason, ",]"); j >= 0 {
				reason = reason[:j]
			}
			return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig: the file %q (%s) cannot be read (%s): %s", text.Echo(f.path), f.field, text.Shorten(reason, 128), f.fix))
		}
	}
	return nil
}
