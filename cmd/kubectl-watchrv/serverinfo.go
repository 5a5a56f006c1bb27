package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// phraseWatchListOff is the 422 a server without the WatchList feature
// gives a streaming list (v1.30.14, v1.33.13: "sendInitialEvents is
// forbidden for watch unless the WatchList feature gate is enabled").
const phraseWatchListOff = "forbidden for watch unless the WatchList feature gate is enabled"

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
	if err == nil || !strings.Contains(err.Error(), phraseWatchListOff) {
		return nil
	}
	in := o.serverInfo(context.Background(), "", "")
	return withCode(ExitFailure, fmt.Errorf("%s refused the streaming list: %w: %s", server, err, in.StreamingRefusedHint()))
}
