package framework

import (
	"context"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ConfigMapWriter makes the harness's own writes of configmaps in one
// namespace (the plugin only reads): each returns the object as the server
// stored it, so that a test knows the exact RV of every change it made. A
// failed write fails the test.
type ConfigMapWriter struct {
	T         testing.TB
	Clientset kubernetes.Interface
	Namespace string
}

// Create creates name with data v=1 and the labels given (may be nil).
func (w ConfigMapWriter) Create(name string, labels map[string]string) *corev1.ConfigMap {
	w.T.Helper()
	cm, err := w.Clientset.CoreV1().ConfigMaps(w.Namespace).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		w.T.Fatalf("create %s: %v", name, err)
	}
	return cm
}

// Update reads name, applies mutate and writes it back.
func (w ConfigMapWriter) Update(name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	w.T.Helper()
	ctx := context.Background()
	cm, err := w.Clientset.CoreV1().ConfigMaps(w.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		w.T.Fatalf("get %s: %v", name, err)
	}
	mutate(cm)
	cm, err = w.Clientset.CoreV1().ConfigMaps(w.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		w.T.Fatalf("update %s: %v", name, err)
	}
	return cm
}

// Modify changes name's data (a new RV, same UID).
func (w ConfigMapWriter) Modify(name string) *corev1.ConfigMap {
	w.T.Helper()
	return w.Update(name, func(cm *corev1.ConfigMap) { cm.Data["v"] += "+" })
}

// Remove deletes name.
func (w ConfigMapWriter) Remove(name string) {
	w.T.Helper()
	if err := w.Clientset.CoreV1().ConfigMaps(w.Namespace).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		w.T.Fatalf("delete %s: %v", name, err)
	}
}

// RVNum reads an RV the server returned as the number it is (etcd's
// revision): tests compare RVs, which clients must otherwise treat as opaque.
func RVNum(t testing.TB, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("RV %q is not a number", rv)
	}
	return n
}
