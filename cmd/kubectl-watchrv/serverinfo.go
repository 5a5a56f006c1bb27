package main

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// serverInfo reads what the plugin knows of the server for group/resource
// (serverinfo.Read: /version and /metrics, bounded to 10 s): the texts
// that depend on the server are chosen from it.
func (o *RootOptions) serverInfo(ctx context.Context, group, resource string) *serverinfo.Info {
	client, err := o.Client()
	if err != nil {
		return serverinfo.Build("", 0, nil, "server not read: "+err.Error(), resource)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return serverinfo.Read(ctx, client, group, resource)
}

// streamingRefused turns the 422 of a server without streaming lists into
// what it means: the request is fine, the server lacks the feature (exit
// 1, not 2: nothing in the user's input is wrong). nil for other errors.
func (o *RootOptions) streamingRefused(err error, server string) error {
	if !diagnose.IsWatchListRefused(err) {
		return nil
	}
	in := o.serverInfo(context.Background(), "", "")
	return withCode(ExitFailure, fmt.Errorf("%s refused the streaming list: %w: %s", server, err, in.StreamingRefusedHint()))
}
