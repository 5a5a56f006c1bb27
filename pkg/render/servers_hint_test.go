package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// The hint of a failed server is render's (it names the plugin's flags):
// the report carries it, word for word as before, and the measured view
// is left as it was.
func TestServersReportHints(t *testing.T) {
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "demo"}
	v := &servers.View{Target: tg, Servers: []*servers.Server{
		{Endpoint: "10.0.0.1:6443", Reason: string(diagnose.FailureUnreachable)},
		{Endpoint: "10.0.0.2:6443", Reason: servers.ReasonBudgetExhausted, Error: apiclient.ErrBudgetExhausted.Error()},
		{Endpoint: "10.0.0.3:6443", Reason: string(diagnose.FailureForbidden)},
		{Endpoint: "10.0.0.4:6443", Reason: string(diagnose.FailureTimeout)},
		{Endpoint: "10.0.0.5:6443", Reason: string(diagnose.FailureThrottled)},
		{Endpoint: "10.0.0.6:6443", CacheKnown: true},
	}}
	r := NewServersReport("probe", servers.Found{}, v, suggest.Context{})
	want := []string{
		"this address cannot be reached from here: if the servers sit on a private network, set proxy-url in the kubeconfig (a bastion), or give reachable addresses with --endpoints",
		"raise --max-requests (it applies to each server)",
		"needs RBAC permission to list and watch configmaps",
		"the server answered that the request did not complete in time, at the timeout it was sent with: it may be cut off from etcd (a consistent list waits for etcd) or slow; raise --request-timeout to give it longer",
		"the server answered 429 Too Many Requests, not marked as API Priority and Fairness's rejection (the server's max-in-flight limit, or a proxy or a load balancer in front, may have sent it): lower --qps or retry later",
		"",
	}
	for i, s := range r.Servers {
		if s.Hint != want[i] {
			t.Errorf("%s (%s): hint %q, want %q", s.Endpoint, s.Reason, s.Hint, want[i])
		}
		if v.Servers[i].Hint != "" || s == v.Servers[i] {
			t.Errorf("%s: the view itself was changed", s.Endpoint)
		}
	}
	var b strings.Builder
	p := NewPrinter(&b, &b, FormatTable, true)
	if err := p.Servers(r); err != nil || !strings.Contains(b.String(), "(hint: raise --max-requests (it applies to each server))") {
		t.Fatalf("table: %v\n%s", err, b.String())
	}
}
