package framework

import (
	"context"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Etcd returns a client of the cluster's etcd; close it after use.
func (c *Cluster) Etcd() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: []string{c.EtcdURL}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// Compact compacts etcd at revision rev (physically, so that it is in force
// when this returns). Requests for revisions below rev then fail with 410.
func (c *Cluster) Compact(ctx context.Context, rev int64) error {
	cli, err := c.Etcd()
	if err != nil {
		return err
	}
	defer cli.Close()
	// kine learns of its own newest row on its next poll: just after a
	// write is acknowledged (and listed), it can still call that revision
	// a future one (seen compacting at a list's RV right after 1,050
	// writes; on a loaded machine its poll fell more than 2 s behind).
	// etcd never does; the retry costs it nothing.
	for i := 0; ; i++ { // up to 10 s
		_, err = cli.Compact(ctx, rev, clientv3.WithCompactPhysical())
		if err == nil || i == 100 || !strings.Contains(err.Error(), "required revision is a future revision") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// EtcdRevision returns etcd's current revision (the newest RV).
func (c *Cluster) EtcdRevision(ctx context.Context) (int64, error) {
	cli, err := c.Etcd()
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "/watchrv-revision-probe")
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}
