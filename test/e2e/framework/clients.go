package framework

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// RESTConfig is an admin config for API server i with the harness's User-Agent.
func (c *Cluster) RESTConfig(i int) *rest.Config {
	a := c.APIServers[i]
	return &rest.Config{
		Host:            a.URL,
		BearerToken:     AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAFile: a.CAFile},
		UserAgent:       HarnessUserAgent,
		QPS:             500,
		Burst:           1000,
	}
}

// Clientset is the harness's own admin client of API server i. Its writes
// carry HarnessUserAgent in the audit log.
func (c *Cluster) Clientset(i int) (*kubernetes.Clientset, error) {
	return kubernetes.NewForConfig(c.RESTConfig(i))
}

// Dynamic is the harness's dynamic client of API server i.
func (c *Cluster) Dynamic(i int) (dynamic.Interface, error) {
	return dynamic.NewForConfig(c.RESTConfig(i))
}

// CreateNamespace creates a namespace (idempotent).
func CreateNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// CreateConfigMaps creates n configmaps named prefix-0..n-1 with a payload
// of size bytes each, using workers parallel requests.
func CreateConfigMaps(ctx context.Context, cs kubernetes.Interface, ns, prefix string, n, size, workers int) error {
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = 'a' + byte(i%26)
	}
	jobs := make(chan int)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			var first error
			for i := range jobs {
				if first != nil {
					continue
				}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)}, Data: map[string]string{"payload": string(payload)}}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
					first = err
				}
			}
			errs <- first
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	var first error
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// CreateWidgetCRD creates the CRD widgets.example.com (namespaced, short
// name wg) and waits until it is served.
func (c *Cluster) CreateWidgetCRD(ctx context.Context) (schema.GroupVersionResource, error) {
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	dyn, err := c.Dynamic(0)
	if err != nil {
		return gvr, err
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": []any{"wg"}},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return gvr, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := dyn.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return gvr, nil
		}
		if time.Now().After(deadline) {
			return gvr, fmt.Errorf("CRD widgets.example.com not served after 30s: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// CreateWidget creates one Widget custom resource.
func (c *Cluster) CreateWidget(ctx context.Context, ns, name string) error {
	dyn, err := c.Dynamic(0)
	if err != nil {
		return err
	}
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"size": 1},
	}}
	_, err = dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace(ns).Create(ctx, w, metav1.CreateOptions{})
	return err
}
