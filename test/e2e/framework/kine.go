package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// startKine starts kine (k3s's etcd shim) on SQLite in the cluster's
// directory, in place of etcd: the API server and the harness's etcd client
// (Compact, EtcdRevision) talk to its etcd API as they would to etcd.
// Everything listens on loopback: kine's metrics would otherwise listen on
// :8080 of every interface. Its other settings are kine's defaults, as k3s
// runs it (--compact-min-retain 1000, --compact-interval 0s: the API server,
// whose own compaction the harness turns off, drives compaction).
func (c *Cluster) startKine(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	mport, err := freePort()
	if err != nil {
		return err
	}
	data := filepath.Join(c.Dir, "kine-data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	c.EtcdURL = "http://" + listen
	c.etcd = &process{
		name: "kine", bin: c.bins.etcd, logPath: filepath.Join(c.Dir, "kine.log"),
		args: []string{
			"--listen-address", listen,
			"--endpoint", "sqlite://" + filepath.Join(data, "state.db") + "?_journal=WAL&cache=shared&_busy_timeout=30000&_txlock=immediate",
			"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", mport),
		},
	}
	if err := c.etcd.start(); err != nil {
		return err
	}
	c.logf("kine started at %s", c.EtcdURL)
	return c.waitFor(ctx, c.etcd, 30*time.Second, func() bool {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := c.EtcdRevision(cctx)
		return err == nil
	})
}
