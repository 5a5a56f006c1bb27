package framework

import (
	"context"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfigMapCacheRV is the RV of server i's configmaps watch cache: the RV of
// a list with resourceVersion=0, which the cache answers as it stands,
// without asking etcd.
func (h *HA) ConfigMapCacheRV(ctx context.Context, i int, ns string) (int64, error) {
	cs, err := h.Cluster.Clientset(i)
	if err != nil {
		return 0, err
	}
	l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 1})
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(l.ResourceVersion, 10, 64)
}

// WaitConfigMapCacheRV waits until server i's configmaps watch cache has
// reached rv and returns its RV then.
func (h *HA) WaitConfigMapCacheRV(ctx context.Context, i int, ns string, rv int64, timeout time.Duration) (int64, error) {
	deadline := time.Now().Add(timeout)
	for {
		got, err := h.ConfigMapCacheRV(ctx, i, ns)
		if err == nil && got >= rv {
			return got, nil
		}
		if time.Now().After(deadline) {
			return got, fmt.Errorf("server %d's configmaps cache is at RV %d (error %v), not %d, after %s", i, got, err, rv, timeout)
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
