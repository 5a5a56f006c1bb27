package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// emptyDotPart: the type of arg (before any "/NAME": the dots of a name
// are the name's, "cm/../x"; fresh user try 16) has an empty part between
// its dots.
//
// RESOURCE.VERSION. (an empty group after the last dot) is kubectl's own
// form for a core resource at a version (configmaps.v1.): not an empty
// part (fresh user try 19).
func emptyDotPart(arg string) bool {
	typ, _, _ := strings.Cut(strings.TrimSpace(arg), "/")
	if strings.Count(typ, ".") == 2 && strings.HasSuffix(typ, ".") {
		typ = strings.TrimSuffix(typ, ".")
	}
	return strings.HasPrefix(typ, ".") || strings.HasSuffix(typ, ".") || strings.Contains(typ, "..")
}

// resolveResource resolves RESOURCE through cli-runtime's cached discovery
// and checks that it supports the verbs the command needs.
func (o *RootOptions) resolveResource(ctx context.Context, arg string, verbs ...string) (apiclient.Resource, error) {
	switch {
	case strings.TrimSpace(arg) == "":
		return apiclient.Resource{}, withCode(ExitUsage, errors.New(`RESOURCE is empty: name a resource type such as configmaps, pods or deployments.apps (see 'kubectl watchrv --help')`))
	case emptyDotPart(arg):
		// cli-runtime reads ".apps" as an empty resource of group apps
		// and fails as if discovery had ("a resource must be present, got:
		// apps/, Resource="; fresh user try 14).
		where := "between its dots"
		if typ, _, _ := strings.Cut(strings.TrimSpace(arg), "/"); strings.HasSuffix(typ, ".") && !strings.HasPrefix(typ, ".") && !strings.Contains(typ, "..") {
			where = "after its last dot"
		}
		return apiclient.Resource{}, withCode(ExitUsage, fmt.Errorf("%q has an empty part %s: give TYPE, TYPE.GROUP or TYPE.VERSION.GROUP (deployments, deployments.apps, deployments.v1.apps; configmaps.v1. for the core group)", text.Echo(arg), where))
	case strings.Contains(arg, ","):
		// kubectl get lists each type of "cm,secrets"; every command here
		// reads one collection (a list RV, a watch stream, a window), so
		// several types are several runs.
		var types []string
		for _, t := range strings.Split(arg, ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, text.Echo(t))
			}
		}
		return apiclient.Resource{}, withCode(ExitUsage, fmt.Errorf("%q names %d resource types: this command reads one resource type at a time (each has its own resourceVersion, watch and window): run it once for each of %s", text.Echo(arg), len(types), strings.Join(types, ", ")))
	case strings.Contains(arg, "/"):
		kind, rest, _ := strings.Cut(arg, "/")
		arg, kind, rest = text.Echo(arg), text.Echo(kind), text.Echo(rest)
		// Every suggestion is one that runs when pasted, in every
		// command: none is made of an empty part, nor of a name holding
		// a slash (no object has one).
		alone := "give the type alone"
		if o.takesName() {
			alone = "give TYPE/NAME (configmaps/NAME) or the type alone"
		}
		switch {
		case kind == "":
			return apiclient.Resource{}, usageErrorf(o.running, "%q has no resource type before the slash: %s", arg, alone)
		case rest == "" && o.takesName():
			return apiclient.Resource{}, usageErrorf(o.running, "%q has no name after the slash: give %s/NAME for one object, or %s alone for the whole collection", arg, kind, kind)
		case rest == "":
			return apiclient.Resource{}, usageErrorf(o.running, "%q ends with a slash: give the type alone (%s)", arg, kind)
		case !o.takesName():
			// probe, streaming, top: they read a whole collection and
			// take no NAME, so the advice names none.
			return apiclient.Resource{}, usageErrorf(o.running, "%q is not a resource type: give the type alone (%s); this command reads a whole collection and takes no NAME; subresources such as pods/log cannot be listed or watched", arg, kind)
		case strings.Contains(rest, "/"):
			return apiclient.Resource{}, usageErrorf(o.running, "%q is not a resource type: give %s/NAME or %s alone; subresources such as pods/log cannot be listed or watched", arg, kind, kind)
		}
		return apiclient.Resource{}, usageErrorf(o.running, "%q is not a resource type: give the type alone (%s), then the name as its own argument (%s %s), or select with --field-selector metadata.name=%s; subresources such as pods/log cannot be listed or watched", arg, kind, kind, rest, rest)
	}
	// Discovery builds its own rest.Config: the kubeconfig's header
	// values are checked first, as every request's are (restConfig).
	if _, err := o.restConfig(); err != nil {
		return apiclient.Resource{}, err
	}
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return apiclient.Resource{}, o.kubeconfigError(err)
	}
	mapper, err := o.ConfigFlags.ToRESTMapper()
	if err != nil {
		return apiclient.Resource{}, o.kubeconfigError(err)
	}
	r, err := apiclient.ResolveResource(disco, mapper, arg, o.ledger)
	if err != nil {
		var unknown *apiclient.UnknownResourceError
		if errors.As(err, &unknown) {
			// Cached discovery hides its own failures (a cut, no answer,
			// bad credentials, throttling) behind "no such resource": a
			// failure the ledger saw is the answer; else ask the server
			// directly before saying the name is unknown.
			// The check first: a root document that still fails is
			// told in the server's own words (the ledger has only its
			// status: "503" alone became client-go's "the server is
			// currently unable to handle the request", adversary try 12).
			if serr := o.checkDiscovery(ctx); serr != nil {
				return apiclient.Resource{}, serr
			}
			if derr := o.ledger.DiscoveryFailure(); derr != nil && !unknown.IsTypoBeside(derr) {
				return apiclient.Resource{}, o.requestError(derr, "get", apiclient.DiscoveryWhat(derr))
			}
			return apiclient.Resource{}, withCode(ExitNotFound, err)
		}
		err = o.ledger.InServersWords(err)
		return apiclient.Resource{}, o.requestError(err, "get", apiclient.DiscoveryWhat(err))
	}
	for _, v := range verbs {
		if !r.Supports(v) {
			return apiclient.Resource{}, withCode(ExitUsage, fmt.Errorf("resource %q does not support %s (its verbs: %v): choose a resource that supports %s", r.Name(), v, r.Verbs, v))
		}
	}
	o.noteNamespaceIgnored(r)
	return r, nil
}

