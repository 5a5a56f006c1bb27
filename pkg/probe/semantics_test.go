package probe

import (
	"errors"
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestSemanticsOfFollowsTheServerRules(t *testing.T) {
	cases := []struct {
		rv, match string
		limit     int64
		want      string
	}{
		{"", "", 500, "Consistent"},
		{"0", "", 500, "Any"},
		{"0", "NotOlderThan", 500, "Any"},
		{"12", "NotOlderThan", 500, "NotOlderThan"},
		{"12", "Exact", 500, "Exact"},
		{"12", "", 500, "Exact"}, // legacy: a limit and no match means Exact
		{"12", "", 0, "NotOlderThan"},
	}
	for _, c := range cases {
		if got := SemanticsOf(c.rv, c.match, c.limit).Mode; got != c.want {
			t.Errorf("SemanticsOf(%q, %q, %d) = %s, want %s", c.rv, c.match, c.limit, got, c.want)
		}
	}
}

func TestClassifyFailure(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	tooLarge := apierrors.NewTimeoutError("Too large resource version: 999, current: 215", 1)
	tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	cases := []struct {
		err  error
		want Failure
	}{
		{nil, FailureNone},
		{apierrors.NewResourceExpired("too old resource version: 2 (211)"), FailureExpired},
		{apierrors.NewGone("gone"), FailureExpired},
		{tooLarge, FailureTooLarge},
		{apierrors.NewUnauthorized("Unauthorized"), FailureUnauthorized},
		{apierrors.NewForbidden(gr, "", errors.New("nope")), FailureForbidden},
		{apierrors.NewTooManyRequests("slow down", 1), FailureThrottled},
		{apierrors.NewNotFound(gr, "x"), FailureNotFound},
		{apierrors.NewInternalError(errors.New("boom")), FailureServer},
		{apierrors.NewGenericServerResponse(http.StatusBadGateway, "get", gr, "", "", 0, false), FailureServer},
		{errors.New(`Get "https://127.0.0.1:1/api": dial tcp 127.0.0.1:1: connect: connection refused`), FailureUnreachable},
		{errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), FailureTLS},
	}
	for _, c := range cases {
		if got := ClassifyFailure(c.err); got != c.want {
			t.Errorf("ClassifyFailure(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestTargetPaths(t *testing.T) {
	cm := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	deploy := Resource{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true}
	nodes := Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}}
	cases := map[string]Target{
		"/api/v1/namespaces/demo/configmaps":        {Resource: cm, Namespace: "demo"},
		"/api/v1/configmaps":                        {Resource: cm},
		"/apis/apps/v1/namespaces/demo/deployments": {Resource: deploy, Namespace: "demo"},
		"/api/v1/nodes":                             {Resource: nodes, Namespace: "ignored"},
	}
	for want, tg := range cases {
		if got := tg.CollectionPath(); got != want {
			t.Errorf("CollectionPath = %s, want %s", got, want)
		}
	}
	if d := distance("confgmaps", "configmaps"); d != 1 {
		t.Errorf("distance = %d, want 1", d)
	}
}
