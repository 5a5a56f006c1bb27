package main

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

const (
	scaleNS   = "bench-scale" // the growing collection
	sixNS     = "bench-six"   // the 6-object collection of the paired list check
	crNS      = "bench-crs"   // two objects of each CRD
	payloadKB = 1024
	writers   = 16 // as bench/cluster and compare.sh load their collections
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// createCRDs creates n namespaced CRDs (group scale.bench.example.com,
// kinds Scale000..), waits until each is served, and creates two objects of
// each in crNS: the 200 CRDs of a real cluster's discovery and /metrics.
func createCRDs(ctx context.Context, dyn dynamic.Interface, n int) error {
	gvrs := make([]schema.GroupVersionResource, n)
	err := parallel(n, 8, func(i int) error {
		plural := fmt.Sprintf("scale%03ds", i)
		group := "scale.bench.example.com"
		gvrs[i] = schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": plural + "." + group},
			"spec": map[string]any{
				"group": group,
				"scope": "Namespaced",
				"names": map[string]any{"plural": plural, "singular": fmt.Sprintf("scale%03d", i), "kind": fmt.Sprintf("Scale%03d", i)},
				"versions": []any{map[string]any{
					"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				}},
			},
		}}
		_, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return parallel(n, 8, func(i int) error {
		r := dyn.Resource(gvrs[i]).Namespace(crNS)
		for deadline := time.Now().Add(5 * time.Minute); ; {
			_, err := r.List(ctx, metav1.ListOptions{Limit: 1})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not served after 5 minutes: %w", gvrs[i].Resource, err)
			}
			time.Sleep(500 * time.Millisecond)
		}
		for k := 0; k < 2; k++ {
			o := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": gvrs[i].Group + "/v1", "kind": fmt.Sprintf("Scale%03d", i),
				"metadata": map[string]any{"name": fmt.Sprintf("obj-%d", k)}, "spec": map[string]any{"n": k},
			}}
			if _, err := r.Create(ctx, o, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
		return nil
	})
}

// grow creates configmaps cm-from .. cm-(to-1) of 1 KB in ns with the
// harness's own client, writers at a time.
func grow(ctx context.Context, cs kubernetes.Interface, ns string, from, to int) error {
	return parallel(to-from, writers, func(i int) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", from+i)}, Data: map[string]string{"payload": payload(from + i)}}
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

// payload is 1 KB of random base64 text, the same for the same index: as
// little compressible as real data (the server gzips large answers), not a
// repeated alphabet that gzip makes nothing of.
func payload(i int) string {
	raw := make([]byte, payloadKB*3/4)
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(i))
	_, _ = rand.NewChaCha8(seed).Read(raw)
	return base64.StdEncoding.EncodeToString(raw)
}

// parallel runs f(0..n-1), workers at a time; the first error wins.
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// Ticker updates cm-0 of a namespace every period while it runs: the event
// that ends a measured watch (watch --rv list --max-events 1, kubectl get -w).
type Ticker struct {
	stop chan struct{}
	done chan struct{}
}

func StartTicker(ctx context.Context, css []kubernetes.Interface, ns string, period time.Duration) *Ticker {
	t := &Ticker{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for n := 0; ; n++ {
			select {
			case <-t.stop:
				return
			case <-ctx.Done():
				return
			case <-tk.C:
			}
			for _, cs := range css {
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"bench/tick":"%d"}}}`, n)
				_, _ = cs.CoreV1().ConfigMaps(ns).Patch(ctx, "cm-0", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			}
		}
	}()
	return t
}

func (t *Ticker) Stop() { close(t.stop); <-t.done }