// validateGivenNamespace checks a -n given on the command line, for every
// command (the root's PersistentPreRunE): a command that applies none
// (top, clients) refuses bad input as the others do, and before any
// request. The kubeconfig's own namespace is checked where it is used.
func (o *RootOptions) validateGivenNamespace() error {
	ns := o.ConfigFlags.Namespace
	if ns == nil || *ns == "" {
		return nil
	}
	if err := apiclient.ValidateNamespace(*ns); err != nil {
		return withCode(ExitUsage, fmt.Errorf("%w: check -n (for example -n demo)", err))
	}
	return nil
}

// warnNamespaceNotApplied says, for a command that reads no namespace
// (top, clients), that a -n given is not applied; the one writer escapes
// its value.
func (o *RootOptions) warnNamespaceNotApplied(p *render.Printer, why string) {
	if ns := o.ConfigFlags.Namespace; ns != nil && *ns != "" {
		p.Warnf("%s (-n %s is not applied)", why, *ns)
	}
}

// noteNamespaceIgnored says, once per resource of a run, that -n does not
// apply to a cluster-scoped resource (kubectl ignores it silently; a user
// who typed it expects it to narrow something). list says it in its own
// result (-o json too); completion (no command running) says nothing.
func (o *RootOptions) noteNamespaceIgnored(r apiclient.Resource) {
	f := o.ConfigFlags.Namespace
	if r.Namespaced || f == nil || *f == "" || o.running == nil || strings.HasPrefix(o.running.Name(), "__complete") || o.running.Name() == "list" || o.running.Name() == "top" {
		return
	}
	if o.namespaceNoted == nil {
		o.namespaceNoted = map[string]bool{}
	}
	if o.namespaceNoted[r.Name()] {
		return
	}
	o.namespaceNoted[r.Name()] = true
	o.Printer(outputChoice{}).Notef("Note: %s is cluster-scoped; -n %s is ignored, as kubectl does", r.Name(), text.Echo(*f))
}

