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
	// kine answers lists from its database but checks a compaction against
	// the revision its poll loop has caught up to, which lags a burst of
	// writes by up to a second or so: a compaction at a list's RV can be
	// "a future revision" there for a moment. etcd never answers so for an
	// RV it has served.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err = cli.Compact(ctx, rev, clientv3.WithCompactPhysical())
		if err == nil || !strings.Contains(err.Error(), "required revision is a future revision") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
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
