package render

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
)

// One way to name the scope in every human output: "(all)" for -A, "-"
// for a cluster-scoped resource, the namespace otherwise (list, probe and
// streaming used to differ: "(all)" in one, "-" in the others).
func TestEveryReportNamesTheScopeAlike(t *testing.T) {
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	ns := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}}
	cases := []struct {
		target apiclient.Target
		want   string
	}{
		{apiclient.Target{Resource: cm}, "(all)"},
		{apiclient.Target{Resource: cm, Namespace: "demo"}, "demo"},
		{apiclient.Target{Resource: ns}, "-"},
	}
	walk := &listing.WalkResult{Attempts: []listing.Attempt{{Pages: []listing.PageInfo{{ResourceVersion: "7", Items: 1}}, ItemCount: 1}}}
	for _, c := range cases {
		outputs := map[string]func(p *Printer) error{
			"list": func(p *Printer) error { return p.List(NewListReport(ListQuery{Target: c.target}, walk)) },
			"probe": func(p *Printer) error {
				return p.Probe(NewProbeReport(&probe.Result{Target: c.target, CurrentRaw: "7"}, ""), false)
			},
			"streaming": func(p *Printer) error {
				r := streaming.Result{Resource: c.target.Resource.Name(), Namespace: c.target.Namespace, Namespaced: c.target.Resource.Namespaced}
				return p.Streaming(NewStreamingReport([]streaming.Result{r}, time.Second))
			},
		}
		for name, print := range outputs {
			var out bytes.Buffer
			if err := print(NewPrinter(&out, &out, "", true)); err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)(^Namespace:\s+|^\S+\s+)` + regexp.QuoteMeta(c.want) + `(\s|$)`).Match(out.Bytes()) {
				t.Errorf("%s of %s in %q: want the scope %q:\n%s", name, c.target.Resource.Name(), c.target.Namespace, c.want, out.String())
			}
		}
	}
}