// checkDiscovery makes one uncached discovery request and returns its error
// in the plugin's words, or nil when discovery works.
func (o *RootOptions) checkDiscovery(ctx context.Context) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := client.CheckDiscovery(ctx); err != nil {
		return o.requestError(err, "get", "the discovery endpoints /api and /apis")
	}
	return nil
}

// resourceArgs reads RESOURCE [NAME] or RESOURCE/NAME, as kubectl takes
// them (list and watch). A NAME is checked as client-go checks a path
// segment; it selects by metadata.name (nameSelector), so it never becomes
// part of a path.
func resourceArgs(cmd *cobra.Command, args []string) (resource, name string, err error) {
	resource = args[0]
	if len(args) > 1 {
		name = args[1]
		if strings.Contains(resource, "/") {
			return "", "", usageErrorf(cmd, "%q already names an object: give RESOURCE/NAME or RESOURCE NAME, not both", resource)
		}
	} else if typ, n, ok := strings.Cut(resource, "/"); ok && typ != "" && n != "" && !strings.Contains(n, "/") {
		resource, name = typ, n
	}
	if name != "" || len(args) > 1 {
		if err := apiclient.ValidateName(name); err != nil {
			return "", "", usageErrorf(cmd, "NAME: %v", err)
		}
	}
	return resource, name, nil
}

// resourceNameArgs accepts RESOURCE and an optional NAME.
func resourceNameArgs(cmd *cobra.Command, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return usageErrorf(cmd, "expected one RESOURCE and an optional NAME (for example cm, cm a or cm/a), got %s", text.Count(len(args), "argument"))
	}
	return nil
}

// validateNameSelector refuses NAME together with a field selector on
// metadata.name (metadata.namespace is another field).
func validateNameSelector(cmd *cobra.Command, name, fieldSelector string) error {
	if name == "" || fieldSelector == "" {
		return nil
	}
	sel, err := fields.ParseSelector(fieldSelector)
	if err != nil {
		return nil // the server names what is wrong with it (400)
	}
	for _, r := range sel.Requirements() {
		if r.Field == "metadata.name" {
			return usageErrorf(cmd, "NAME %q and --field-selector %q both select metadata.name: give one of them", name, fieldSelector)
		}
	}
	return nil
}

// nameSelector adds NAME to a field selector as metadata.name, escaped, so
// that a name with ',' or '=' stays one term.
func nameSelector(name, fieldSelector string) string {
	if name == "" {
		return fieldSelector
	}
	fs := fields.OneTermEqualSelector("metadata.name", name).String()
	if fieldSelector != "" {
		fs += "," + fieldSelector
	}
	return fs
}

// validateRV checks a --rv value: an RV is opaque in general, but every
// etcd-backed API server uses a decimal unsigned integer.
func validateRV(cmd *cobra.Command, flag, value string) error {
	digits := value != "" && strings.Trim(value, "0123456789") == ""
	if !rv.Valid(value) && !digits {
		// What omitting the flag does, for each flag (fresh user try 19
		// #12: --from-rv said "omit it for a consistent read").
		hint := fmt.Sprintf("0 means any; omit --%s for a consistent read", flag)
		switch {
		case flag == "from-rv":
			hint = "a decimal RV above 0; omit --from-rv to judge a reconnect from the newest current RV"
		case cmd != nil && cmd.Name() == "explain-error":
			hint = "give the RV the request asked for, as the error or its request names it"
		}
		return usageErrorf(cmd, "--%s %q is not a resourceVersion: etcd-backed API servers use decimal numbers such as 12345 (%s)", flag, value, hint)
	}
	// One limit, the one accepted: a number past an unsigned 64-bit RV and
	// one past a signed 64-bit revision get the same answer.
	if n, err := strconv.ParseUint(value, 10, 64); !rv.Valid(value) || (err == nil && n > math.MaxInt64) {
		// The API server takes it, then hands storage a signed 64-bit
		// revision: it wraps to a negative one (a 410 that is no
		// compaction, or "etcd returned revision N for a list read at
		// revision -9223372036854775808").
		return usageErrorf(cmd, "--%s %s is larger than any revision: etcd and kine number revisions with signed 64-bit integers (at most 9223372036854775807), and the API server would pass it on as a negative one; give an RV the server printed", flag, text.Echo(value))
	}
	return nil
}
