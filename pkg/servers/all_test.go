package servers

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// A view's failure is the one partial-failure rule over its servers: none
// failed nil, some failed PartialError, all failed NoneError (which
// unwraps to the first server's error), interrupted the interruption.
func TestViewErr(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no grants"))
	ok := &Server{Endpoint: "10.0.0.1:6443", CacheKnown: true}
	bad := &Server{Endpoint: "10.0.0.2:6443", Err: forbidden}
	ctx := context.Background()

	if err := (&View{Servers: []*Server{ok, ok}}).Err(ctx); err != nil {
		t.Fatalf("every server answered: %v", err)
	}
	var partial *sweep.PartialError
	err := (&View{Servers: []*Server{ok, bad}}).Err(ctx)
	if !errors.As(err, &partial) || !strings.Contains(err.Error(), "1 of 2 API servers failed (server 10.0.0.2:6443: 403 Forbidden") {
		t.Fatalf("one of two failed: %v", err)
	}
	var none *sweep.NoneError
	err = (&View{Servers: []*Server{bad, bad}}).Err(ctx)
	if !errors.As(err, &none) || !apierrors.IsForbidden(err) {
		t.Fatalf("every server failed: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := (&View{Servers: []*Server{ok, bad}}).Err(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
}
