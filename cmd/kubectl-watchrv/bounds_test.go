package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// An answer past the plugin's bounds is exit 13 in every command, and its
// line names the flags that help, where any do; a --timeout that ended
// --rv list's list is exit 4 and names --timeout.
func TestBoundErrorsNameTheirFlagsAndCode(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	o := &RootOptions{ConfigFlags: genericclioptions.NewConfigFlags(true)}
	page := &apiclient.BodyTooLargeError{Kind: apiclient.KindList, Method: "GET", URL: "https://127.0.0.1:6443/api/v1/configmaps?limit=500", Limit: apiclient.LimitListPage}
	frame := &apiclient.BodyTooLargeError{Kind: apiclient.KindWatch, Method: "GET", URL: "https://127.0.0.1:6443/api/v1/configmaps?watch=1", Limit: apiclient.LimitWatchFrame}
	for _, c := range []struct {
		err  error
		code int
		want []string
	}{
		{page, ExitUnbounded, []string{"went past 256 MiB, the limit of one list page", "list with a lower --limit, or without --rv 0"}},
		{frame, ExitUnbounded, []string{"went past 16 MiB, the limit of one watch event"}},
		{&listing.EndlessListError{Path: "/api/v1/configmaps", Page: 2, SameAs: 1, Items: 2}, ExitUnbounded, []string{"carries the continue token of page 1 again"}},
		{&listing.EndlessListError{Path: "/api/v1/configmaps", Page: listing.MaxWalkPages, Items: 9}, ExitUnbounded, []string{"the most one walk reads: list with a higher --limit, or a narrower list (-n, -l, --field-selector)"}},
		{&follow.ListIncompleteError{Err: context.DeadlineExceeded}, ExitUnreachable, []string{"no watch was started", "raise --timeout"}},
	} {
		err := o.requestError(c.err, "list", "configmaps")
		msg := err.Error()
		if got := exitCode(err); got != c.code {
			t.Errorf("%T: exit %d, want %d: %s", c.err, got, c.code, msg)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%T: the chain is lost: %s", c.err, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%T: lacks %q: %s", c.err, w, msg)
			}
		}
	}
}
