package follow

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// serveRecordedWatch answers every watch with the stream recorded from the
// real v1.37.2 server (pkg/watchstream/testdata).
func serveRecordedWatch(t *testing.T, name string) *apiclient.Client {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "watchstream", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func cmTarget() apiclient.Target {
	return apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "capture"}
}

// recordedListTarget is the target of the recorded lists of
// ../listing/testdata (namespace "recorded"), for a session whose watches
// send ERROR events only: a list of another namespace than the target's
// breaks the List contract.
func recordedListTarget() apiclient.Target {
	t := cmTarget()
	t.Namespace = "recorded"
	return t
}

// An error from the event callback (a failed write of the output) ends the
// run with that error: it is never swallowed into a success.
func TestCallbackErrorEndsTheRun(t *testing.T) {
	failed := errors.New("write /dev/stdout: broken pipe")
	s := &Session{
		Client: serveRecordedWatch(t, "seed.jsonl"), Target: cmTarget(),
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true},
		OnEvent: func(watchstream.Event, Observation) error { return failed },
	}
	if err := s.Run(context.Background()); !errors.Is(err, failed) || s.End() != EndError {
		t.Fatalf("want the callback's error and End %q, got %v and %q", EndError, err, s.End())
	}
}

// A Stop from the callback ends the run cleanly, with its reason as End.
func TestStopEndsTheRunCleanly(t *testing.T) {
	n := 0
	s := &Session{
		Client: serveRecordedWatch(t, "seed.jsonl"), Target: cmTarget(),
		Options: watchstream.Options{ResourceVersion: "213", RVSet: true},
		OnEvent: func(watchstream.Event, Observation) error {
			if n++; n == 3 {
				return &Stop{Reason: "max-events"}
			}
			return nil
		},
	}
	if err := s.Run(context.Background()); err != nil || s.End() != "max-events" || n != 3 {
		t.Fatalf("got %v, End %q after %d events", err, s.End(), n)
	}
}
